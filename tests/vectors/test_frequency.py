"""Frequency bands: every row in exactly one band, the floors checked, and the two-band split of
the tokenizer statistics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from embedlab.errors import InvalidValueError
from embedlab.vectors.frequency import BANDS, band, band_rows, frequency_bands


@given(st.lists(st.integers(0, 300_000), max_size=50))
def test_every_row_in_exactly_one_band_named_by_band(counts):
    rows = band_rows(counts)
    assert sorted(np.concatenate(rows).tolist()) == list(range(len(counts)))
    for (_, name), members in zip(BANDS, rows, strict=True):
        assert all(band(counts[i]) == name for i in members)


def test_bands_by_hand():
    counts = [100_000, 99_999, 10_000, 1_000, 999, 100, 99, 0]
    assert [r.tolist() for r in band_rows(counts)] == [[0], [1, 2], [3], [4, 5], [6, 7]]
    assert [band(c) for c in (100_000, 99_999, 100, 99, 0)] == ["very frequent", "frequent", "uncommon", "rare", "rare"]
    split = frequency_bands(counts, threshold=1_000)
    assert (split.well_trained, split.rare, split.rare_share) == ([0, 1, 2, 3], [4, 5, 6, 7], 0.5)


@pytest.mark.parametrize(
    ("bands", "counts", "message"),
    [
        (((5, "a"), (1, "b")), [1], r"band floors must decrease strictly and end at 0; got \[5, 1\]"),
        (((5, "a"), (5, "b"), (0, "c")), [1], "band floors must decrease strictly"),
        ((), [1], r"got \[\]"),
        (((-1, "a"),), [1], "band floor must be >= 0; got -1"),
        (BANDS, [1.5, 2.0], "counts must be a 1-D array of integers; got float64"),
        (BANDS, [[1, 2]], r"counts must be a 1-D array of integers; got int64 \(1, 2\)"),
    ],
)
def test_bad_bands_and_counts(bands, counts, message):
    with pytest.raises(InvalidValueError, match=message):
        band_rows(counts, bands)


def test_frequency_bands_threshold_checked():
    with pytest.raises(InvalidValueError, match="threshold must be >= 1; got 0"):
        frequency_bands([1, 2], 0)
