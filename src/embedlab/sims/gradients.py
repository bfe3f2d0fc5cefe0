"""Sparse gradients (lab simulation 10): which rows of a table a batch changes, and how often a
trained table's rows were changed.

The loss pulls each looked-up row towards a target row (seeded, one per position):

    L = ½ Σ_t ‖E[ids_t] − y_t‖²,   G = dL/dX = E[ids] − Y  (T, D),   dE = Hᵀ G  (V, D)

so only rows whose id occurs get gradient, and a row that occurs twice gets the sum of its two
positions' rows of G.

    grad = batch_gradient([2, 2, 5], vocab_size=12, dim=8)
    grad.rows, grad.counts     [2, 5], [2, 1]
    steps = two_steps([2, 2, 5], [5, 7], vocab_size=12, dim=8)
    steps.moves["adam"].second  (V,) ‖ΔE_r‖ in step 2: row 2 moves although batch 2 lacks it

`two_steps` runs torch's own optimizers on an nn.Embedding: plain SGD moves only the rows in the
current batch; Adam (dense gradients) keeps moving a row after its gradient turns zero, because
its momentum m is still non-zero; SparseAdam updates m and v of the batch's rows only, so an
absent row stays put.

The page's second half, a trained table's update counts: how often each row was updated, against
how often its token occurs.

A run folder written by `embedlab train` holds update_counts.npy, (V,) int64: the gradient steps
each input row received. A row only moves when its token is in a batch, so rare tokens get few
updates; word2vec's subsampling of frequent words (and its window) bend the relation away from a
straight proportion.

    updates = read_update_counts("runs/wiki")                     # (V,) int64 (vectors.io.run's reader)
    report = updates_by_frequency(vectors.counts, updates, vectors.index_to_key)
    report = run_updates(Vectors.load("runs/wiki"), "runs/wiki")  # the same, read and checked

Why one module of ~320 lines: it is the whole library side of one lab page (DESIGN.md: one sims
module per page), the batch's gradient and a run's counts being the two views that page shows.
    report.bands, report.spearman, report.points
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
import torch
from torch import nn

from embedlab.data.models import MODELS
from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_float, check_ids, check_int
from embedlab.files import IdVector, Matrix, Vector
from embedlab.scratch import Embedding, row_gradient
from embedlab.sims.limits import MAX_SEED
from embedlab.vectors.frequency import BANDS, band_rows
from embedlab.vectors.io.run import read_update_counts
from embedlab.vectors.stats import spearman  # Pearson of average ranks, float64; NaN if constant
from embedlab.vectors.table import Vectors

# name -> (optimizer factory given the parameters and the learning rate, whether it needs sparse gradients)
OPTIMIZERS: dict[str, tuple[Callable[..., torch.optim.Optimizer], bool]] = {
    "sgd": (lambda params, lr: torch.optim.SGD(params, lr=lr), False),
    "adam": (lambda params, lr: torch.optim.Adam(params, lr=lr), False),
    "sparse_adam": (lambda params, lr: torch.optim.SparseAdam(params, lr=lr), True),
}
INIT_STD = 1.0  # nn.Embedding's own default init, N(0, 1): rows and targets on one scale
MAX_VOCAB = 50  # rows of the lab's toy table: small enough to show every row
MAX_DIM = 16
MAX_IDS = 32  # ids in one batch
MAX_POINTS = 5000  # rows in the update-count scatter
LIMITS = {
    "vocab_size": [2, MAX_VOCAB],
    "dim": [1, MAX_DIM],
    "ids": MAX_IDS,
    "lr": [0.0, 1.0],
    "seed": [0, MAX_SEED],
    "points": [1, MAX_POINTS],
}


def parse_ids(text: str, vocab_size: int, max_ids: int = MAX_IDS) -> np.ndarray:
    """'2, 2 5' -> array([2, 2, 5]): integers split by commas or spaces, each in [0, vocab_size).

    >>> parse_ids("2, 2 5", vocab_size=12, max_ids=8).tolist()
    [2, 2, 5]
    """
    parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    if not parts:
        raise InvalidValueError("ids must hold at least one integer, e.g. '2 2 5'")
    if len(parts) > max_ids:
        raise InvalidValueError(f"at most {max_ids} ids are allowed; got {len(parts)}")
    bad = next((p for p in parts if not re.fullmatch(r"[+-]?\d{1,9}", p)), None)
    if bad is not None:
        raise InvalidValueError(f"ids must be integers; got {bad!r}")
    ids = np.array([int(p) for p in parts], dtype=np.int64)
    check_ids(ids, vocab_size)
    return ids


@dataclass(frozen=True, eq=False)
class BatchGradient:
    """One batch's loss and gradients on the seeded start table and the step-1 targets."""

    ids: IdVector  # (T,) the batch
    vocab_size: int  # V
    dim: int  # D
    table: Matrix  # (V, D) E before any step: start_table(V, D, seed)
    targets: Matrix  # (T, D) the rows y_t the loss pulls E[ids_t] towards
    loss: float  # ½ Σ‖E[ids_t] − y_t‖²
    grad_out: Matrix  # (T, D) G = dL/dX = E[ids] − Y
    rows: IdVector  # (U,) sorted ids with non-zero gradient
    counts: IdVector  # (U,) their occurrences in the batch
    values: Matrix  # (U, D) their rows of dE
    norms: Vector  # (U,) ‖dE row‖
    grad_table: Matrix  # (V, D) the whole dE = Hᵀ G, its zero rows included


