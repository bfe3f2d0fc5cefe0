"""Seed noise: a 95% interval of a mean over seeds, and whether an ordering holds beyond it.

    t_interval([2.12, 2.13, 2.11])                        (low, high) of the mean, Student t, n - 1 degrees
    verdict(a=[2.12, 2.13, 2.11], b=[2.38, 2.37, 2.39], better="lower")     "holds": a beats b
    paired_p(gains)                                       two-sided p of "the mean gain is 0" (paired t test)
    holm([0.01, 0.04, 0.03])                              Holm-adjusted p values of a family: [0.03, 0.06, 0.06]
    upper_bound([0.02, -0.01, 0.03])                      one-sided 95% upper bound of the mean

A race's runs differ only in their seed, so the spread of a figure over seeds is the noise a
claim has to clear. The claim "a beats b" is judged on the per-seed differences (seed s of a against
seed s of b: both drew the same batches, so what they share cancels): it holds when the 95%
interval of the differences lies wholly on a's side of 0, is contradicted when it lies wholly on
b's side, and is within noise otherwise, which includes a single seed (no interval at all).

A race judges hundreds of such claims at once (every pair of strategies on every metric): at 95% each,
about one in twenty true ties would "hold" by chance. `holm` adjusts a family's p values so that the
chance of any false "holds" in the whole family stays below 5% (Holm 1979, step-down Bonferroni):
`family_verdicts` is `verdict` judged on the adjusted p. A single claim's p below 0.05 is the same as
its 95% interval excluding 0; a family's adjusted p asks more.

A tolerance goal ("within +0.02 of the full table") is judged by `upper_bound`: the one-sided 95%
upper bound of the mean paired difference must lie within the tolerance; "within noise" of 0 says
nothing about it (an interval as wide as the noise neither meets nor refutes a tolerance).
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
ALPHA = 0.05  # a verdict's level: 95% intervals, and a family's chance of any false "holds" under Holm


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


def t_two_sided(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student t with `df` degrees of freedom, exact for whole `df` (Abramowitz &
    Stegun 26.7.3-4: a finite sum in θ = atan(|t|/√df)); t = ±inf gives 0. Its absolute error is a few
    ulps of 1, which is all a comparison with a level (0.05/502 ≈ 1e-4 at the smallest) needs.

    >>> round(t_two_sided(4.3027, 2), 4), t_two_sided(0.0, 5), t_two_sided(math.inf, 2)
    (0.05, 1.0, 0.0)
    """
    if df < 1:
        raise InvalidValueError(f"degrees of freedom must be >= 1; got {df}")
    return _two_sided_at(math.atan2(abs(t), math.sqrt(df)), df)


