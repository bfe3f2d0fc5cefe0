"""Seed noise (arena/noise.py): Student t's quantiles, tail probabilities and intervals against scipy,
the verdict on an ordering claim for constructed figures (never the race's own numbers), and Holm's
correction against a hand-worked family and against statsmodels' multipletests (scipy-based by hand
where statsmodels is not installed)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from embedlab.arena.noise import (
    family_verdicts,
    holm,
    paired_p,
    t_interval,
    t_quantile,
    t_quantile_at,
    t_two_sided,
    upper_bound,
    verdict,
)
from embedlab.errors import InvalidValueError

QUANTILE_TOL = 1e-4  # the table holds 4 places; the expansion past 30 degrees is closer still
# The closed form's sums and 1 - A lose a few ulps of 1 (absolute, not relative): far below any level a
# verdict compares with (0.05/502 ≈ 1e-4)
TAIL_TOL = 1e-13
BISECTION_TOL = 1e-9  # t_quantile_at halves its bracket to float resolution; scipy's ppf is iterative too


@pytest.mark.parametrize("df", [1, 2, 3, 5, 10, 29, 30, 31, 45, 100, 1000])
def test_t_quantiles_are_scipys(df):
    assert t_quantile(df) == pytest.approx(stats.t.ppf(0.975, df), abs=QUANTILE_TOL)


def test_the_interval_is_scipys_t_interval_of_the_mean():
    values = [2.12, 2.15, 2.09, 2.14]
    low, high = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert t_interval(values) == pytest.approx((low, high), abs=QUANTILE_TOL)
    assert t_interval([2.0]) is None and t_interval([]) is None


def test_an_ordering_holds_is_contradicted_or_is_within_noise():
    a = [2.10, 2.12, 2.11]
    # lower is better: b above a on every seed by about 0.2: the claim "a beats b" holds
    assert verdict(a, [2.30, 2.33, 2.30], "lower") == "holds"
    # the other way round it is contradicted
    assert verdict([2.30, 2.33, 2.30], a, "lower") == "contradicted"
    # higher is better flips both
    assert verdict(a, [2.30, 2.33, 2.30], "higher") == "contradicted"
    # a gap of 0.05 on average whose seeds disagree in sign: within noise
    assert verdict(a, [2.30, 2.05, 2.04], "lower") == "within noise"
    # one seed: no interval, so no verdict beyond noise however large the gap
    assert verdict([2.0], [3.0], "lower") == "within noise"


def test_paired_differences_clear_noise_that_unpaired_spreads_would_not():
    # both strategies move together with the seed; a is 0.02 better on every one
    b = [2.30, 2.50, 2.40]
    a = [x - 0.02 for x in b]
    assert verdict(a, b, "lower") == "holds"
    low, high = t_interval(a)
    assert low < np.mean(b) < high  # the means' own intervals overlap


def test_bad_input_is_refused():
    with pytest.raises(InvalidValueError, match="one figure per seed for both; got 2 and 3"):
        verdict([1.0, 2.0], [1.0, 2.0, 3.0], "lower")
    with pytest.raises(InvalidValueError, match="better must be one of lower, higher; got 'less'"):
        verdict([1.0], [2.0], "less")


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 10, 29, 101])
@pytest.mark.parametrize("t", [0.0, 0.3, 1.0, 2.5, 4.3027, 12.0, 150.0, -3.0])
def test_two_sided_tails_are_scipys(t, df):
    assert t_two_sided(t, df) == pytest.approx(2 * stats.t.sf(abs(t), df), abs=TAIL_TOL)


@pytest.mark.parametrize("df", [1, 2, 3, 7, 40])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.975, 0.995])
def test_quantiles_at_any_level_are_scipys(level, df):
    assert t_quantile_at(level, df) == pytest.approx(stats.t.ppf(level, df), abs=BISECTION_TOL)


def test_paired_p_is_scipys_paired_t_test():
    a, b = [2.10, 2.25, 2.12, 2.20], [2.31, 2.30, 2.40, 2.29]
    gains = [y - x for x, y in zip(a, b, strict=True)]
    assert paired_p(gains) == pytest.approx(stats.ttest_rel(a, b).pvalue, abs=TAIL_TOL)
    # p below 0.05 exactly where the 95% interval of the gains excludes 0 (the single-claim verdict)
    for g in ([0.2, 0.21, 0.19], [0.05, -0.01, 0.03], [0.3, 0.01, 0.2]):
        low, high = t_interval(g)
        assert (paired_p(g) < 0.05) == (low > 0 or high < 0)
    assert paired_p([0.1]) == 1.0 and paired_p([0.0, 0.0]) == 1.0 and paired_p([0.2, 0.2, 0.2]) == 0.0


def test_holm_worked_by_hand():
    # m = 4: sorted 0.001 (×4 = 0.004), 0.012 (×3 = 0.036), 0.02 (×2 = 0.04), 0.3 (×1 = 0.3)
    assert holm([0.02, 0.3, 0.001, 0.012]) == pytest.approx([0.04, 0.3, 0.004, 0.036])
    # a step-down: 0.01 (×3 = 0.03) holds at 5%; 0.03 (×2 = 0.06) fails, and so does 0.04 after it
    # though 1 × 0.04 alone is below 0.05: an adjusted p is never below the one before it
    assert holm([0.04, 0.01, 0.03]) == pytest.approx([0.06, 0.03, 0.06])
    assert holm([1.0, 0.9]) == [1.0, 1.0] and holm([]) == []
    with pytest.raises(InvalidValueError, match="p values lie in"):
        holm([0.5, 1.5])


def _holm_oracle(p):
    """statsmodels' multipletests(method="holm") where installed, else Holm's rule by hand on numpy."""
    try:
        from statsmodels.stats.multitest import multipletests
    except ImportError:
        p = np.asarray(p)
        order = np.argsort(p)
        scaled = np.minimum(1.0, (len(p) - np.arange(len(p))) * p[order])
        out = np.empty(len(p))
        out[order] = np.maximum.accumulate(scaled)
        return out
    return multipletests(p, alpha=0.05, method="holm")[1]


def test_holm_equals_the_oracle_on_paired_t_tests_of_random_families():
    rng = np.random.default_rng(0)
    gains = rng.normal(rng.normal(0, 0.05, size=(60, 1)), 0.03, size=(60, 3))  # 60 claims, 3 seeds each
    p = [stats.ttest_1samp(g, 0.0).pvalue for g in gains]
    assert [paired_p(list(g)) for g in gains] == pytest.approx(p, abs=TAIL_TOL)
    assert holm(p) == pytest.approx(list(_holm_oracle(p)), abs=1e-12)
    judged = family_verdicts([list(g) for g in gains])
    expected = ["within noise" if q >= 0.05 else "holds" if g.mean() > 0 else "contradicted"
                for g, q in zip(gains, _holm_oracle(p), strict=True)]  # fmt: skip
    assert [v for v, _, _ in judged] == expected
    assert "within noise" in expected and len(set(expected)) > 1  # some beyond noise: the test tells them apart


def test_a_family_asks_more_than_each_claim_alone():
    # each claim alone holds at 95% (p ≈ 0.01), but among 20 such claims Holm's smallest bar is 0.05/20
    claim = [0.10, 0.12, 0.11]
    assert verdict([0.0] * 3, [-g for g in claim], "higher") == "holds"
    judged = family_verdicts([claim] * 20)
    assert {v for v, _, _ in judged} == {"within noise"} and judged[0][2] == pytest.approx(20 * judged[0][1])


def test_a_tolerance_is_judged_by_the_one_sided_upper_bound():
    diff = [0.05, -0.06, 0.06]  # mean +0.017, spread ±0.06: the hashed table's kind of result
    assert upper_bound(diff) == pytest.approx(
        np.mean(diff) + stats.t.ppf(0.95, 2) * np.std(diff, ddof=1) / np.sqrt(3), abs=BISECTION_TOL
    )
    assert upper_bound(diff) > 0.02  # within noise of 0, yet the tolerance +0.02 is not established
    assert upper_bound([-0.30, -0.33, -0.32]) < 0.02 and upper_bound([0.1]) is None
