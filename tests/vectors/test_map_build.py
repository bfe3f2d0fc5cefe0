"""build_map: every stage from the table file to a complete map, once; a second builder of the same
folder refused while the first holds it; a changed table's old map forgotten before it is built again."""

from __future__ import annotations

import fcntl
import os

import numpy as np
import pytest

from embedlab.data.clusters import write_clusters
from embedlab.errors import BusyError
from embedlab.vectors.map_build import MapFiles, build_map, is_built
from embedlab.vectors.map_source import open_map_source, tiles_root


def test_a_map_is_built_once_and_opened_for_serving(tmp_path):
    path = write_clusters(tmp_path / "t.npy", 3000, dim=6, clusters=3)
    folder = build_map(path)
    source = open_map_source(path)
    assert folder == tiles_root(source) / "pca" and is_built(source, "pca") and not is_built(source, "umap")
    stamp = (folder / "manifest.json").stat().st_mtime_ns
    assert build_map(path) == folder and (folder / "manifest.json").stat().st_mtime_ns == stamp  # not built again
    files = MapFiles.open(source)
    assert files.fingerprint == source.fingerprint and len(files.keys) == 3000
    assert sum(files.layout("pca").tiles.values()) == 3000


def test_a_second_builder_of_one_folder_is_refused(tmp_path):
    path = write_clusters(tmp_path / "t.npy", 500, dim=4)
    root = tiles_root(open_map_source(path))
    root.mkdir(parents=True)
    with open(root / ".lock", "a") as held:  # another process building this map
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(BusyError, match="being built by another process"):
            build_map(path)
    assert not (root / "pca").exists()  # the refused builder wrote nothing
    assert build_map(path).exists()  # once the lock is free, it builds


def test_a_changed_table_forgets_its_old_map(tmp_path):
    path = write_clusters(tmp_path / "t.npy", 2000, dim=4, seed=0)
    old = build_map(path)
    marker = old.parent / "stale-file"
    marker.write_text("of the old table")
    write_clusters(path, 1500, dim=4, seed=1)
    later = path.stat().st_mtime_ns + 10**9
    os.utime(path, ns=(later, later))  # a coarse clock must still see the change
    source = open_map_source(path)
    assert not is_built(source, "pca")
    build_map(source)
    assert not marker.exists() and is_built(source, "pca")
    assert len(np.load(old / "coords.npy")) == 1500
