"""Correlations of two score lists, in float64, equal to scipy.stats' values (the tests compare).

    spearman(x, y)   Spearman's rho: Pearson's r of the ranks, ties sharing their mean rank
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
