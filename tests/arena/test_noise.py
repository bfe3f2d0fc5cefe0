"""Seed noise (arena/noise.py): Student t's quantiles and intervals against scipy, and the verdict on
an ordering claim for constructed figures (never the race's own numbers)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from embedlab.arena.noise import t_interval, t_quantile, verdict
from embedlab.errors import InvalidValueError

QUANTILE_TOL = 1e-4  # the table holds 4 places; the expansion past 30 degrees is closer still


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