def start_table(vocab_size: int, dim: int, seed: int = 0) -> np.ndarray:
    """(V, D) float64 N(0, 1) rows: the table every computation here starts from."""
    return Embedding(vocab_size, dim, std=INIT_STD, seed=seed, dtype=np.float64).weight


def targets(n: int, dim: int, seed: int, step: int) -> np.ndarray:
    """(n, D) float64 target rows of step `step` (1, 2, ...): N(0, 1), seeded by (seed, step)."""
    return np.random.default_rng([seed, step]).standard_normal((n, dim))


def batch_gradient(ids: Sequence[int] | np.ndarray, vocab_size: int, dim: int, seed: int = 0) -> BatchGradient:
    """(T,) ids -> the loss ½ Σ‖E[ids_t] − y_t‖² on the seeded table and step-1 targets, G and dE."""
    vocab_size, dim = check_int("vocab_size", vocab_size, low=1), check_int("dim", dim, low=1)
    ids = _check_batch(ids, vocab_size, "ids")
    table = start_table(vocab_size, dim, seed)  # (V, D)
    y = targets(len(ids), dim, seed, step=1)  # (T, D)
    grad_out = table[ids] - y  # (T, D)
    grad = row_gradient(ids, grad_out, vocab_size)
    counts = np.bincount(ids, minlength=vocab_size)[grad.rows]  # (U,)
    loss = 0.5 * float((grad_out**2).sum())
    norms = np.linalg.norm(grad.values, axis=1)  # (U,)
    dense = grad.to_dense()  # (V, D)
    return BatchGradient(ids, vocab_size, dim, table, y, loss, grad_out, grad.rows, counts, grad.values, norms, dense)


@dataclass(frozen=True, eq=False)
class RowMoves:
    """How far every row moved in each step: ‖E_after[r] − E_before[r]‖."""

    first: Vector  # (V,) in step 1
    second: Vector  # (V,) in step 2


@dataclass(frozen=True, eq=False)
class OptimizerSteps:
    """Two steps of each optimizer from the same table: step 1 on `first`, step 2 on `second`."""

    first: IdVector  # (T1,) ids of step 1
    second: IdVector  # (T2,) ids of step 2
    lr: float  # the learning rate of every optimizer
    dropped: IdVector  # (K,) sorted rows in the first batch but not the second: where the optimizers disagree
    moves: dict[str, RowMoves]  # optimizer name -> its rows' moves


