"""Which rows of an embedding table a batch changes: its gradient, then real optimizer steps.

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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import torch
from torch import nn

from embedlab.errors import InvalidValueError, check_float, check_ids, check_int
from embedlab.scratch import Embedding, RowGradient, row_gradient

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