def _two_sided_at(theta: float, df: int) -> float:
    """t_two_sided at θ = atan(|t|/√df) in [0, π/2] (θ = π/2: a difference with no spread at all)."""
    c, s = math.cos(theta), math.sin(theta)
    c2, term, total = c * c, 1.0, 1.0
    if df % 2 == 0:  # A = sinθ (1 + ½cos²θ + (1·3)/(2·4)cos⁴θ + … up to cos^(df-2)θ)
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        return max(0.0, 1.0 - s * total)
    if df == 1:  # A = 2θ/π
        return max(0.0, 1.0 - 2 * theta / math.pi)
    for k in range(1, (df - 1) // 2):  # A = (2/π)(θ + sinθ cosθ (1 + ⅔cos²θ + … up to cos^(df-3)θ))
        term *= c2 * (2 * k) / (2 * k + 1)
        total += term
    return max(0.0, 1.0 - 2 / math.pi * (theta + s * c * total))


def t_quantile_at(level: float, df: int) -> float:
    """Student t's `level` quantile (0.5 < level < 1) with `df` degrees of freedom, by bisection on
    t_two_sided: t_quantile_at(0.975, df) is t_quantile(df) to 4 places, 0.95 the one-sided 95% one.

    >>> round(t_quantile_at(0.95, 2), 4), round(t_quantile_at(0.975, 2), 4)
    (2.92, 4.3027)
    """
    if not 0.5 < level < 1:
        raise InvalidValueError(f"a quantile's level must lie between 0.5 and 1; got {level}")
    target, low, high = 2 * (1 - level), 0.0, 1.0
    while t_two_sided(high, df) > target:
        high *= 2
    for _ in range(200):  # halves [low, high] down to float resolution
        mid = (low + high) / 2
        if mid in (low, high):
            break
        low, high = (mid, high) if t_two_sided(mid, df) > target else (low, mid)
    return (low + high) / 2


def paired_p(gains: Sequence[float]) -> float:
    """(n,) per-seed differences -> the two-sided p of a paired t test that their mean is 0, with
    n - 1 degrees of freedom; 1.0 for fewer than 2 (no test), 0.0 for a nonzero difference no seed
    moves (no spread: the same for every seed, as a unigram baseline is).

    >>> round(paired_p([1.0, 2.0, 3.0]), 4), paired_p([0.5]), paired_p([0.25, 0.25])
    (0.0742, 1.0, 0.0)
    """
    n = len(gains)
    if n < 2:
        return 1.0
    mean = math.fsum(gains) / n
    s = math.sqrt(math.fsum((g - mean) ** 2 for g in gains) / (n - 1))
    if mean == 0:
        return 1.0
    return _two_sided_at(math.atan2(abs(mean) * math.sqrt(n), s * math.sqrt(n - 1)), n - 1)


def holm(p_values: Sequence[float]) -> list[float]:
    """(m,) p values of one family -> Holm's adjusted p values, in the same order: sorted ascending,
    the i-th smallest (from 0) is multiplied by m - i, capped at 1, and made no smaller than any
    before it. A claim holds in the family when its adjusted p is below the level.

    >>> holm([0.01, 0.04, 0.03])  # 3 × 0.01; 2 × 0.03; max(0.06, 1 × 0.04)
    [0.03, 0.06, 0.06]
    """
    m = len(p_values)
    if any(not 0 <= p <= 1 for p in p_values):
        raise InvalidValueError(f"p values lie in [0, 1]; got {[p for p in p_values if not 0 <= p <= 1][:3]}")
    adjusted = [0.0] * m
    running = 0.0
    for i, k in enumerate(sorted(range(m), key=lambda k: p_values[k])):
        running = max(running, min(1.0, (m - i) * p_values[k]))
        adjusted[k] = running
    return adjusted


def family_verdicts(gains: Sequence[Sequence[float]], alpha: float = ALPHA) -> list[tuple[str, float, float]]:
    """A family of claims "a beats b", each as its (n,) per-seed gains (> 0: a is better) -> for each,
    (verdict, p, Holm-adjusted p): "holds" or "contradicted" when the adjusted p is below `alpha`
    (by the sign of the mean gain), "within noise" otherwise.

    >>> [v for v, _, _ in family_verdicts([[0.2, 0.21, 0.19], [0.05, -0.01, 0.03]])]
    ['holds', 'within noise']
    """
    p = [paired_p(g) for g in gains]
    out = []
    for g, raw, adjusted in zip(gains, p, holm(p), strict=True):
        mean = math.fsum(g) / len(g) if g else 0.0
        beyond = adjusted < alpha and mean != 0
        out.append(("holds" if beyond and mean > 0 else "contradicted" if beyond else "within noise", raw, adjusted))
    return out


def upper_bound(values: Sequence[float], level: float = 0.95) -> float | None:
    """(n,) per-seed differences -> the one-sided `level` upper bound of their mean, mean + t·s/√n
    with t Student's `level` quantile at n - 1 degrees; None for fewer than 2 values. A tolerance goal
    "within +δ" is met when this is at most δ, refuted when the matching lower bound is above δ.

    >>> round(upper_bound([1.0, 2.0, 3.0]), 4)  # 2 + 2.91999·1/√3
    3.6859
    """
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    s = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return mean + t_quantile_at(level, n - 1) * s / math.sqrt(n)
