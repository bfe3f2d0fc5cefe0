"""The tile tree against its contract (issue 35): every row in one tile, a root that is a random sample,
tiles that hold the lowest-priority rows of their boxes in priority order, PCA against NumPy's SVD,
a table streamed from a memory-mapped file, resumable builds and the errors of bad input."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest

from embedlab.errors import InvalidValueError, UnknownNameError
from embedlab.vectors import tiles_layout
from embedlab.vectors.tiles import (
    MAX_DEPTH,
    build_tiles,
    build_tree,
    parse_tile,
    priority_order,
    tile_box,
)
from embedlab.vectors.tiles_layout import compute_layout

FLOAT32 = 1e-4  # coordinates of a few units computed in float32 against float64: relative 1e-7, summed over D


def clusters(sizes, dim=2, spread=1.0, seed=0):
    """Rows of Gaussian clusters with the given sizes, cluster by cluster (the first rows all in the
    first cluster) -> (rows (V, dim) float32, cluster of each row (V,))."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(sizes), dim)) * 10
    label = np.repeat(np.arange(len(sizes)), sizes)
    return (centres[label] + spread * rng.normal(size=(len(label), dim))).astype(np.float32), label


def _keys(keys):
    """Keys -> keys.bin (uint8) and keys.idx (V+1,) int64, as the contract writes them."""
    data = [k.encode() + b"\n" for k in keys]
    idx = np.zeros(len(keys) + 1, np.int64)
    np.cumsum([len(d) for d in data], out=idx[1:])
    return np.frombuffer(b"".join(data), np.uint8), idx


def _tiles(tree):
    """Every tile of `tree` -> {id: (rows, points)}."""
    return {name: tree.tile(name) for name in tree.tiles}


@pytest.fixture(scope="module")
def small_tree(tmp_path_factory):
    """30,000 points in three clusters of 60/30/10%, in cluster order, cut at capacity 2,000."""
    points, label = clusters([18_000, 9_000, 3_000])
    folder = tmp_path_factory.mktemp("tree")
    np.save(folder / "coords.npy", points)
    tree = build_tree(np.load(folder / "coords.npy", mmap_mode="r"), folder, seed=3, capacity=2_000)
    return tree, points, label


def test_every_row_is_in_exactly_one_tile_and_no_tile_overflows(small_tree):
    tree, points, _ = small_tree
    found = _tiles(tree)
    every = np.concatenate([rows for rows, _ in found.values()])
    assert np.array_equal(np.sort(every), np.arange(len(points)))  # each row once
    assert tree.tiles["0/0/0"] == 1_000 and tree.depth >= 2
    assert all(n <= 2_000 for name, n in tree.tiles.items() if name != "0/0/0")
    assert sum(tree.tiles.values()) == len(points)
    for rows, xy in found.values():
        assert np.array_equal(xy, points[rows])  # the points are the rows' own


def test_the_root_is_a_random_sample_not_the_first_rows(small_tree):
    tree, _, label = small_tree
    rows, _ = tree.tile("0/0/0")
    share = np.bincount(label[rows], minlength=3) / len(rows)
    expected = np.array([0.6, 0.3, 0.1])
    # a uniform sample of 1,000: each share within 4 binomial standard deviations (the first rows: all 0)
    assert np.all(np.abs(share - expected) <= 4 * np.sqrt(expected * (1 - expected) / len(rows)))


def test_each_tile_holds_its_boxs_lowest_priority_rows_in_order(small_tree):
    tree, points, _ = small_tree
    priority = np.empty(len(points), np.int64)
    priority[priority_order(len(points), tree.seed)] = np.arange(len(points))
    found = _tiles(tree)
    side = tree.bounds[2] - tree.bounds[0]
    slack = side * 2.0**-30  # a point on a box's edge may fall either side by rounding
    for name, (rows, xy) in found.items():
        z, x, y = parse_tile(name)
        x0, y0, x1, y1 = tile_box(tree.bounds, z, x, y)
        assert tree.box(name) == (x0, y0, x1, y1)
        assert np.all((xy[:, 0] >= x0 - slack) & (xy[:, 0] <= x1 + slack))
        assert np.all((xy[:, 1] >= y0 - slack) & (xy[:, 1] <= y1 + slack))
        assert np.all(np.diff(priority[rows]) > 0)  # priority order: any prefix is a random sample
        # every row of the box held deeper has a higher priority than all this tile holds
        below = [r for other, (r, _) in found.items() if _under(other, z, x, y)]
        if below:
            assert len(rows) == (1_000 if z == 0 else tree.capacity)  # only a full tile has children
            assert priority[np.concatenate(below)].min() > priority[rows].max()


