"""Correlations against scipy.stats on the same float64 inputs, ties included."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import stats

from embedlab.errors import InvalidValueError
from embedlab.vectors.stats import pearson, ranks, spearman, spearman_counts

# our spearman/pearson against scipy.stats on the same float64 inputs
SCIPY_TOL = 1e-12

samples = st.lists(st.tuples(st.integers(0, 4), st.floats(-1e3, 1e3, allow_nan=False)), min_size=2, max_size=40)


@given(samples)
def test_correlations_equal_scipy(pairs):
    x = [float(a) for a, _ in pairs]  # few distinct values: many ties
    y = [b for _, b in pairs]
    assume(len(set(x)) > 1 and len(set(y)) > 1)
    assume(np.std(y) > 1e-6 * max(1.0, np.abs(y).max()))  # scipy warns (and loses digits) on near-constant input
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=SCIPY_TOL)
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y).statistic, abs=SCIPY_TOL)
    assert spearman(x, x) == pytest.approx(1.0, abs=SCIPY_TOL)


@given(st.lists(st.integers(0, 5), min_size=1, max_size=30))
def test_ranks_equal_scipy(values):
    np.testing.assert_array_equal(ranks(values), stats.rankdata(values))  # "average" ties, scipy's default


def test_correlations_worked_cases():
    assert spearman([1, 2, 2, 3], [3, 3, 3, 4]) == pytest.approx(stats.spearmanr([1, 2, 2, 3], [3, 3, 3, 4])[0])
    assert ranks(np.array([10.0, 20.0, 20.0, 30.0])).tolist() == [1.0, 2.5, 2.5, 4.0]
    assert pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0, abs=SCIPY_TOL)
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3]))
    with pytest.raises(InvalidValueError, match="same length"):
        pearson([1, 2], [1, 2, 3])


@given(samples, st.integers(0, 2**32 - 1))
def test_spearman_counts_equals_spearman_of_each_resample(pairs, seed):
    # the oracle: stats.spearman on each resample written out item by item (x[idx], y[idx])
    x = np.array([float(a) for a, _ in pairs])  # few distinct values: ties within and across resamples
    y = np.array([b for _, b in pairs])
    drawn = np.random.default_rng(seed).integers(0, len(x), size=(20, len(x)))  # (R, n) resampled items
    counts = np.stack([np.bincount(row, minlength=len(x)) for row in drawn])  # (R, n)
    expected = [spearman(x[row], y[row]) for row in drawn]
    np.testing.assert_allclose(spearman_counts(x, y, counts), expected, atol=SCIPY_TOL, equal_nan=True)


def test_spearman_counts_worked_case_and_shapes():
    # a constant resample (one item drawn twice) has no rank correlation: nan, as pearson
    rho = spearman_counts([1, 2, 3], [1, 3, 2], np.array([[1, 1, 1], [2, 1, 0], [0, 2, 0]]))
    assert rho[:2].tolist() == [0.5, 1.0] and math.isnan(rho[2])
    with pytest.raises(InvalidValueError, match=r"counts \(R, n\)"):
        spearman_counts([1, 2, 3], [1, 2, 3], np.ones(3))
