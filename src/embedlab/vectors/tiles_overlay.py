"""What a map's tiles say besides their points: density contours and a label for each dense region.

    levels = build_overlay(coords, bounds, index, folder, keys=(blob, idx), counts=counts)
    OverlayFile.open(folder).read(position)     # one tile's overlay as JSON bytes, nothing else read
    contour_lines(values, level)                # marching squares: (X, Y) grid -> lines of (x, y) in cells
    key_terms(blob, idx)                        # every key's terms as ids, and how many keys hold each

Each tile's overlay covers EVERY row inside its box, not only the rows the tile holds. At depth z
the map is cut into GRID * 2**z cells a side; each tile gets its GRID x GRID counts (with HALO cells
of its neighbours' on each side), smoothed by a Gaussian of SIGMA cells and divided by a cell's area:
rows per unit of map area, comparable at every depth. Only the tiles the tree has are counted (a
dense grid at depth 12 would be 2**18 cells a side), in one compiled pass over the rows per depth.

Contours: one set of `levels` for the whole map, chosen on the root's grid so that the cells at or
above each level hold ENCLOSED of all rows (90%, 75%, 50%, 25%: ascending levels), drawn by marching
squares at every depth; the halo makes a line leave one tile where it enters the next.

Labels, as WizMap names regions: a dense region is a local maximum of a tile's density above the
lowest level, the largest within LABEL_GAP cells (at most MAX_LABELS a tile) with the cells above that level
around it (its connected part, split between maxima by distance). The region's label is the term
of largest score = (rows of the region whose key has the term) * log(V / rows of the table whose key
has it), terms as tiles_kernels reads them (runs of letters, lower-cased). Equal scores (a word
table: every key its own term) go to the term held by the row of largest corpus count, else lowest
priority; a region without terms is named by that row's key. A name appears once a tile (its
densest region's).

Files: overlay.jsonl (one JSON object a line, in tree-tiles order: {"tile", "contours": [{"level",
"lines": [[x0, y0, x1, y1, ...]]}], "labels": [{"x", "y", "text", "rows"}]}, map coordinates),
overlay-index.npy (T + 1,) int64 byte offsets of the lines, overlay.json (levels, ENCLOSED, GRID)
written last.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from embedlab.errors import InvalidValueError
from embedlab.files import FileStamp, atomic_write_text, atomic_writer
from embedlab.files.reading import read_json
from embedlab.vectors import tiles_kernels as kernels
from embedlab.vectors.tiles_layout import write_npy

GRID = 64  # cells a side of a tile's density grid (a 1,000-px view shows about 4 tiles: 8 px a cell)
SIGMA = 1.0  # the smoothing Gaussian's width, in cells: light, so contours follow the data
RADIUS = 3  # the Gaussian is cut at 3 sigma
HALO = RADIUS + 1  # neighbours' cells counted around a tile: the smoothing's reach, and one for contours
ENCLOSED = (0.9, 0.75, 0.5, 0.25)  # share of all rows at or above each level, outermost contour first
MAX_LABELS = 8  # dense regions labelled per tile at most
LABEL_GAP = 8  # cells between two labels' maxima at least
OVERLAY, OVERLAY_INDEX, OVERLAY_INFO = "overlay.jsonl", "overlay-index.npy", "overlay.json"
Progress = Callable[[str, int, int], None]
# marching squares: a cell's corners a (i, j), b (i+1, j), c (i+1, j+1), d (i, j+1) at or above the
# level give its case (bits 1, 2, 4, 8); its edges are 0 = a-b, 1 = b-c, 2 = d-c, 3 = a-d. The
# segments each case draws, as [case][centre at or above the level] -> up to two (edge, edge) pairs;
# the centre (mean of the corners) decides the saddles 5 and 10.
_CASES = {1: [(0, 3)], 2: [(0, 1)], 3: [(1, 3)], 4: [(1, 2)], 6: [(0, 2)], 7: [(2, 3)], 8: [(2, 3)],
          9: [(0, 2)], 11: [(1, 2)], 12: [(1, 3)], 13: [(0, 1)], 14: [(0, 3)]}  # fmt: skip
SEGMENTS = np.full((16, 2, 2, 2), -1, np.int64)
for _case, _pairs in _CASES.items():
    SEGMENTS[_case, :, : len(_pairs)] = _pairs
SEGMENTS[5] = [[(0, 3), (1, 2)], [(0, 1), (2, 3)]]  # a, c high: apart (low centre) or joined
SEGMENTS[10] = [[(0, 1), (2, 3)], [(0, 3), (1, 2)]]  # b, d high


def smooth(hist: np.ndarray, sigma: float = SIGMA) -> np.ndarray:
    """(..., X, Y) counts -> the same shape, float32, convolved with a Gaussian of `sigma` cells cut at
    RADIUS (separable; zero beyond the array). Mass near the array's edge leaks out: keep a margin."""
    offsets = np.arange(-RADIUS, RADIUS + 1)
    weights = np.exp(-0.5 * (offsets / sigma) ** 2)
    weights /= weights.sum()
    out = hist.astype(np.float32)
    for axis in (-2, -1):
        pad = [(0, 0)] * out.ndim
        pad[axis] = (RADIUS, RADIUS)
        padded, n = np.pad(out, pad), out.shape[axis]
        out = sum(w * np.take(padded, np.arange(k, k + n), axis=axis) for k, w in enumerate(weights))
    return out


