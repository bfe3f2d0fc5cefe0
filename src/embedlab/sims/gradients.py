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

    updates = read_update_counts("runs/wiki")                     # (V,) int64
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
from dataclasses import asdict, dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
import torch
from torch import nn

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_float, check_ids, check_int
from embedlab.files import json_safe
from embedlab.scratch import Embedding, RowGradient, row_gradient
from embedlab.train.run import UPDATE_COUNTS
from embedlab.vectors.frequency import BANDS, band_rows
from embedlab.vectors.io import RUN_TABLE
from embedlab.vectors.io.arrays import read_array
from embedlab.vectors.stats import spearman  # Pearson of average ranks, float64; NaN if constant
from embedlab.vectors.table import Vectors

# name -> (optimizer factory given the parameters and the learning rate, whether it needs sparse gradients)
OPTIMIZERS: dict[str, tuple[Callable[..., torch.optim.Optimizer], bool]] = {
    "sgd": (lambda params, lr: torch.optim.SGD(params, lr=lr), False),
    "adam": (lambda params, lr: torch.optim.Adam(params, lr=lr), False),
    "sparse_adam": (lambda params, lr: torch.optim.SparseAdam(params, lr=lr), True),
}
INIT_STD = 1.0  # nn.Embedding's own default init, N(0, 1): rows and targets on one scale


def parse_ids(text: str, vocab_size: int, max_ids: int) -> np.ndarray:
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


@dataclass(frozen=True)
class BatchGradient:
    """One batch's loss and gradients. ids (T,); table (V, D) the starting E; targets, grad_out
    (T, D); rows (U,) sorted ids with non-zero gradient, counts (U,) their occurrences in the
    batch, values (U, D) their rows of dE."""

    ids: np.ndarray
    table: np.ndarray
    targets: np.ndarray
    grad_out: np.ndarray
    rows: np.ndarray
    counts: np.ndarray
    values: np.ndarray
    loss: float

    def dense(self) -> np.ndarray:
        """(V, D) dE with the zero rows filled in."""
        return RowGradient(self.rows, self.values, len(self.table)).to_dense()

    def to_dict(self) -> dict:
        return {
            "ids": self.ids.tolist(),
            "vocab_size": len(self.table),
            "dim": self.table.shape[1],
            "loss": self.loss,
            "grad_out": self.grad_out.tolist(),
            "rows": self.rows.tolist(),
            "counts": self.counts.tolist(),
            "values": self.values.tolist(),
            "norms": np.linalg.norm(self.values, axis=1).tolist(),
            "grad_table": self.dense().tolist(),
        }


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
    return BatchGradient(ids, table, y, grad_out, grad.rows, counts, grad.values, loss)


@dataclass(frozen=True)
class RowMoves:
    """‖E_after[r] − E_before[r]‖ for every row r, (V,) each, in step 1 and in step 2."""

    first: np.ndarray
    second: np.ndarray


@dataclass(frozen=True)
class OptimizerSteps:
    """Two steps of each optimizer from the same table: step 1 on `first`, step 2 on `second`."""

    first: np.ndarray  # (T1,) ids
    second: np.ndarray  # (T2,) ids
    lr: float
    tables: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]  # name -> E before, after 1, after 2 (V, D)
    moves: dict[str, RowMoves]  # optimizer name -> its per-row moves

    @property
    def dropped(self) -> np.ndarray:
        """(K,) sorted rows in the first batch but not the second: where the optimizers disagree."""
        return np.setdiff1d(self.first, self.second)

    def to_dict(self) -> dict:
        return {
            "first": self.first.tolist(),
            "second": self.second.tolist(),
            "lr": self.lr,
            "dropped": self.dropped.tolist(),
            "moves": {name: {"first": m.first.tolist(), "second": m.second.tolist()} for name, m in self.moves.items()},
        }


def two_steps(
    first: Sequence[int] | np.ndarray,
    second: Sequence[int] | np.ndarray,
    vocab_size: int,
    dim: int,
    lr: float = 0.1,
    seed: int = 0,
    optimizers: Sequence[str] = tuple(OPTIMIZERS),
) -> OptimizerSteps:
    """Step 1 on `first` (T1,), step 2 on `second` (T2,), for each of `optimizers` (names in
    OPTIMIZERS) with torch's implementation, each from the same `start_table`; the loss of step s
    is ½ Σ‖E[ids_t] − y_t‖² with `targets(T, D, seed, s)`, so step 1 is `batch_gradient`'s."""
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
    tables, moves = {}, {}
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
        step_moves = [np.linalg.norm(after - before, axis=1) for before, after in pairwise(snapshots)]
        moves[name] = RowMoves(*step_moves)
    return OptimizerSteps(batches[0], batches[1], lr, tables, moves)


