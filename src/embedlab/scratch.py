"""The embedding layer from scratch in NumPy: the lessons' math, vectorised, no autograd.

    E (V, D)            the table
    forward:  X = E[ids]                     (...) -> (..., D)
    same as:  X = H E,  H = one_hot(ids, V)  (..., V) @ (V, D)
    backward: dE = Hᵀ G                      rows of absent ids are exactly 0,
                                             repeated ids add their gradients
    sgd_step: E[r] -= lr · dE[r] for the used rows r only

Worked example (the lesson's exercise): ids [2, 2, 5] with output gradients g1, g2, g3 give
dE[2] = g1 + g2, dE[5] = g3, and every other row of dE zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from embedlab.errors import InvalidValueError, check_float, check_ids, check_int


@dataclass(frozen=True)
class RowGradient:
    """A table gradient kept sparse: only the rows that received gradient.

    rows: (U,) int64, sorted and unique; values: (U, D); num_rows: V of the full table.
    """

    rows: np.ndarray
    values: np.ndarray
    num_rows: int

    def to_dense(self) -> np.ndarray:
        """(V, D) with zeros outside `rows`."""
        dense = np.zeros((self.num_rows, self.values.shape[1]), dtype=self.values.dtype)
        dense[self.rows] = self.values
        return dense


def one_hot(ids: np.ndarray, vocab_size: int, dtype: np.dtype = np.float32) -> np.ndarray:
    """(...) int ids -> (..., V) one-hot rows.

    >>> one_hot(np.array([3]), 5)
    array([[0., 0., 0., 1., 0.]], dtype=float32)
    """
    ids = np.asarray(ids)
    check_ids(ids, vocab_size)
    return (ids[..., None] == np.arange(vocab_size)).astype(dtype)


def row_gradient(ids: np.ndarray, grad_out: np.ndarray, vocab_size: int) -> RowGradient:
    """(...) ids and (..., D) output gradient -> the summed gradient of each used row.

    Sort the ids once so equal ids sit in runs; a run of one is its own row gradient, and the
    runs of repeated ids are summed with one `np.add.reduceat`. The same result as Hᵀ G
    without a V-wide one-hot matrix or a Python loop over tokens.
    """
    flat = np.asarray(ids).reshape(-1)
    grad_out = np.asarray(grad_out)
    grads = grad_out.reshape(flat.size, grad_out.shape[-1])  # (n, D)
    if flat.size == 0:
        return RowGradient(np.empty(0, np.int64), np.empty((0, grads.shape[1]), grads.dtype), vocab_size)
    order = np.argsort(flat, kind="stable")
    sorted_ids, sorted_grads = flat[order], grads[order]  # (n,), (n, D)
    starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])  # first of each run
    lengths = np.diff(np.r_[starts, flat.size])  # (U,)
    values = sorted_grads[starts]  # (U, D): already right for runs of one
    repeated = lengths > 1
    if repeated.any():
        # subtle: reduceat pays per segment, so hand it only the (usually few) repeated runs.
        in_repeated = np.repeat(repeated, lengths)  # (n,) element belongs to a repeated run
        sub_starts = np.r_[0, np.cumsum(lengths[repeated])[:-1]]
        values[repeated] = np.add.reduceat(sorted_grads[in_repeated], sub_starts, axis=0)
    return RowGradient(sorted_ids[starts].astype(np.int64), values, vocab_size)


class Embedding:
    """A (V, D) table with forward, one-hot forward, backward and an SGD step on used rows.

    >>> emb = Embedding(6, 3, seed=0)
    >>> emb.forward(np.array([[1, 2, 0]])).shape
    (1, 3, 3)
    """

    def __init__(
        self, vocab_size: int, dim: int, std: float = 0.02, seed: int = 0, dtype: np.dtype = np.float32
    ) -> None:
        self.vocab_size = check_int("vocab_size", vocab_size, low=1)
        self.dim = check_int("dim", dim, low=1)
        std = check_float("std", std, low=0.0)
        rng = np.random.default_rng(seed)
        self.weight = (rng.standard_normal((vocab_size, dim)) * std).astype(dtype)  # (V, D)

    def forward(self, ids: np.ndarray) -> np.ndarray:
        """(...) int ids -> (..., D) by row indexing."""
        ids = np.asarray(ids)
        check_ids(ids, self.vocab_size)
        return self.weight[ids]

    def forward_one_hot(self, ids: np.ndarray) -> np.ndarray:
        """(...) int ids -> (..., D) as one_hot(ids, V) @ E: the same numbers, V times the work."""
        return one_hot(ids, self.vocab_size, self.weight.dtype) @ self.weight

    def backward(self, ids: np.ndarray, grad_out: np.ndarray) -> np.ndarray:
        """(...) ids, (..., D) dL/dX -> (V, D) dL/dE = Hᵀ G.

        Rows of ids that did not occur are exactly zero; repeated ids accumulate.
        """
        ids = np.asarray(ids)
        check_ids(ids, self.vocab_size)
        grad_out = np.asarray(grad_out)
        if grad_out.shape != (*ids.shape, self.dim):
            raise InvalidValueError(
                f"grad_out must have shape {(*ids.shape, self.dim)} (ids shape + (D,)); got {grad_out.shape}"
            )
        return row_gradient(ids, grad_out, self.vocab_size).to_dense()

    def sgd_step(self, grad: np.ndarray | RowGradient, lr: float) -> np.ndarray:
        """E[r] -= lr · grad[r] for the rows r with non-zero gradient; returns r (sorted).

        Accepts the dense (V, D) gradient from `backward` or a sparse `RowGradient`. Rows
        outside r are not written at all, not merely changed by zero.
        """
        lr = check_float("lr", lr)
        if isinstance(grad, RowGradient):
            rows, values = grad.rows, grad.values
        else:
            grad = np.asarray(grad)
            if grad.shape != self.weight.shape:
                raise InvalidValueError(f"grad must have shape {self.weight.shape}; got {grad.shape}")
            rows = np.flatnonzero(np.any(grad != 0, axis=1))
            values = grad[rows]
        self.weight[rows] -= (lr * values).astype(self.weight.dtype)
        return rows
