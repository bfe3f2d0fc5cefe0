"""Update counts of a run folder: reading update_counts.npy safely, and counts vs updates by band,
with the rank correlation checked against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError
from embedlab.train.updates import UPDATE_COUNTS, read_update_counts, run_updates, updates_by_frequency
from embedlab.vectors import Vectors

RHO = 1e-12  # float64 ranks and one Pearson r, computed two ways

BANDS = ((100, "often"), (10, "sometimes"), (0, "seldom"))
COUNTS = np.array([500, 120, 40, 12, 9, 3, 1, 0])
UPDATES = np.array([900, 600, 300, 110, 70, 25, 0, 0])
KEYS = [f"w{i}" for i in range(len(COUNTS))]


def test_bands_and_correlation_by_hand():
    r = updates_by_frequency(COUNTS, UPDATES, KEYS, bands=BANDS)
    often, sometimes, seldom = r.bands
    assert (often.rows, often.mean_count, often.mean_updates) == (2, 310.0, 750.0)
    assert often.updates_per_occurrence == pytest.approx(1500 / 620)
    assert (sometimes.rows, sometimes.mean_count, sometimes.mean_updates) == (2, 26.0, 205.0)
    assert (seldom.rows, seldom.mean_updates) == (4, 95 / 4)
    assert seldom.updates_per_occurrence == pytest.approx(95 / 13)
    assert r.spearman == pytest.approx(spearmanr(COUNTS, UPDATES).statistic, abs=RHO)
    assert (r.rows, r.never_updated) == (8, 2)
    assert r.to_dict()["points"]["keys"] == KEYS  # 8 rows, fewer than the default points: all, by rank


def test_points_spread_over_frequency_ranks():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 10_000, 1000)
    r = updates_by_frequency(counts, counts * 2, [str(i) for i in range(1000)], points=11)
    sampled = [c for _, c, _ in r.points]
    ranked = np.sort(counts)[::-1]
    assert len(sampled) == 11 and sampled == ranked[np.linspace(0, 999, 11).round().astype(int)].tolist()
    assert all(u == 2 * c for _, c, u in r.points)


def test_empty_band_is_none_in_json():
    d = updates_by_frequency(np.array([1, 2]), np.array([1, 1]), ["a", "b"], bands=BANDS).to_dict()
    assert d["bands"][0] == {"name": "often", "floor": 100, "rows": 0, "mean_count": None, "mean_updates": None,
                             "updates_per_occurrence": None}  # fmt: skip


def test_argument_errors():
    with pytest.raises(InvalidValueError, match="updates must be 8 integers, one per key; got float64 \\(8,\\)"):
        updates_by_frequency(COUNTS, UPDATES.astype(float), KEYS)
    with pytest.raises(InvalidValueError, match="band floors must decrease strictly and end at 0"):
        updates_by_frequency(COUNTS, UPDATES, KEYS, bands=((5, "a"), (1, "b")))
    with pytest.raises(InvalidValueError, match="points must be >= 1; got 0"):
        updates_by_frequency(COUNTS, UPDATES, KEYS, points=0)


def _run(folder, updates, counts=COUNTS):
    folder.mkdir(exist_ok=True)
    Vectors(KEYS, np.zeros((len(KEYS), 2), np.float32), counts).save(folder / "vectors.safetensors")
    np.save(folder / UPDATE_COUNTS, updates)
    return folder


def test_read_and_run_updates(tmp_path):
    run = _run(tmp_path / "run", UPDATES)
    np.testing.assert_array_equal(read_update_counts(run), UPDATES)
    np.testing.assert_array_equal(read_update_counts(run / "vectors.safetensors"), UPDATES)  # the table file
    r = run_updates(Vectors.load(run), run, points=4)
    assert r.spearman == pytest.approx(spearmanr(COUNTS, UPDATES).statistic, abs=RHO)
    assert [k for k, _, _ in r.points] == ["w0", "w2", "w5", "w7"]  # ranks 0, 7/3, 14/3, 7 rounded


def test_what_is_missing_or_damaged_is_named(tmp_path):
    with pytest.raises(MissingDataError, match="minilm has no update_counts.npy: only folders written by `embedlab"):
        read_update_counts("minilm")
    run = _run(tmp_path / "run", UPDATES[:5])
    with pytest.raises(FileFormatError, match="5 update counts for a table of 8 rows"):
        run_updates(Vectors.load(run), run)
    np.save(run / UPDATE_COUNTS, np.array([{"a": 1}], dtype=object))  # a pickle inside .npy: never loaded
    with pytest.raises(FileFormatError, match="not a readable .npy array"):
        read_update_counts(run)
    np.save(run / UPDATE_COUNTS, np.ones((2, 4), np.int64))
    with pytest.raises(FileFormatError, match="expected \\(V,\\) integers >= 0; got int64 \\(2, 4\\)"):
        read_update_counts(run)
    (run / UPDATE_COUNTS).write_bytes(b"not numpy")
    with pytest.raises(FileFormatError, match="not a readable .npy array"):
        read_update_counts(run)
    plain = _run(tmp_path / "plain", UPDATES, counts=None)
    with pytest.raises(MissingDataError, match="has no corpus counts"):
        run_updates(Vectors.load(plain), plain)
