"""Correlations of two score lists, in float64, equal to scipy.stats' values (the tests compare).

    spearman(x, y)   Spearman's rho: Pearson's r of the ranks, ties sharing their mean rank
    spearman_counts(x, y, counts)   (R,) rho of R resamples given as item counts, in one pass (bootstraps)
    pearson(x, y)    Pearson's r; nan when either input is constant
    ranks(x)         (n,) -> (n,) ranks 1..n, ties given the mean of their ranks

The benchmarks (evaluate.py), norms against frequency (analysis.py) and the lab's update counts
all rank with these, so one definition of a tie holds everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from embedlab.errors import InvalidValueError


def spearman(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Spearman's rank correlation: Pearson's r of the ranks, tied values sharing their mean rank
    (scipy.stats.spearmanr's value). (n,), (n,) -> float.

    >>> round(spearman([1, 2, 2, 3], [10, 20, 30, 40]), 6)
    0.948683
    """
    return pearson(ranks(np.asarray(x, dtype=np.float64)), ranks(np.asarray(y, dtype=np.float64)))


def spearman_counts(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Spearman's rho of R resamples of the pairs (x_i, y_i), resample r holding pair i `counts[r, i]`
    times: (n,), (n,), (R, n) -> (R,) float64, each equal to spearman(x.repeat(c), y.repeat(c)); nan
    where a resample's x or y is constant.

    No resample is sorted: x and y are ranked once, and a value's mean rank in a resample is the
    count of resampled values below it plus half its own group's count (a cumulative sum over the
    counts in x's order), so 1000 resamples of SimLex-999 cost a few milliseconds, not a sort each.

    >>> spearman_counts([1, 2, 3], [1, 3, 2], np.array([[1, 1, 1], [2, 1, 0]])).tolist()
    [0.5, 1.0]
    """
    counts = np.asarray(counts, dtype=np.float64)
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if counts.ndim != 2 or x.shape != y.shape or counts.shape[1:] != x.shape:
        raise InvalidValueError(f"need x (n,), y (n,) and counts (R, n); got {x.shape}, {y.shape}, {counts.shape}")
    middle = (counts.sum(axis=1, keepdims=True) + 1) / 2  # (R, 1) the mean rank of every resample
    dx, dy = _count_ranks(x, counts) - middle, _count_ranks(y, counts) - middle  # (R, n)

    def weighted(a, b):  # (R, n), (R, n) -> (R,) sum over each resample's values
        return np.einsum("rn,rn,rn->r", counts, a, b)

    with np.errstate(invalid="ignore"):  # 0 / 0 for a constant resample: nan, as pearson
        rho = weighted(dx, dy) / np.sqrt(weighted(dx, dx) * weighted(dy, dy))
    return np.clip(rho, -1.0, 1.0)


def pearson(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Pearson's r in float64 (scipy.stats.pearsonr's value); nan when either input is constant.
    (n,), (n,) -> float.

    >>> round(pearson([1, 2, 3], [2, 4, 7]), 6)
    0.993399
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape or len(x) < 2:
        raise InvalidValueError(f"need two 1-D sequences of the same length >= 2; got shapes {x.shape}, {y.shape}")
    xm, ym = x - x.mean(), y - y.mean()
    nx, ny = np.linalg.norm(xm), np.linalg.norm(ym)
    if nx == 0 or ny == 0:
        return float("nan")
    return float(np.clip(np.dot(xm / nx, ym / ny), -1.0, 1.0))


def ranks(x: Sequence[float] | np.ndarray) -> np.ndarray:
    """(n,) -> (n,) float64 ranks 1..n, ties given the mean of their ranks.

    >>> ranks([10, 20, 20, 30]).tolist()
    [1.0, 2.5, 2.5, 4.0]
    """
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1], True])  # tie-group bounds, (G + 1,)
    group = np.repeat(np.arange(len(starts) - 1), np.diff(starts))  # (n,) group of each sorted value
    result = np.empty(len(x))
    result[order] = ((starts[:-1] + starts[1:] + 1) / 2.0)[group]
    return result


def _count_ranks(x: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """(n,), (R, n) counts -> (R, n): the mean rank of x_i among resample r's values (ties averaged)."""
    _, group = np.unique(x, return_inverse=True)  # (n,) tie group of each item, groups in value order
    group = group.reshape(-1)
    ends = np.cumsum(np.bincount(group)) - 1  # (G,) position of each group's last item in value order
    upto = np.cumsum(counts[:, np.argsort(group, kind="stable")], axis=1)[:, ends]  # (R, G) values <= the group's
    below = np.concatenate([np.zeros((len(counts), 1)), upto[:, :-1]], axis=1)  # (R, G) values below it
    return ((below + upto + 1) / 2)[:, group]  # ranks below+1 .. upto, averaged
