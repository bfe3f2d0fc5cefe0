"""Sparse gradients (simulation 10): the rows of dE a batch touches, SGD vs Adam, update counts."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.errors import FileFormatError, MissingDataError
from embedlab.lab.deps import LabDep, TableDep, UpdateTablesDep
from embedlab.lab.schemas import BatchAnswer, Limit, StepsAnswer, TableList, UpdatesAnswer
from embedlab.sims.gradients import batch_gradient, parse_ids, run_updates, two_steps

router = APIRouter(prefix="/api/gradients", tags=["gradients"])

MAX_VOCAB = 50  # rows of the toy table: small enough to show every row
MAX_DIM = 16
MAX_IDS = 32  # ids in one batch
MAX_POINTS = 5000  # rows in the update-count scatter
MAX_SEED = 2**31 - 1
LIMITS: dict[str, Limit] = {"vocab_size": [2, MAX_VOCAB], "dim": [1, MAX_DIM], "ids": MAX_IDS, "lr": [0.0, 1.0],
                            "seed": [0, MAX_SEED], "points": [1, MAX_POINTS]}  # fmt: skip

Ids = Annotated[str, Query(min_length=1, max_length=8 * MAX_IDS, description=f"up to {MAX_IDS} ids, e.g. '2 2 5'")]
Vocab = Annotated[int, Query(ge=2, le=MAX_VOCAB, description=f"V, rows of the table, 2..{MAX_VOCAB}")]
Dim = Annotated[int, Query(ge=1, le=MAX_DIM, description=f"D, width of a row, 1..{MAX_DIM}")]
Seed = Annotated[int, Query(ge=0, le=MAX_SEED)]


@router.get("/batch", response_model=BatchAnswer)
def batch(ids: Ids = "2 2 5", vocab_size: Vocab = 12, dim: Dim = 8, seed: Seed = 0) -> dict:
    """The upstream gradient G (T, D) of ½ Σ‖E[ids_t] − y_t‖² and dE = Hᵀ G: its non-zero rows,
    each row's occurrences, its values, and the whole (V, D) dE."""
    return batch_gradient(parse_ids(ids, vocab_size, MAX_IDS), vocab_size, dim, seed).to_dict()


@router.get("/steps", response_model=StepsAnswer)
def steps(
    first: Ids = "2 2 5",
    second: Ids = "5 7",
    vocab_size: Vocab = 12,
    dim: Dim = 8,
    lr: Annotated[float, Query(gt=0, le=1)] = 0.1,
    seed: Seed = 0,
) -> dict:
    """‖ΔE_r‖ per row in two steps (batch `first`, then `second`) of SGD, Adam and SparseAdam."""
    batches = [parse_ids(text, vocab_size, MAX_IDS) for text in (first, second)]
    return two_steps(*batches, vocab_size, dim, lr=lr, seed=seed).to_dict()


@router.get("/tables", response_model=TableList)
def tables(names: UpdateTablesDep) -> dict:
    """The served tables that have update counts: run folders written by `embedlab train`."""
    return {"tables": names}


@router.get("/updates", response_model=UpdatesAnswer)
def updates(lab: LabDep, vectors: TableDep, points: Annotated[int, Query(ge=1, le=MAX_POINTS)] = 2000) -> dict:
    """Corpus count vs gradient updates per row of a served training run (its update_counts.npy)."""
    try:
        report = run_updates(vectors, lab.paths[vectors.name], points)
    except (MissingDataError, FileFormatError):  # their messages hold the server's path: name the table instead
        raise MissingDataError(
            f"table {vectors.name!r} has no readable update counts: only run folders written by `embedlab train` "
            "have them (/api/gradients/tables lists the served ones)"
        ) from None
    return {"table": vectors.name, **report.to_dict()}
