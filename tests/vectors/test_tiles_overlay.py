"""The tiles' overlay: marching squares on known surfaces, contour levels that enclose the shares they
promise and mean the same density at every depth, terms read from keys as a Python oracle reads
them, and regions labelled by the names of the clusters they hold."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.errors import InvalidValueError
from embedlab.vectors.tiles import build_tiles, parse_tile, priority_order
from embedlab.vectors.tiles_overlay import ENCLOSED, GRID, contour_levels, contour_lines, key_terms, smooth

FNV_OFFSET, FNV_PRIME = 14695981039346656037, 1099511628211


def _keys(keys):
    data = [k.encode() + b"\n" for k in keys]
    idx = np.zeros(len(keys) + 1, np.int64)
    np.cumsum([len(d) for d in data], out=idx[1:])
    return np.frombuffer(b"".join(data), np.uint8), idx


def _terms(key: str) -> set[bytes]:
    """The oracle: a key's terms by the rule in words (tiles_kernels), written with bytes methods."""
    data = key.encode().replace("Ġ".encode(), b" ").replace("▁".encode(), b" ")
    runs = bytes(b if (b >= 0x80 or chr(b).isascii() and chr(b).isalpha()) else 32 for b in data).split()
    # characters: bytes that do not continue a UTF-8 sequence
    return {run.lower() for run in runs if sum((b & 0xC0) != 0x80 for b in run) >= 2}


def _fnv(data: bytes) -> int:
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) % 2**64
    return h


def _inside(points, line):
    """Which of points (N, 2) the closed polygon line (x0, y0, x1, y1, ...) holds (even-odd rule)."""
    poly = np.asarray(line).reshape(-1, 2)
    a, b = poly[:-1], poly[1:]  # (S, 2) edges
    x, y = points[:, :1], points[:, 1:]  # (N, 1)
    crosses = (a[:, 1] > y) != (b[:, 1] > y)
    at = a[:, 0] + (y - a[:, 1]) * (b[:, 0] - a[:, 0]) / np.where(b[:, 1] == a[:, 1], 1, b[:, 1] - a[:, 1])
    return (np.sum(crosses & (x < at), axis=1) % 2).astype(bool)


def test_marching_squares_draws_a_closed_circle_round_a_bump():
    i, j = np.indices((41, 41))
    sigma = 6.0
    bump = np.exp(-((i - 20.0) ** 2 + (j - 20.0) ** 2) / (2 * sigma**2))
    (line,) = contour_lines(bump, 0.5)
    assert np.array_equal(line[0], line[-1]) and len(line) > 20  # one loop, closed
    radius = np.hypot(line[:, 0] - 20, line[:, 1] - 20)
    # exp(-r²/2σ²) = 1/2 at r = σ √(2 ln 2); linear interpolation across a cell errs by < 0.05 cell here
    assert np.allclose(radius, sigma * np.sqrt(2 * np.log(2)), atol=0.05)
    assert contour_lines(bump, 2.0) == []  # a level nothing reaches draws nothing


def test_marching_squares_decides_a_saddle_by_its_centre():
    saddle = np.array([[1.0, 0.0], [0.0, 1.0]])  # corners (0, 0) and (1, 1) high; the centre is 0.5

    def ends(level):
        return sorted(sorted(map(tuple, np.round(line, 9).tolist())) for line in contour_lines(saddle, level))

    # at 0.5 the centre counts as high: the high corners are joined, the low ones cut off
    assert ends(0.5) == [[(0.0, 0.5), (0.5, 1.0)], [(0.5, 0.0), (1.0, 0.5)]]
    # at 0.6 it is low: the high corners are cut off, each by its own line
    assert ends(0.6) == [[(0.0, 0.4), (0.4, 0.0)], [(0.6, 1.0), (1.0, 0.6)]]


def test_levels_enclose_their_shares_and_do_not_depend_on_scale():
    rng = np.random.default_rng(0)
    density = smooth(np.histogram2d(*rng.normal(size=(2, 50_000)), bins=64, range=[[-4, 4], [-4, 4]])[0])
    levels = contour_levels(density)
    assert list(levels) == sorted(levels)  # the outermost (90%) contour has the lowest level
    for share, level in zip(ENCLOSED, levels, strict=True):
        held = density[density >= level].sum() / density.sum()
        assert share <= held <= share + 0.01  # the cell that crosses the share is one of 4,096
    assert contour_levels(density * 100) == pytest.approx([100 * level for level in levels])


@pytest.fixture(scope="module")
def blob(tmp_path_factory):
    """One round Gaussian blob of 20,000 rows in 3-D (its third axis thin), tiles of 4,000."""
    rng = np.random.default_rng(1)
    rows = (rng.normal(size=(20_000, 3)) * [1.0, 1.0, 0.01]).astype(np.float32)
    folder = tmp_path_factory.mktemp("blob")
    return build_tiles(rows, None, None, None, folder, capacity=4_000), rows


def test_the_half_contour_holds_half_the_rows(blob):
    tree, _ = blob
    levels = tree.manifest["levels"]
    root = tree.overlay("0/0/0")
    assert [c["level"] for c in root["contours"]] == levels and root["tile"] == "0/0/0"
    points = np.asarray(tree.points)
    for share, contour in zip(ENCLOSED, root["contours"], strict=True):
        (line,) = contour["lines"]  # one blob: one closed loop a level
        assert line[:2] == line[-2:]
        held = _inside(points, line).mean()
        # the level is picked on smoothed cells of 1/64 the map: a ring of cells at the edge holds ~3%
        assert abs(held - share) < 0.03, (share, held)