def test_ranks_are_each_rows_priority_ascending_in_a_tile_and_deeper_in_a_childs_box(small_tree):
    tree, points, _ = small_tree
    priority = np.empty(len(points), np.int64)
    priority[priority_order(len(points), tree.seed)] = np.arange(len(points))
    ranks = {name: tree.ranks(name) for name in tree.tiles}
    for name, rank in ranks.items():
        rows, _ = tree.tile(name)
        assert rank.dtype == np.uint32 and np.array_equal(rank, priority[rows])  # each row's own rank
        assert np.all(np.diff(rank.astype(np.int64)) > 0)  # ascending: rank < P is a prefix of the tile
    every = np.concatenate(list(ranks.values()))
    assert np.array_equal(np.sort(every), np.arange(len(points)))  # a permutation of 0..V-1
    for name, rank in ranks.items():
        z, x, y = parse_tile(name)
        x0, y0, x1, y1 = tree.box(name)
        for above in range(z):  # each ancestor's rows that fall in this tile's box rank before all of its own
            ancestor = f"{above}/{x >> (z - above)}/{y >> (z - above)}"
            if ancestor not in ranks:
                continue
            _, xy = tree.tile(ancestor)
            inside = (xy[:, 0] >= x0) & (xy[:, 0] < x1) & (xy[:, 1] >= y0) & (xy[:, 1] < y1)
            assert not inside.any() or ranks[ancestor][inside].max() < rank.min(), (name, ancestor)


def _under(name, z, x, y):
    oz, ox, oy = parse_tile(name)
    return oz > z and ox >> (oz - z) == x and oy >> (oz - z) == y


def test_many_identical_points_stop_at_the_deepest_level(tmp_path):
    # one point 400 times: 10 rows go to the root, 10 to one tile a level from 1 to 23, and the
    # deepest tile (24) keeps the 160 left, over its capacity, rather than splitting for ever
    points = np.full((400, 2), 3.0, np.float32)
    np.save(tmp_path / "coords.npy", points)
    tree = build_tree(points, tmp_path, root_rows=10, capacity=10)
    assert tree.depth == MAX_DEPTH
    assert [n for name, n in tree.tiles.items() if parse_tile(name)[0] == MAX_DEPTH] == [160]
    assert sorted(tree.tiles.values()) == [10] * MAX_DEPTH + [160]
    assert tree.bounds == (2.5, 2.5, 3.5, 3.5)  # a map of one point is one unit wide around it


def test_tile_ids_out_of_the_tree_and_malformed(small_tree):
    tree, _, _ = small_tree
    for bad in ("a/b", "1/0", "01/0/0", "3/9/0", "3/0/8", "-1/0/0", "25/0/0", 7):
        with pytest.raises(InvalidValueError, match="tile"):
            tree.tile(bad)
    deeper = f"{tree.depth + 1}/0/0"
    message = f"tile '{deeper}' is not in the tree: the tree goes to depth {tree.depth}"
    with pytest.raises(UnknownNameError, match=message):
        tree.tile(deeper)
    with pytest.raises(KeyError):  # a caller catching KeyError catches it too
        tree.tile(deeper)
    corner = f"{tree.depth}/{2**tree.depth - 1}/0"
    if corner not in tree.tiles:  # a box without rows has no tile
        with pytest.raises(UnknownNameError, match="holds no rows"):
            tree.tile(corner)


def test_pca_layout_is_numpys_svd_up_to_sign(tmp_path):
    rng = np.random.default_rng(0)
    rows = (rng.normal(size=(500, 16)) * np.linspace(3, 0.1, 16)).astype(np.float32)
    info = compute_layout(rows, "pca", tmp_path / "coords.npy", chunk=64)  # 8 chunks
    points = np.load(tmp_path / "coords.npy")
    centred = rows.astype(np.float64) - rows.mean(axis=0, dtype=np.float64)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    reference = u[:, :2] * s[:2]
    signs = np.sign(np.sum(points * reference, axis=0))
    np.testing.assert_allclose(points, reference * signs, atol=FLOAT32 * np.abs(reference).max())
    np.testing.assert_allclose(info.explained_variance_ratio, s[:2] ** 2 / (s**2).sum(), rtol=1e-9)
    assert (points.dtype, info.fitted_on, info.rows, info.dim) == (np.float32, 500, 500, 16)
    assert info.caption().startswith("PCA of 500 rows, centred; axes explain ")