def optimizer_tables(
    first: Sequence[int] | np.ndarray,
    second: Sequence[int] | np.ndarray,
    vocab_size: int,
    dim: int,
    lr: float = 0.1,
    seed: int = 0,
    optimizers: Sequence[str] = tuple(OPTIMIZERS),
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Step 1 on `first` (T1,), step 2 on `second` (T2,), for each of `optimizers` (names in
    OPTIMIZERS) with torch's implementation, each from the same `start_table`; the loss of step s
    is ½ Σ‖E[ids_t] − y_t‖² with `targets(T, D, seed, s)`, so step 1 is `batch_gradient`'s.
    -> optimizer name -> E before, after step 1, after step 2, each (V, D)."""
    vocab_size, dim = check_int("vocab_size", vocab_size, low=1), check_int("dim", dim, low=1)
    batches = [_check_batch(first, vocab_size, "first"), _check_batch(second, vocab_size, "second")]
    lr = check_float("lr", lr)
    if lr <= 0:
        raise InvalidValueError(f"lr must be > 0; got {lr}")
    unknown = [name for name in optimizers if name not in OPTIMIZERS]
    if unknown or not optimizers:
        raise InvalidValueError(f"optimizers must be among {', '.join(OPTIMIZERS)}; got {list(optimizers)}")
    start = start_table(vocab_size, dim, seed)
    goals = [torch.from_numpy(targets(len(ids), dim, seed, step)) for step, ids in enumerate(batches, 1)]
    tables = {}
    for name in optimizers:
        make, sparse = OPTIMIZERS[name]
        emb = nn.Embedding(vocab_size, dim, sparse=sparse, dtype=torch.float64)
        with torch.no_grad():
            emb.weight.copy_(torch.from_numpy(start))
        optimizer = make(emb.parameters(), lr)
        snapshots = [start]
        for ids, y in zip(batches, goals, strict=True):
            optimizer.zero_grad()
            loss = 0.5 * ((emb(torch.from_numpy(ids)) - y) ** 2).sum()
            loss.backward()
            optimizer.step()
            snapshots.append(emb.weight.detach().numpy().copy())
        tables[name] = tuple(snapshots)
    return tables


def two_steps(
    first: Sequence[int] | np.ndarray,
    second: Sequence[int] | np.ndarray,
    vocab_size: int,
    dim: int,
    lr: float = 0.1,
    seed: int = 0,
    optimizers: Sequence[str] = tuple(OPTIMIZERS),
) -> OptimizerSteps:
    """`optimizer_tables`' two steps as each row's move per step, (V,) per optimizer and step."""
    tables = optimizer_tables(first, second, vocab_size, dim, lr, seed, optimizers)
    moves = {}
    for name, snapshots in tables.items():
        moves[name] = RowMoves(*(np.linalg.norm(after - before, axis=1) for before, after in pairwise(snapshots)))
    first, second = _check_batch(first, vocab_size, "first"), _check_batch(second, vocab_size, "second")
    return OptimizerSteps(first, second, float(lr), np.setdiff1d(first, second), moves)


def _check_batch(ids: Sequence[int] | np.ndarray, vocab_size: int, name: str) -> np.ndarray:
    ids = np.asarray(ids)
    if ids.ndim != 1 or ids.size == 0:
        raise InvalidValueError(f"{name} must be a non-empty 1-D list of ids; got shape {ids.shape}")
    check_ids(ids, vocab_size)
    return ids.astype(np.int64)


# ----- a trained table's update counts ------------------------------------------------------------


@dataclass(frozen=True)
class UpdateBand:
    name: str  # the band's name (embedlab.vectors.frequency)
    floor: int  # the band holds rows with floor <= corpus count < the next band's floor
    rows: int  # rows in the band
    mean_count: float  # mean corpus count; NaN for an empty band
    mean_updates: float  # mean update count; NaN for an empty band
    updates_per_occurrence: float  # the band's updates over its occurrences


@dataclass(frozen=True)
class UpdatePoints:
    """Rows sampled across the frequency ranks, most frequent first, for a scatter."""

    keys: tuple[str, ...]  # each row's key
    counts: tuple[int, ...]  # its corpus count
    updates: tuple[int, ...]  # its update count


@dataclass(frozen=True)
class UpdateFrequency:
    table: str  # the table's name ("" for bare arrays)
    bands: tuple[UpdateBand, ...]  # most frequent first
    spearman: float  # rank correlation of corpus count and update count over all rows
    rows: int  # V
    never_updated: int  # rows with update count 0
    points: UpdatePoints  # a sample across frequency ranks


def updates_by_frequency(
    counts: Sequence[int] | np.ndarray,
    updates: Sequence[int] | np.ndarray,
    keys: Sequence[str],
    points: int = 1000,
    bands: Sequence[tuple[int, str]] = BANDS,
    table: str = "",
) -> UpdateFrequency:
    """Corpus counts (V,), update counts (V,), keys (V,) -> mean updates per count band, their rank
    correlation, and up to `points` rows spread evenly over the frequency ranks (for a scatter).

    `bands` are (floor, name) pairs with strictly decreasing floors ending at 0 (default: the
    named bands of `embedlab.vectors.frequency`); `table` names the table in the answer.
    """
    counts, updates = np.asarray(counts), np.asarray(updates)
    n = len(keys)
    for name, array in (("counts", counts), ("updates", updates)):
        if array.shape != (n,) or not np.issubdtype(array.dtype, np.integer):
            raise InvalidValueError(f"{name} must be {n} integers, one per key; got {array.dtype} {array.shape}")
    points = check_int("points", points, low=1)
    results = []
    for (floor, name), inside in zip(bands, band_rows(counts, bands), strict=True):
        c, u = counts[inside].astype(np.float64), updates[inside].astype(np.float64)
        if inside.size:
            per = float(u.sum() / c.sum()) if c.sum() > 0 else math.nan
            results.append(UpdateBand(name, floor, inside.size, float(c.mean()), float(u.mean()), per))
        else:
            results.append(UpdateBand(name, floor, 0, math.nan, math.nan, math.nan))
    by_rank = np.argsort(-counts, kind="stable")  # most frequent first
    chosen = by_rank[np.unique(np.linspace(0, n - 1, min(points, n)).round().astype(np.int64))] if n else by_rank
    sample = UpdatePoints(
        tuple(keys[i] for i in chosen), tuple(counts[chosen].tolist()), tuple(updates[chosen].tolist())
    )
    rho = spearman(counts, updates) if n >= 2 else math.nan
    return UpdateFrequency(table, tuple(results), rho, n, int((updates == 0).sum()), sample)


def run_updates(vectors: Vectors, source: str | Path, points: int = 1000) -> UpdateFrequency:
    """A run's table (V, D) with corpus counts, and the folder it was loaded from -> its
    `updates_by_frequency`."""
    updates = read_update_counts(source)
    if vectors.counts is None:
        raise MissingDataError(f"{vectors.name} has no corpus counts to set against its update counts")
    if len(updates) != len(vectors):
        raise FileFormatError(f"{source}: {len(updates)} update counts for a table of {len(vectors)} rows")
    return updates_by_frequency(vectors.counts, updates, vectors.index_to_key, points, table=vectors.name)


def has_update_counts(source: str | Path) -> bool:
    """Whether a table's source (a built-in name or a path) is a run folder with readable update counts."""
    if str(source) in MODELS:  # a built-in table is no run folder
        return False
    try:
        read_update_counts(source)
    except (MissingDataError, FileFormatError):
        return False
    return True


def served_updates(vectors: Vectors, source: str | Path, points: int = 1000) -> UpdateFrequency:
    """`run_updates` for a table a server names by `vectors.name`: a table without readable update
    counts is a MissingDataError naming the table, never the server's path."""
    try:
        return run_updates(vectors, source, points)
    except (MissingDataError, FileFormatError):
        raise MissingDataError(
            f"table {vectors.name!r} has no readable update counts: only run folders written by `embedlab train` "
            "have them (/api/gradients/tables lists the served ones)"
        ) from None
