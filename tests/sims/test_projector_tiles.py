"""The tiled projector's library side: a map built in a child process with its progress told, tiles
that hold every row once with its rank in the byte layout the page reads, a changed table's old tiles refused,
search counted over every key, and neighbours found in the table's own space."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
import regex

from embedlab.data.clusters import write_clusters
from embedlab.errors import FileChangedError, InvalidValueError, MissingDataError, UnknownNameError
from embedlab.sims.projector_tiles import MAX_HITS, Building, TiledMaps, TileManifest
from embedlab.vectors import Vectors
from embedlab.vectors.tiles import priority_order

BUILD_S = 300  # a child process imports the library and compiles the overlay's kernels on a cold cache


def ready(maps: TiledMaps, method: str = "pca") -> TileManifest:
    """The manifest once the child process has built the map."""
    deadline = time.monotonic() + BUILD_S
    while isinstance(answer := maps.manifest(method), Building):
        assert time.monotonic() < deadline, f"the map was still building: {answer}"
        time.sleep(0.2)
    return answer


def decode(tile) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A tile's body as the page reads it: (n, 2) float32 points, (n,) uint32 rows, (n,) values, (n,)
    uint32 ranks."""
    n, body = tile.rows, tile.body
    points = np.frombuffer(body, "<f4", 2 * n).reshape(n, 2)
    rows = np.frombuffer(body, "<u4", n, offset=8 * n)
    values = np.frombuffer(body, np.dtype(tile.value_dtype).newbyteorder("<"), n, offset=12 * n)
    ranks = np.frombuffer(body, "<u4", n, offset=12 * n + n * values.itemsize)
    assert len(body) == 16 * n + n * values.itemsize
    return points, rows, values, ranks


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return write_clusters(tmp_path_factory.mktemp("tiles") / "clusters.npy", 6000, dim=12, clusters=6, seed=2)


@pytest.fixture(scope="module")
def maps(table):
    return TiledMaps("clusters", table)


def test_the_map_is_built_in_a_child_and_its_progress_told(table):
    maps = TiledMaps("clusters", table)
    first = maps.manifest("pca")
    assert isinstance(first, Building) and (first.state, first.table, first.method) == ("building", "clusters", "pca")
    manifest = ready(maps)
    assert (manifest.rows, manifest.dim, manifest.root_rows, manifest.schemes) == (6000, 12, 1000, ("theme", "norm"))
    assert sum(manifest.tiles.values()) == 6000 and manifest.tiles["0/0/0"] == 1000
    assert list(manifest.levels) == sorted(manifest.levels) and manifest.caption.startswith("PCA")
    assert (table.parent / "clusters.npy.tiles" / "pca" / "manifest.json").exists()  # kept beside the table


def test_tiles_hold_every_row_once_with_its_point_and_colour(maps, table):
    manifest = ready(maps)
    coords = np.load(table.parent / "clusters.npy.tiles" / "pca" / "coords.npy")
    norms = np.linalg.norm(np.load(table), axis=1)
    rank_of = np.empty(6000, np.int64)
    rank_of[priority_order(6000, maps.seed)] = np.arange(6000)  # the priority rank of each row
    seen = []
    for tile in manifest.tiles:
        points, rows, values, ranks = decode(maps.tile("pca", manifest.build, tile, "norm"))
        assert np.array_equal(points, coords[rows]) and np.allclose(values, norms[rows], rtol=1e-6)
        assert np.array_equal(ranks, rank_of[rows]) and np.all(np.diff(ranks.astype(np.int64)) > 0)
        seen.append(rows)
    assert np.array_equal(np.sort(np.concatenate(seen)), np.arange(6000))
    _, _, theme, _ = decode(maps.tile("pca", manifest.build, "0/0/0", "theme"))
    assert theme.dtype == np.uint8 and not theme.any()  # no cluster name is a themed word