def test_a_memory_mapped_table_is_streamed_not_copied(tmp_path):
    rows, _ = clusters([50_000, 50_000], dim=64)  # 25.6 MB of float32
    np.save(tmp_path / "table.npy", rows)
    table = np.load(tmp_path / "table.npy", mmap_mode="r")
    seen = []
    tracemalloc.start()
    try:
        compute_layout(table, "pca", tmp_path / "coords.npy", chunk=2_048, progress=lambda *a: seen.append(a))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # chunks of 2,048 rows in float64 (1 MB) and their points: a copy of the table would be 26 MB or more
    assert peak < rows.nbytes / 8, f"peak {peak:,} bytes"
    expected = compute_layout(rows, "pca", tmp_path / "in-memory.npy")
    assert np.allclose(np.load(tmp_path / "coords.npy"), np.load(tmp_path / "in-memory.npy"), atol=1e-4)
    assert seen[-1] == ("projection", 100_000, 100_000) and ("axes", 100_000, 100_000) in seen
    assert len([s for s in seen if s[0] == "axes"]) == -(-100_000 // 2_048)
    assert expected.rows == 100_000


@pytest.mark.xdist_group("umap")  # the UMAP fits share one worker: its first fit compiles or loads umap's code
@pytest.mark.filterwarnings("ignore:n_jobs value")  # umap notes that a seed makes it single-threaded
def test_umap_is_fitted_on_a_sample_and_places_every_other_row(tmp_path, monkeypatch):
    pytest.importorskip("umap")
    monkeypatch.setattr(tiles_layout, "UMAP_SAMPLE", 150)  # a sample of 150 of 600 rows keeps the test quick
    monkeypatch.setattr(tiles_layout, "UMAP_CHUNK", 100)
    rows, label = clusters([300, 300], dim=8, spread=0.5)
    seen = []
    info = compute_layout(rows, "umap", tmp_path / "coords.npy", progress=lambda *a: seen.append(a))
    points = np.load(tmp_path / "coords.npy")
    assert (info.method, info.fitted_on, info.rows) == ("umap", 150, 600) and info.explained_variance_ratio is None
    assert info.caption() == "UMAP fitted on 150 of 600 rows (a seeded sample); the other 450 placed by it"
    assert seen[-1] == ("placement", 600, 600) and ("umap fit", 1, 1) in seen
    centre = np.array([points[label == c].mean(axis=0) for c in (0, 1)])
    nearest = np.linalg.norm(points[:, None] - centre[None], axis=2).argmin(axis=1)
    assert np.mean(nearest == label) > 0.99  # placed rows land with their own cluster
    assert np.isfinite(points).all()


def test_a_table_too_small_for_its_layout_is_refused(tmp_path):
    rows, _ = clusters([2, 1], dim=5)
    for method, table, message in (
        ("pca", rows, r"a PCA map needs >= 4 rows of width >= 3; the table is \(3, 5\)"),
        ("pca", np.zeros((10, 2), np.float32), r"width >= 3; the table is \(10, 2\)"),
        ("umap", np.zeros((15, 8), np.float32), r"a UMAP map needs >= 16 rows"),
    ):
        with pytest.raises(InvalidValueError, match=message):
            build_tiles(table, None, None, None, tmp_path, method)
    with pytest.raises(InvalidValueError, match="method must be one of pca, umap"):
        build_tiles(rows, None, None, None, tmp_path, "tsne")
    table = np.ones((20, 4), np.float32)
    table[7, 2] = np.nan
    with pytest.raises(InvalidValueError, match="row 7 holds NaN"):
        build_tiles(table, None, None, None, tmp_path)
    with pytest.raises(InvalidValueError, match="keys.idx of V \\+ 1 = 21 offsets; got 5"):
        build_tiles(table, *_keys(["a"] * 4), None, tmp_path)
    assert not (tmp_path / "manifest.json").exists()


def test_a_build_resumes_at_the_stage_it_lost(tmp_path):
    rows, label = clusters([3_000, 2_000, 1_000], dim=6)
    blob, idx = _keys([f"{'abc'[c]}name-{i}" for i, c in enumerate(label)])
    first = build_tiles(rows, blob, idx, None, tmp_path, capacity=1_500)
    names = ("coords.npy", "tree-rows.npy", "tree-ranks.npy", "tree-tiles.npy", "overlay.jsonl")
    saved = {f: (tmp_path / f).read_bytes() for f in names}
    manifest = first.manifest
    assert manifest["rows"] == 6_000 and manifest["dim"] == 6 and manifest["depth"] == first.depth >= 1
    assert manifest["tiles"] == first.tiles and len(manifest["levels"]) == 4
    assert set(manifest["seconds"]) == {"layout", "tree", "overlay"}
    seen = []
    build_tiles(rows, blob, idx, None, tmp_path, capacity=1_500, progress=lambda *a: seen.append(a[0]))
    assert seen == []  # complete: nothing made again
    (tmp_path / "manifest.json").unlink()
    (tmp_path / "tree-rows.npy").unlink()
    again = build_tiles(rows, blob, idx, None, tmp_path, capacity=1_500, progress=lambda *a: seen.append(a[0]))
    assert "axes" not in seen and "projection" not in seen  # the layout was kept
    assert "tree" in seen and "overlay" in seen  # the tree was lost, and the overlay made from it again
    assert {f: (tmp_path / f).read_bytes() for f in saved} == saved
    drop = ("seconds",)
    assert {k: v for k, v in again.manifest.items() if k not in drop} == {
        k: v for k, v in json.loads(json.dumps(manifest)).items() if k not in drop
    }
    assert again.overlay("0/0/0") == first.overlay("0/0/0")
    (tmp_path / "tree-ranks.npy").unlink()  # a map built before ranks were written: complete no more
    seen.clear()
    build_tiles(rows, blob, idx, None, tmp_path, capacity=1_500, progress=lambda *a: seen.append(a[0]))
    assert "tree" in seen and "axes" not in seen and {f: (tmp_path / f).read_bytes() for f in saved} == saved
