"""Seed noise: a 95% interval of a mean over seeds, and whether an ordering holds beyond it.

    t_interval([2.12, 2.13, 2.11])                        (low, high) of the mean, Student t, n - 1 degrees
    verdict(a=[2.12, 2.13, 2.11], b=[2.38, 2.37, 2.39], better="lower")     "holds": a beats b

A race's runs differ only in their seed, so the spread of a figure over seeds is the noise a
claim has to clear. The claim "a beats b" is judged on the per-seed differences (seed s of a against
seed s of b: both drew the same batches, so what they share cancels): it holds when the 95%
interval of the differences lies wholly on a's side of 0, is contradicted when it lies wholly on
b's side, and is within noise otherwise, which includes a single seed (no interval at all).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from embedlab.errors import InvalidValueError, check_choice

VERDICTS = ("holds", "contradicted", "within noise")
BETTER = ("lower", "higher")
# Student t's 97.5% quantiles (a two-sided 95% interval) for 1 to 30 degrees of freedom, to 4 places
# (scipy.stats.t.ppf's values; tests/arena/test_noise.py compares)
T975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
        2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
        2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)  # fmt: skip
Z975 = 1.959963984540054  # the normal's 97.5% quantile


def t_quantile(df: int) -> float:
    """Student t's 97.5% quantile with `df` degrees of freedom: the table to 30, then the
    Cornish-Fisher expansion around the normal's (within 1e-4 past 30).

    >>> t_quantile(2), round(t_quantile(100), 4)
    (4.3027, 1.984)
    """
    if df < 1:
        raise InvalidValueError(f"degrees of freedom must be >= 1; got {df}")
    if df <= len(T975):
        return T975[df - 1]
    z = Z975
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def t_interval(values: Sequence[float]) -> tuple[float, float] | None:
    """(n,) figures, one per seed -> the 95% interval of their mean, mean ± t·s/√n with n - 1
    degrees of freedom; None for fewer than 2 values (one seed says nothing about noise).

    >>> t_interval([1.0, 2.0, 3.0])  # mean 2, s = 1: 2 ± 4.3027/√3
    (-0.4841..., 4.4841...)
    """
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    s = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile(n - 1) * s / math.sqrt(n)
    return mean - half, mean + half


def verdict(a: Sequence[float], b: Sequence[float], better: str) -> str:
    """The claim "a beats b" against seed noise: (n,) figures of a and of b, seed by seed, and which
    way is better -> "holds", "contradicted" or "within noise" (module docstring).

    >>> verdict([2.0, 2.1, 2.0], [2.5, 2.5, 2.6], "lower"), verdict([2.0, 2.6], [2.5, 2.1], "lower")
    ('holds', 'within noise')
    """
    better = check_choice("better", better, BETTER)
    if len(a) != len(b):
        raise InvalidValueError(f"need one figure per seed for both; got {len(a)} and {len(b)}")
    gains = [(y - x) if better == "lower" else (x - y) for x, y in zip(a, b, strict=True)]  # > 0: a is better
    interval = t_interval(gains)
    if interval is None:
        return "within noise"
    low, high = interval
    return "holds" if low > 0 else "contradicted" if high < 0 else "within noise"
