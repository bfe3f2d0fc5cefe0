"""The cluster table: its keys name their clusters, its rows sit around their cluster's centre, the
sizes follow 1 / rank, the same seed writes the same table, and it is written chunk by chunk."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.data import clusters as clusters_module
from embedlab.data.clusters import NAMES, cluster_of, write_clusters
from embedlab.errors import InvalidValueError
from embedlab.vectors import Vectors


def test_keys_name_their_clusters_and_rows_sit_around_the_centres(tmp_path, monkeypatch):
    monkeypatch.setattr(clusters_module, "CHUNK", 700)  # several chunks, the last one short
    table = Vectors.load(write_clusters(tmp_path / "c.npy", 3000, dim=20, clusters=5, seed=1))
    assert (len(table), table.vector_size) == (3000, 20)
    names = [cluster_of(key) for key in table.index_to_key]
    assert set(names) <= set(NAMES[:5]) and table.index_to_key[2999].endswith("-2999")
    for name in set(names):
        rows = table.vectors[[n == name for n in names]]
        # each row is its centre + N(0, I): within a cluster the spread per column is 1
        assert abs(rows.std(axis=0).mean() - 1.0) < 0.1
    sizes = np.array([names.count(n) for n in NAMES[:5]])
    expected = 3000 / np.arange(1, 6) / (1 / np.arange(1, 6)).sum()
    assert np.all(np.abs(sizes - expected) < 5 * np.sqrt(expected))  # binomial, five sigma


def test_the_same_seed_writes_the_same_table(tmp_path):
    a = np.load(write_clusters(tmp_path / "a.npy", 500, dim=4, seed=3))
    b = np.load(write_clusters(tmp_path / "b.npy", 500, dim=4, seed=3))
    c = np.load(write_clusters(tmp_path / "c.npy", 500, dim=4, seed=4))
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_bad_sizes_are_refused(tmp_path):
    with pytest.raises(InvalidValueError, match="clusters"):
        write_clusters(tmp_path / "c.npy", 10, clusters=len(NAMES) + 1)
    with pytest.raises(InvalidValueError, match=".npy"):
        write_clusters(tmp_path / "c.txt", 10)