def test_bad_tile_requests_name_what_is_wrong(maps):
    manifest = ready(maps)
    with pytest.raises(UnknownNameError, match="not in the tree"):
        maps.tile("pca", manifest.build, f"{manifest.depth + 1}/0/0", "theme")
    with pytest.raises(FileChangedError, match="changed since"):
        maps.tile("pca", "an-old-build", "0/0/0", "theme")
    with pytest.raises(InvalidValueError, match="scheme"):
        maps.tile("pca", manifest.build, "0/0/0", "band")  # the table has no counts
    with pytest.raises(MissingDataError, match="compared table"):
        maps.tile("pca", manifest.build, "0/0/0", "moved")


def test_search_counts_every_key(maps, table):
    ready(maps)
    keys = Vectors.load(table).index_to_key
    for pattern, is_regex in [("amber-1", False), ("^b.*7$", True), ("-(12|34)", True), ("nothing", False)]:
        hits = maps.search("pca", pattern, regex=is_regex, limit=50)
        found = [i for i, k in enumerate(keys) if (regex.search(pattern, k) if is_regex else pattern in k)]
        assert hits.count == len(found) and list(hits.rows) == found[:50] and hits.shown == min(50, len(found))
        assert list(hits.keys) == [keys[i] for i in hits.rows]
    with pytest.raises(InvalidValueError, match="does not compile"):
        maps.search("pca", "(unclosed", regex=True)
    with pytest.raises(InvalidValueError, match="limit"):
        maps.search("pca", "a", limit=MAX_HITS + 1)


def test_neighbours_are_found_in_the_tables_own_space(maps, table):
    ready(maps)
    vectors = Vectors.load(table)
    reach = maps.neighbours("pca", row=17, k=8)
    expected = vectors.most_similar(vectors.index_to_key[17], topn=8)
    assert [n.key for n in reach.neighbours] == list(expected.keys)
    assert np.allclose([n.cosine for n in reach.neighbours], expected.scores, atol=1e-6)
    coords = np.load(table.parent / "clusters.npy.tiles" / "pca" / "coords.npy")
    offset = coords - coords[17]
    distance = np.einsum("ij,ij->i", offset, offset)  # squared, as the server ranks them
    distance[17] = np.inf
    for n in reach.neighbours:
        assert n.map_rank == 1 + np.count_nonzero(distance < distance[n.row]) and n.point == tuple(coords[n.row])
    assert reach.kept == len({n.row for n in reach.neighbours} & set(np.argsort(distance)[:8].tolist()))
    with pytest.raises(InvalidValueError, match="row"):
        maps.neighbours("pca", row=6000)


def test_a_changed_table_is_mapped_again(tmp_path):
    path = write_clusters(tmp_path / "t.npy", 2000, dim=8, seed=0)
    maps = TiledMaps("t", path)
    old = ready(maps)
    stamp = path.stat().st_mtime_ns
    write_clusters(path, 2500, dim=8, seed=1)
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))  # a coarse clock must still see the change
    with pytest.raises(FileChangedError):
        maps.tile("pca", old.build, "0/0/0", "theme")
    assert isinstance(maps.manifest("pca"), Building)  # built again, in the background
    assert ready(maps).rows == 2500


def test_a_table_too_small_for_its_layout_is_told_so(tmp_path):
    path = tmp_path / "tiny.npy"
    np.save(path, np.eye(3, dtype=np.float32))
    path.with_suffix(".vocab.json").write_text('{"keys": ["a", "b", "c"], "counts": null}')
    maps = TiledMaps("tiny", path)
    with pytest.raises(InvalidValueError, match="rows"):
        ready(maps)


def test_a_failed_build_is_forgotten_when_the_table_changes(tmp_path):
    path = tmp_path / "grows.npy"
    np.save(path, np.eye(3, dtype=np.float32))
    path.with_suffix(".vocab.json").write_text('{"keys": ["a", "b", "c"], "counts": null}')
    maps = TiledMaps("grows", path)
    with pytest.raises(InvalidValueError, match="rows"):
        ready(maps)
    stamp = path.stat().st_mtime_ns
    write_clusters(path, 2000, dim=4)
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))
    assert ready(maps).rows == 2000  # built for the table as it is now, not the old failure raised again