def contour_levels(density: np.ndarray, enclosed: tuple[float, ...] = ENCLOSED) -> tuple[float, ...]:
    """(X, Y) density of the whole map -> for each share p, the highest level whose cells at or
    above it hold at least p of the total (densities weigh as counts: the cells are equal)."""
    values = np.sort(density.ravel())[::-1]
    if not values.size or values[0] <= 0:
        return tuple(0.0 for _ in enclosed)
    share = np.cumsum(values) / values.sum()
    picks = np.minimum(np.searchsorted(share, enclosed), len(values) - 1)
    return tuple(float(values[i]) for i in picks)


def contour_lines(values: np.ndarray, level: float) -> list[np.ndarray]:
    """(X, Y) values on a grid -> the lines where they cross `level`, each (n, 2) float64 positions in
    grid units ((i, j) is values[i, j]), points between grid points linearly interpolated. A closed
    loop ends where it begins; a line that meets the grid's border ends there.

    >>> bump = np.zeros((3, 3)); bump[1, 1] = 1.0
    >>> contour_lines(bump, 0.5)[0].tolist()
    [[1.0, 0.5], [0.5, 1.0], [1.0, 1.5], [1.5, 1.0], [1.0, 0.5]]
    """
    X, Y = values.shape
    high = values >= level
    case = high[:-1, :-1] * 1 | high[1:, :-1] * 2 | high[1:, 1:] * 4 | high[:-1, 1:] * 8  # (X-1, Y-1)
    centre = (values[:-1, :-1] + values[1:, :-1] + values[1:, 1:] + values[:-1, 1:]) / 4 >= level
    i, j = np.nonzero((case > 0) & (case < 15))
    pairs = SEGMENTS[case[i, j], centre[i, j].astype(int)]  # (S, 2, 2): up to two segments a cell
    horizontal = (X - 1) * Y  # edge ids: (i, j)-(i+1, j) is i * Y + j; (i, j)-(i, j+1) after those
    ids = np.stack([i * Y + j, horizontal + (i + 1) * (Y - 1) + j, i * Y + j + 1, horizontal + i * (Y - 1) + j])
    cell = np.repeat(np.arange(len(i))[:, None], 2, axis=1)  # (S, 2)
    real = pairs[:, :, 0] >= 0
    a = ids[pairs[:, :, 0][real], cell[real]]
    b = ids[pairs[:, :, 1][real], cell[real]]
    edges, starts = kernels.link_segments(a, b, horizontal + X * (Y - 1))
    across = edges < horizontal  # an edge along the first axis, else along the second
    p = np.where(across, edges // Y, (edges - horizontal) // (Y - 1))
    q = np.where(across, edges % Y, (edges - horizontal) % (Y - 1))
    v0, v1 = values[p, q], values[p + across, q + ~across]
    t = (level - v0) / (v1 - v0)  # where along the edge the level is crossed
    points = np.stack([p + across * t, q + ~across * t], axis=1)
    return [points[s:e] for s, e in zip(starts[:-1], starts[1:], strict=True)]


def key_terms(blob: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Keys as the contract's keys.bin (uint8) and keys.idx (V+1,) -> (offsets (V+1,) int64, term ids
    (offsets[-1],) int32 with -1 for none, each key's terms counted once; df (U,) int64 keys holding
    each term; hashes (U,) uint64 the terms' FNV-1a 64 hashes)."""
    blob, idx = np.asarray(blob, np.uint8), np.asarray(idx, np.int64)
    per_key = kernels.count_terms(blob, idx)
    if (per_key < 0).any() or idx[0] != 0:
        bad = int(np.argmax(per_key < 0))
        raise InvalidValueError(f"keys.idx must hold increasing offsets into keys.bin from 0; row {bad}'s are not")
    offsets = np.zeros(len(per_key) + 1, np.int64)
    np.cumsum(per_key, out=offsets[1:])
    hashed = np.empty(offsets[-1], np.uint64)
    kernels.hash_terms(blob, idx, offsets, hashed)
    hashes, terms = np.unique(hashed, return_inverse=True)
    terms = terms.astype(np.int32)  # half the memory of NumPy's int64 ids: 40 MB at 10M one-term keys
    if len(hashes) and hashes[0] == 0:  # 0 fills the slots of a key's repeated terms
        hashes, terms = hashes[1:], terms - 1
    return offsets, terms, np.bincount(terms[terms >= 0], minlength=len(hashes)), hashes


def build_overlay(
    coords: np.ndarray, bounds: tuple[float, ...], index: np.ndarray, folder: str | Path, *, order: np.ndarray,
    keys: tuple[np.ndarray, np.ndarray] | None = None, counts: np.ndarray | None = None,
    progress: Progress | None = None,
) -> tuple[float, ...]:  # fmt: skip
    """(V, 2) points, the square `bounds` and the tree's (T, 5) tiles (z, x, y, start, stop) -> the
    overlay files in `folder`; -> the contour levels (ascending). `order` (V,): the rows from lowest
    priority; `keys`: keys.bin and keys.idx (no labels without them); `counts` (V,) or None."""
    folder, points = Path(folder), np.asarray(coords, np.float32)
    V, T, report = len(points), len(index), progress or (lambda stage, done, total: None)
    rank = np.empty(V, np.int64)
    rank[order] = np.arange(V)  # each row's priority; then corpus counts first, where there are some
    if counts is not None:
        rank[np.lexsort((rank, -np.asarray(counts, np.float64)))] = np.arange(V)
    terms = key_terms(*keys) if keys is not None else None
    levels, written, offsets = None, 0, [0]
    with atomic_writer(folder / OVERLAY) as out:
        for z in range(int(index[:, 0].max()) + 1):
            tiles = index[index[:, 0] == z]
            hist = np.zeros((len(tiles), GRID + 2 * HALO, GRID + 2 * HALO), np.int32)
            codes = (tiles[:, 1] << z) + tiles[:, 2]  # sorted, as the tree's tiles are
            scale = GRID * 2**z / (bounds[2] - bounds[0])
            kernels.box_histograms(points, bounds[0], bounds[1], scale, z, GRID, HALO, codes, hist)
            density = smooth(hist) * np.float32(scale**2)  # rows per unit of map area
            if levels is None:  # the root's grid picks the levels for every depth
                levels = contour_levels(density[0, HALO:-HALO, HALO:-HALO])
            regions = np.full((len(tiles), GRID, GRID), -1, np.int32)
            peaks = [_regions(density[t, HALO:-HALO, HALO:-HALO], levels[0], regions[t]) for t in range(len(tiles))]
            labels = _labels(points, bounds, z, codes, regions, peaks, terms, rank, keys, V)
            for t, (_, x, y, _, _) in enumerate(tiles.tolist()):
                line = _tile_json(f"{z}/{x}/{y}", density[t], levels, peaks[t], labels[t], bounds, z, x, y)
                offsets.append(offsets[-1] + out.write(line.encode()))
                written += 1
                report("overlay", written, T)
    write_npy(folder / OVERLAY_INDEX, (T + 1,), np.int64, [np.array(offsets, np.int64)])
    info = {"levels": levels, "enclosed": ENCLOSED, "grid": GRID, "sigma": SIGMA, "labelled": keys is not None}
    atomic_write_text(folder / OVERLAY_INFO, json.dumps(info))
    return levels


def _regions(density: np.ndarray, floor: float, regions: np.ndarray) -> list[tuple[int, int, float]]:
    """A tile's (GRID, GRID) density -> its labelled maxima [(i, j, density)], densest first, and
    `regions` (GRID, GRID) filled in place: the maximum (0, 1, ...) each cell above `floor` belongs to."""
    # a maximum of its whole LABEL_GAP neighbourhood: a bump of noise on a cluster's slope is not one
    around = np.pad(density, LABEL_GAP, constant_values=-np.inf)
    for axis in (0, 1):
        around = sliding_window_view(around, 2 * LABEL_GAP + 1, axis=axis).max(axis=-1)
    i, j = np.nonzero((density >= around) & (density >= floor) & (density > 0))
    kept: list[tuple[int, int, float]] = []
    for k in np.argsort(-density[i, j], kind="stable"):
        if len(kept) < MAX_LABELS and all((i[k] - a) ** 2 + (j[k] - b) ** 2 >= LABEL_GAP**2 for a, b, _ in kept):
            kept.append((int(i[k]), int(j[k]), float(density[i[k], j[k]])))
    if kept:
        part = kernels.components(density >= floor)  # (GRID, GRID) connected part of each cell, or -1
        ci, cj = np.indices(density.shape)
        apart = np.stack([(ci - a) ** 2 + (cj - b) ** 2 + np.where(part == part[a, b], 0, np.inf) for a, b, _ in kept])
        nearest = apart.argmin(axis=0)
        regions[:] = np.where((part >= 0) & np.isfinite(apart.min(axis=0)), nearest, -1)
    return kept


def _labels(points, bounds, z, codes, regions, peaks, terms, rank, keys, V) -> list[list[tuple[str, int]]]:
    """Each tile's regions at depth z -> [(text, rows)] per peak: every row's region found in one
    pass, each region's best term (tiles_kernels.best_terms)."""
    first = np.cumsum([0] + [len(p) for p in peaks])  # tile t's regions are first[t] + 0, 1, ...
    if terms is None or not first[-1]:
        return [[("", 0)] * len(p) for p in peaks]
    scale = GRID * 2**z / (bounds[2] - bounds[0])
    where = np.full(V, -1, np.int32)
    numbered = np.where(regions >= 0, regions + first[:-1, None, None], -1).astype(np.int32)
    kernels.box_regions(points, bounds[0], bounds[1], scale, z, GRID, codes, numbered, where)
    starts, inside = kernels.group_rows(where, first[-1])
    offsets, ids, df, hashes = terms
    idf = np.log(V / np.maximum(df, 1))
    count, best = np.zeros(len(df), np.int64), np.full(len(df), -1, np.int64)
    term, row, rep = kernels.best_terms(starts, inside, offsets, ids, idf, rank, count, best)
    blob, idx = keys
    texts = []
    for r in range(first[-1]):
        if term[r] >= 0:
            a, b = kernels.term_span(blob, idx[row[r]], idx[row[r] + 1] - 1, hashes[term[r]])
        else:  # no term: the region's representative row's whole key
            a, b = (idx[rep[r]], idx[rep[r] + 1] - 1) if rep[r] >= 0 else (0, 0)
        text = bytes(blob[a:b])
        texts.append((text.lower() if term[r] >= 0 else text).decode("utf-8", "replace"))
    n = np.diff(starts)
    return [[(texts[r], int(n[r])) for r in range(first[t], first[t + 1])] for t in range(len(peaks))]


def _tile_json(name, density, levels, peaks, labels, bounds, z, x, y) -> str:
    """One tile's overlay as a JSON line, in map coordinates rounded to 1/100 of a cell."""
    cell = (bounds[2] - bounds[0]) / 2**z / GRID
    x0, y0 = bounds[0] + x * GRID * cell, bounds[1] + y * GRID * cell
    digits = max(0, math.ceil(-math.log10(cell / 100)))
    grid = density[HALO - 1 : HALO + GRID + 1, HALO - 1 : HALO + GRID + 1]  # one halo cell each side
    contours = []
    for level in levels:
        lines = [np.round((line - 0.5) * cell + (x0, y0), digits).ravel().tolist()  # grid point i: cell i - 1's centre
                 for line in contour_lines(grid, level)]  # fmt: skip
        contours.append({"level": level, "lines": lines})
    spots, named = [], set()
    for (i, j, _), (text, rows) in zip(peaks, labels, strict=True):
        if text and text not in named:  # one label a name a tile: the densest region's (peaks come densest first)
            spots.append({"x": round(x0 + (i + 0.5) * cell, digits), "y": round(y0 + (j + 0.5) * cell, digits),
                          "text": text, "rows": rows})  # fmt: skip
            named.add(text)
    return json.dumps({"tile": name, "contours": contours, "labels": spots}, separators=(",", ":")) + "\n"


class OverlayFile:
    """A built overlay, read one tile's line at a time (the index memory-mapped)."""

    def __init__(self, folder: str | Path) -> None:
        folder = Path(folder)
        about = read_json(folder / OVERLAY_INFO, "tile overlay", "build the tiles again", keys=("levels",))
        self.levels: tuple[float, ...] = tuple(about["levels"])
        self.path = folder / OVERLAY
        self._offsets = np.load(folder / OVERLAY_INDEX, mmap_mode="r")  # (T + 1,) int64
        self._stamp = FileStamp.of(self.path)

    def read(self, position: int) -> bytes:
        """The overlay of the tree's tile at `position` (tree-tiles order), as one JSON object."""
        self._stamp.check()
        start, stop = int(self._offsets[position]), int(self._offsets[position + 1])
        with self.path.open("rb") as f:
            f.seek(start)
            return f.read(stop - start)