def _check_batch(ids: Sequence[int] | np.ndarray, vocab_size: int, name: str) -> np.ndarray:
    ids = np.asarray(ids)
    if ids.ndim != 1 or ids.size == 0:
        raise InvalidValueError(f"{name} must be a non-empty 1-D list of ids; got shape {ids.shape}")
    check_ids(ids, vocab_size)
    return ids.astype(np.int64)


# ----- a trained table's update counts ------------------------------------------------------------


UPDATE_COUNTS_FORMAT = "update counts: a NumPy .npy array (V,) of integers >= 0"


def read_update_counts(source: str | Path) -> np.ndarray:
    """A run folder (or its vectors.safetensors) -> (V,) int64 update counts, read without pickles."""
    path = Path(source)
    folder = path.parent if path.name == RUN_TABLE and path.is_file() else path
    file = folder / UPDATE_COUNTS
    if not file.is_file():
        raise MissingDataError(
            f"{source} has no {UPDATE_COUNTS}: only folders written by `embedlab train` record update counts"
        )
    counts = read_array(file, UPDATE_COUNTS_FORMAT)  # the header's shape checked against the file's size first
    if counts.ndim != 1 or not np.issubdtype(counts.dtype, np.integer) or (counts < 0).any():
        raise FileFormatError(f"{file}: expected {UPDATE_COUNTS_FORMAT}; found {counts.dtype} {counts.shape}")
    return counts.astype(np.int64)


@dataclass(frozen=True)
class UpdateBand:
    name: str
    floor: int  # the band holds rows with floor <= corpus count < the next band's floor
    rows: int
    mean_count: float  # NaN for an empty band
    mean_updates: float
    updates_per_occurrence: float  # the band's updates over its occurrences


@dataclass(frozen=True)
class UpdateFrequency:
    bands: tuple[UpdateBand, ...]  # most frequent first
    spearman: float  # rank correlation of corpus count and update count over all rows
    rows: int
    never_updated: int  # rows with update count 0
    points: tuple[tuple[str, int, int], ...]  # (key, count, updates), a sample across frequency ranks

    def to_dict(self) -> dict:
        """Plain JSON: NaN (an empty band, a constant column) becomes None."""
        return {
            "bands": json_safe([asdict(b) for b in self.bands]),
            "spearman": json_safe(self.spearman),
            "rows": self.rows,
            "never_updated": self.never_updated,
            "points": {
                "keys": [p[0] for p in self.points],
                "counts": [p[1] for p in self.points],
                "updates": [p[2] for p in self.points],
            },
        }


def updates_by_frequency(
    counts: Sequence[int] | np.ndarray,
    updates: Sequence[int] | np.ndarray,
    keys: Sequence[str],
    points: int = 1000,
    bands: Sequence[tuple[int, str]] = BANDS,
) -> UpdateFrequency:
    """Corpus counts (V,), update counts (V,), keys (V,) -> mean updates per count band, their rank
    correlation, and up to `points` rows spread evenly over the frequency ranks (for a scatter).

    `bands` are (floor, name) pairs with strictly decreasing floors ending at 0 (default: the
    named bands of `embedlab.vectors.frequency`).
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
    sample = tuple((keys[i], int(counts[i]), int(updates[i])) for i in chosen)
    rho = spearman(counts, updates) if n >= 2 else math.nan
    return UpdateFrequency(tuple(results), rho, n, int((updates == 0).sum()), sample)


def run_updates(vectors: Vectors, source: str | Path, points: int = 1000) -> UpdateFrequency:
    """A run's table (V, D) with corpus counts, and the folder it was loaded from -> its
    `updates_by_frequency`."""
    updates = read_update_counts(source)
    if vectors.counts is None:
        raise MissingDataError(f"{vectors.name} has no corpus counts to set against its update counts")
    if len(updates) != len(vectors):
        raise FileFormatError(f"{source}: {len(updates)} update counts for a table of {len(vectors)} rows")
    return updates_by_frequency(vectors.counts, updates, vectors.index_to_key, points)