def test_a_level_means_one_density_at_every_depth(blob):
    tree, _ = blob
    levels = tree.manifest["levels"]
    assert tree.depth >= 1
    cell = (tree.bounds[2] - tree.bounds[0]) / GRID
    # the blob's peak density: about 20,000 / (2π) rows per unit area; the top level lies below it
    assert levels[-1] < 20_000 / (2 * np.pi) < 2 * levels[-1]
    for name in tree.tiles:
        z, _, _ = parse_tile(name)
        overlay = tree.overlay(name)
        x0, y0, x1, y1 = tree.box(name)
        margin = cell / 2**z  # lines reach half a cell past the box, to meet the next tile's
        for contour in overlay["contours"]:
            for line in contour["lines"]:
                xy = np.asarray(line).reshape(-1, 2)
                assert np.all((xy >= (x0 - margin, y0 - margin)) & (xy <= (x1 + margin, y1 + margin)))
        if z == 1:  # the 50% contour crosses each quarter's tile where the root's does
            inner = overlay["contours"][2]["lines"]
            assert inner, name
            radius = np.hypot(*np.concatenate([np.reshape(line, (-1, 2)) for line in inner]).T)
            assert abs(np.median(radius) - np.sqrt(2 * np.log(2))) < 0.1


def test_terms_are_runs_of_letters_lower_cased_hashed_as_fnv1a_64():
    keys = ["ĠNew", "new york", "##ing", "▁Köln_Straße", "x2y a", "Ġ", "naïve-NAÏVE", "日本語", "", "AB##ab"]
    blob, idx = _keys(keys)
    offsets, terms, df, hashes = key_terms(blob, idx)
    for k, key in enumerate(keys):
        ids = terms[offsets[k] : offsets[k + 1]]
        assert {int(hashes[t]) for t in ids[ids >= 0]} == {_fnv(term) for term in _terms(key)}, key
    new = int(np.flatnonzero(hashes == _fnv(b"new"))[0])
    assert df[new] == 2  # "ĠNew" and "new york"; "naïve" twice in one key counts once
    assert df[int(np.flatnonzero(hashes == _fnv("naïve".encode()))[0])] == 1
    assert df[int(np.flatnonzero(hashes == _fnv(b"ab"))[0])] == 1
    bad = idx.copy()
    bad[3] = bad[2] - 1
    with pytest.raises(InvalidValueError, match="keys.idx must hold increasing offsets"):
        key_terms(blob, bad)


NAMES = ("amber", "basalt", "cobalt", "dune", "ember")


@pytest.fixture(scope="module")
def named(tmp_path_factory):
    """Five well-apart clusters of 2,000 rows in 12-D, keys '<cluster name>-<i>'."""
    rng = np.random.default_rng(2)
    centres = rng.normal(size=(5, 12)) * 12
    label = rng.permutation(np.repeat(np.arange(5), 2_000))
    rows = (centres[label] + rng.normal(size=(10_000, 12))).astype(np.float32)
    blob, idx = _keys([f"{NAMES[c]}-{i}" for i, c in enumerate(label)])
    folder = tmp_path_factory.mktemp("named")
    return build_tiles(rows, blob, idx, None, folder, capacity=3_000), label


def test_each_cluster_is_labelled_by_its_name_at_its_centre(named):
    tree, label = named
    labels = tree.overlay("0/0/0")["labels"]
    spots = np.array([[spot["x"], spot["y"]] for spot in labels])
    points = np.asarray(tree.points)
    for c, name in enumerate(NAMES):
        centre = points[label == c].mean(axis=0)
        nearest = labels[int(np.linalg.norm(spots - centre, axis=1).argmin())]
        assert nearest["text"] == name
        assert 0.5 * 2_000 < nearest["rows"] <= 2_000  # the region is most of its cluster, and only it
    for name in tree.tiles:  # deeper, each tile names only what it holds, each name once
        x0, y0, x1, y1 = tree.box(name)
        texts = [spot["text"] for spot in tree.overlay(name)["labels"]]
        assert len(texts) == len(set(texts))
        for spot in tree.overlay(name)["labels"]:
            assert spot["text"] in NAMES and x0 <= spot["x"] <= x1 and y0 <= spot["y"] <= y1


def test_a_word_tables_region_is_named_by_its_most_frequent_word(tmp_path):
    rng, V = np.random.default_rng(3), 3_000
    rows = rng.normal(size=(V, 4)).astype(np.float32)  # one blob: one region at the root
    words = ["".join(chr(97 + i // 26**k % 26) for k in range(3)) for i in range(V)]  # each key its own term
    middle, outlier = np.argsort(np.linalg.norm(rows - rows.mean(axis=0), axis=1))[[0, -1]]
    counts = rng.permutation(V) + 1
    counts[middle], counts[outlier] = 2 * V, 3 * V  # the outlier is in no dense region
    blob, idx = _keys(words)
    tree = build_tiles(rows, blob, idx, counts, tmp_path / "counted")
    (spot,) = tree.overlay("0/0/0")["labels"]
    assert spot["text"] == words[middle]  # every term's score ties: the region's largest count wins
    # without counts, the region's row of lowest priority: the first in priority order inside the
    # outermost contour's main loop (the region: the cells above that level joined to the maximum)
    plain = build_tiles(rows, blob, idx, None, tmp_path / "plain")
    (other,) = plain.overlay("0/0/0")["labels"]
    ring = max(plain.overlay("0/0/0")["contours"][0]["lines"], key=len)
    order = priority_order(V, 0)
    first = order[_inside(np.asarray(plain.points)[order], ring)][0]
    assert other["text"] == words[first] and other["rows"] == spot["rows"]
