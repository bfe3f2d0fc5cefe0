"""A table's map cut into a quadtree of tiles, so a page draws any table root tile first.

    tree = build_tiles(rows, blob, idx, counts, folder)   # layout, tree, overlay, manifest.json (resumable)
    tree = TileTree.open(folder)                          # .bounds .depth .tiles .points; nothing read yet
    rows, xy = tree.tile("2/1/3")                         # (n,) uint32 rows, (n, 2) float32 points
    tree.ranks("2/1/3")                                   # (n,) uint32 their priority ranks, ascending
    tree.overlay("2/1/3")                                 # its contours and labels (tiles_overlay.py)
    build_tree(coords, folder)                            # the tree alone, from (V, 2) points

The tree (the contract of issue 35): the map's box is the square `bounds` [x0, y0, x1, y1] around every
point; tile "z/x/y" covers [x0 + x s, x0 + (x+1) s) x [y0 + y s, y0 + (y+1) s), s = (x1 - x0) / 2**z,
the far edges belonging to the last tiles. Every row gets a seeded random priority (priority_order);
the root "0/0/0" holds the ROOT_ROWS rows of lowest priority, a uniform sample of the table (so dense
regions get more of it than sparse ones: a density-weighted picture, not the first rows), and each
child the CAPACITY lowest-priority rows in its box that no ancestor holds; the rest go on down. A box
left with no rows has no tile. Within a tile rows are in priority order: any prefix is again a
random sample. Below MAX_DEPTH nothing is split: a tile there holds all its box's remaining rows
(only more than CAPACITY x MAX_DEPTH rows at one point, to float32's precision, get that far).
A row's rank r is its place in the priority order (0 first): the rows of rank < P are a uniform
sample of P rows of the table, and in every tile they are a prefix, so a page that draws the prefix
of rank < P of each tile it has shows one uniform sample, dense and sparse tiles alike.

Files (arrays as little-endian .npy; each file written to a temporary name, then renamed):
    coords.npy      (V, 2) float32   row i's point on the map (tiles_layout.compute_layout)
    tree-rows.npy   (V,) uint32      every row once, tile by tile in tree-tiles order, priority order within
    tree-ranks.npy  (V,) uint32      each of those rows' priority rank (so ascending within a tile)
    tree-tiles.npy  (T, 5) int64     z, x, y, start, stop: tile i's rows are tree-rows[start:stop];
                                     sorted by (z, x, y)
    tree.json       bounds, depth, rows, root_rows, capacity, seed: written last
    stage-NAME.json what each stage of build_tiles was made with and from (layout, tree, overlay)
    manifest.json   written last by build_tiles: the layout's caption, bounds, depth, tiles, levels, seconds
A tile is read with slices of memory-mapped files: nothing else of the tree is loaded.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import numpy as np

from embedlab.errors import InvalidValueError, UnknownNameError, check_int
from embedlab.files import FileStamp, atomic_write_text, json_safe
from embedlab.files.reading import read_json
from embedlab.vectors.tiles_layout import CHUNK, Progress, check_layout_rows, compute_layout, finite_rows, write_npy
from embedlab.vectors.tiles_overlay import OVERLAY, OVERLAY_INDEX, OVERLAY_INFO, OverlayFile, build_overlay

ROOT_ROWS = 1_000  # the root tile: drawn first, whatever the table's size
CAPACITY = 50_000  # rows a tile below the root holds at most (deepscatter's tile size)
MAX_DEPTH = 24  # cells are 24-bit integers per axis, float32's precision across the map
COORDS, TREE_ROWS, TREE_TILES, TREE_INFO = "coords.npy", "tree-rows.npy", "tree-tiles.npy", "tree.json"
TREE_RANKS = "tree-ranks.npy"
TREE_FILES = (TREE_ROWS, TREE_RANKS, TREE_TILES, TREE_INFO)  # the tree stage's files; tree.json written last
MANIFEST = "manifest.json"  # written last by build_tiles: its presence means every stage is complete
_TILE = re.compile(r"(0|[1-9][0-9]*)/(0|[1-9][0-9]*)/(0|[1-9][0-9]*)")


# ----- the tree ---------------------------------------------------------------------------------------


def priority_order(n: int, seed: int) -> np.ndarray:
    """(n,) int64: the rows 0..n-1 from lowest priority to highest (a seeded random permutation)."""
    return np.random.default_rng(seed).permutation(n)


def map_bounds(coords: np.ndarray, chunk: int = CHUNK) -> tuple[float, float, float, float]:
    """(V, 2) finite points -> the square [x0, y0, x1, y1] centred on them that holds them all (side 1
    around a single point).

    >>> [round(b, 6) for b in map_bounds(np.array([[0.0, 0.0], [4.0, 2.0]]))]
    [-2e-06, -1.000002, 4.000002, 3.000002]
    """
    low, high = np.full(2, np.inf), np.full(2, -np.inf)
    for a in range(0, len(coords), chunk):
        block = np.asarray(coords[a : a + chunk], np.float64)  # (c, 2)
        finite_rows(block, range(a, a + len(block)))
        low, high = np.minimum(low, block.min(axis=0)), np.maximum(high, block.max(axis=0))
    # subtle: a millionth wider than the points, so rounding leaves the extremes inside the box
    side = float((high - low).max()) * (1 + 1e-6) or 1.0
    x0, y0 = (low + high) / 2 - side / 2
    return float(x0), float(y0), float(x0 + side), float(y0 + side)


def map_cells(coords: np.ndarray, bounds: tuple[float, ...], bits: int, chunk: int = CHUNK) -> np.ndarray:
    """(V, 2) points -> (V, 2) uint32 cells 0..2**bits - 1 on each axis: the depth-`bits` tile of each
    point (the far edges belong to the last cells). A depth-z tile is cells >> (bits - z)."""
    x0, y0, x1, _ = bounds
    scale = 2.0**bits / (x1 - x0)
    out = np.empty((len(coords), 2), np.uint32)
    for a in range(0, len(coords), chunk):
        block = (np.asarray(coords[a : a + chunk], np.float64) - (x0, y0)) * scale
        out[a : a + chunk] = np.clip(np.floor(block), 0, 2**bits - 1)
    return out


def build_tree(
    coords: np.ndarray, folder: str | Path, *, seed: int = 0, root_rows: int = ROOT_ROWS, capacity: int = CAPACITY,
    progress: Progress | None = None,
) -> TileTree:  # fmt: skip
    """(V, 2) points -> the quadtree's files in `folder` (module docstring), built level by level:
    at each depth the rows not yet placed are stably sorted by their tile there (so each tile's
    rows stay in priority order) and each tile keeps its first `capacity`. Each row's priority rank is
    written beside it (tree-ranks.npy). Progress: ("tree", rows placed, V). -> TileTree.open(folder)
    (reading the points from folder/coords.npy)."""
    seed = check_int("seed", seed, low=0)
    root_rows, capacity = check_int("root_rows", root_rows, low=1), check_int("capacity", capacity, low=1)
    if coords.ndim != 2 or coords.shape[1] != 2 or not len(coords):
        raise InvalidValueError(f"a tree needs (V, 2) points with V >= 1; got shape {tuple(coords.shape)}")
    folder, V = Path(folder), len(coords)
    report = progress or (lambda stage, done, total: None)
    bounds = map_bounds(coords)
    cells = map_cells(coords, bounds, MAX_DEPTH)  # (V, 2) uint32
    order = priority_order(V, seed).astype(np.uint32)  # rank -> row
    ranks = np.arange(V, dtype=np.uint32)
    parts, tiles = [ranks[:root_rows]], [(0, 0, 0, 0, min(root_rows, V))]
    pending, placed, z = ranks[root_rows:], min(root_rows, V), 0  # ranks of the rows still to place, ascending
    report("tree", placed, V)
    while len(pending):
        z += 1
        tile = cells[order[pending]] >> np.uint32(MAX_DEPTH - z)  # (n, 2) this depth's tile of each
        code = (tile[:, 0].astype(np.int64) << z) | tile[:, 1]
        by_tile = np.argsort(code, kind="stable")  # subtle: stable keeps priority order in each tile
        pending, code = pending[by_tile], code[by_tile]
        first = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])  # (T,) where each tile's rows start
        sizes = np.diff(np.r_[first, len(code)])
        place = np.arange(len(code)) - np.repeat(first, sizes)  # each row's place in its tile
        keep = place < capacity if z < MAX_DEPTH else np.ones(len(code), bool)
        kept = np.minimum(sizes, capacity) if z < MAX_DEPTH else sizes
        stops = placed + np.cumsum(kept)
        for c, start, stop in zip(code[first].tolist(), (stops - kept).tolist(), stops.tolist(), strict=True):
            tiles.append((z, c >> z, c & ((1 << z) - 1), start, stop))
        parts.append(pending[keep])
        pending, placed = pending[~keep], int(stops[-1])
        report("tree", placed, V)
    write_npy(folder / TREE_ROWS, (V,), np.uint32, (order[part] for part in parts))
    write_npy(folder / TREE_RANKS, (V,), np.uint32, parts)
    write_npy(folder / TREE_TILES, (len(tiles), 5), np.int64, [np.array(tiles, np.int64)])
    info = {"bounds": bounds, "depth": z, "rows": V, "root_rows": root_rows, "capacity": capacity, "seed": seed}
    atomic_write_text(folder / TREE_INFO, json.dumps(json_safe(info)))
    return TileTree.open(folder)


def parse_tile(tile: str) -> tuple[int, int, int]:
    """'z/x/y' -> (z, x, y), refusing what names no tile of any tree: '2/3/1' -> (2, 3, 1)."""
    match = _TILE.fullmatch(tile) if isinstance(tile, str) else None
    if match is None:
        raise InvalidValueError(f"tile must be 'z/x/y' with whole numbers (the root is '0/0/0'); got {tile!r}")
    z, x, y = (int(part) for part in match.groups())
    if z > MAX_DEPTH:
        raise InvalidValueError(f"tile {tile!r} is too deep: depths go 0..{MAX_DEPTH}")
    if x >= 2**z or y >= 2**z:
        raise InvalidValueError(f"tile {tile!r} is outside the map: at depth {z}, x and y go 0..{2**z - 1}")
    return z, x, y


def tile_box(bounds: tuple[float, ...], z: int, x: int, y: int) -> tuple[float, float, float, float]:
    """The part [x0, y0, x1, y1] of the map tile z/x/y covers."""
    side = (bounds[2] - bounds[0]) / 2**z
    return bounds[0] + x * side, bounds[1] + y * side, bounds[0] + (x + 1) * side, bounds[1] + (y + 1) * side


class TileTree:
    """A built tree, read tile by tile from memory-mapped files (the table itself is not needed)."""

    def __init__(
        self, folder: Path, info: dict, index: np.ndarray, rows: np.ndarray, ranks: np.ndarray, points: np.ndarray
    ) -> None:
        self.folder = folder
        self.bounds: tuple[float, float, float, float] = tuple(info["bounds"])
        self.depth: int = info["depth"]  # the deepest tile's z
        self.rows: int = info["rows"]  # V
        self.root_rows: int = info["root_rows"]
        self.capacity: int = info["capacity"]
        self.seed: int = info["seed"]
        self.index = index  # (T, 5) int64: z, x, y, start, stop
        self.tiles = {f"{z}/{x}/{y}": stop - start for z, x, y, start, stop in index.tolist()}  # id -> rows
        self.points = points  # (V, 2) float32, memory-mapped: row i's point
        self._position = {name: i for i, name in enumerate(self.tiles)}  # id -> row of `index`
        self._rows = rows  # (V,) uint32, memory-mapped
        self._ranks = ranks  # (V,) uint32, memory-mapped: each of _rows' priority rank
        self._stamps = [FileStamp.of(folder / name) for name in (TREE_ROWS, TREE_RANKS, COORDS)]
        self._manifest: dict | None = None
        self._overlay: OverlayFile | None = None

    @classmethod
    def open(cls, folder: str | Path) -> TileTree:
        """The tree in `folder` (tree.json, tree-rows.npy, tree-ranks.npy, tree-tiles.npy and coords.npy)."""
        folder = Path(folder)
        recover = "build the tiles again (delete the folder)"
        info = read_json(folder / TREE_INFO, "tile tree", recover, keys=("bounds", "depth", "rows", "seed"))
        index = np.load(folder / TREE_TILES)
        mapped = [np.load(folder / name, mmap_mode="r") for name in (TREE_ROWS, TREE_RANKS, COORDS)]
        return cls(folder, info, index, *mapped)

    @property
    def manifest(self) -> dict:
        """manifest.json, as build_tiles wrote it (MissingDataError while the tiles are being built)."""
        if self._manifest is None:
            self._manifest = read_json(self.folder / MANIFEST, "tile manifest", "build the tiles again",
                                       keys=("rows", "bounds", "tiles", "levels"))  # fmt: skip
        return self._manifest

    def position(self, tile: str) -> int:
        """The tile's place in the tree's order (tree-tiles.npy's row), or an error: a malformed or
        out-of-range id raises InvalidValueError, a tile the tree lacks UnknownNameError (a KeyError)."""
        z, _, _ = parse_tile(tile)
        if tile not in self._position:
            why = "its box holds no rows beyond its ancestors'" if z <= self.depth else "that is below"
            raise UnknownNameError(f"tile {tile!r} is not in the tree: the tree goes to depth {self.depth}, "
                                   f"and {why}")  # fmt: skip
        return self._position[tile]

    def box(self, tile: str) -> tuple[float, float, float, float]:
        """The part [x0, y0, x1, y1] of the map a tile of this tree covers."""
        return tile_box(self.bounds, *self.index[self.position(tile), :3].tolist())

    def tile(self, tile: str) -> tuple[np.ndarray, np.ndarray]:
        """'z/x/y' -> its rows (n,) uint32 in priority order and their points (n, 2) float32."""
        _, _, _, start, stop = self.index[self.position(tile)].tolist()
        for stamp in self._stamps:
            stamp.check()
        rows = np.array(self._rows[start:stop])
        return rows, np.asarray(self.points[rows], np.float32)

    def ranks(self, tile: str) -> np.ndarray:
        """'z/x/y' -> (n,) uint32 the priority rank of each of its rows (as tile() orders them): ascending,
        so the rows of rank < P are a prefix of the tile, and over all tiles a uniform sample of P rows."""
        _, _, _, start, stop = self.index[self.position(tile)].tolist()
        for stamp in self._stamps:
            stamp.check()
        return np.array(self._ranks[start:stop])

    def overlay(self, tile: str) -> dict:
        """'z/x/y' -> its contours and labels (tiles_overlay), read from that tile's line alone."""
        position = self.position(tile)
        if self._overlay is None:
            self._overlay = OverlayFile(self.folder)
        return json.loads(self._overlay.read(position))


# ----- every stage, resumable -----------------------------------------------------------------------


def build_tiles(
    rows: np.ndarray, keys_blob: np.ndarray | None, keys_idx: np.ndarray | None, counts: np.ndarray | None,
    folder: str | Path, method: str = "pca", *, seed: int = 0, root_rows: int = ROOT_ROWS, capacity: int = CAPACITY,
    progress: Progress | None = None,
) -> TileTree:  # fmt: skip
    """(V, D) rows (a np.memmap is streamed), their keys as keys.bin (uint8) and keys.idx (V+1,)
    int64 offsets (None: no labels), corpus counts (V,) or None -> the tiles of the `method` map in
    `folder`: layout (coords.npy), tree, overlay, then manifest.json, written last.

    Each stage records what it was made with and from in stage-NAME.json once its files are
    written; a rerun skips a stage whose record matches and whose files are there, so a build
    that was stopped resumes at the stage it was in. A stage made again remakes those after it.
    progress(stage, done, total) hears "axes" and "projection" (PCA) or "umap fit" and "placement"
    (rows), then "tree" (rows placed) and "overlay" (tiles written). -> the tree, opened.
    """
    check_layout_rows(method, rows.shape)
    seed, (V, D) = check_int("seed", seed, low=0), rows.shape
    root_rows, capacity = check_int("root_rows", root_rows, low=1), check_int("capacity", capacity, low=1)
    if (keys_blob is None) != (keys_idx is None) or (keys_idx is not None and len(keys_idx) != V + 1):
        raise InvalidValueError(f"keys need keys.bin and keys.idx of V + 1 = {V + 1} offsets; got "
                                f"{None if keys_idx is None else len(keys_idx)} offsets")  # fmt: skip
    if counts is not None and len(counts) != V:
        raise InvalidValueError(f"counts must have one entry per row ({V}); got {len(counts)}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    params = {"method": method, "seed": seed, "rows": V, "dim": D, "root_rows": root_rows, "capacity": capacity}
    if is_complete(folder):
        tree = TileTree.open(folder)
        if {k: tree.manifest.get(k) for k in params} == params:
            return tree
    (folder / MANIFEST).unlink(missing_ok=True)
    labelled = {"keys": keys_blob is not None, "counts": counts is not None}
    made, remade = {}, False
    for name, files, after, want in (
        ("layout", (COORDS,), None, {k: params[k] for k in ("method", "seed", "rows", "dim")}),
        ("tree", TREE_FILES, COORDS, {"seed": seed, "root": root_rows, "capacity": capacity}),
        ("overlay", (OVERLAY, OVERLAY_INDEX, OVERLAY_INFO), TREE_ROWS, labelled),
    ):
        record = folder / f"stage-{name}.json"
        want = json.loads(json.dumps({"with": want, "after": _stamp(folder / after) if after else None}))
        done = _read_record(record)
        if not remade and done is not None and {k: done.get(k) for k in want} == want and \
                all((folder / f).exists() for f in files):  # fmt: skip
            made[name] = done
            continue
        start = time.perf_counter()
        if name == "layout":
            info = compute_layout(rows, method, folder / COORDS, seed=seed, progress=progress)
            result = {"caption": info.caption(), "layout": json_safe(info)}
        elif name == "tree":
            coords = np.load(folder / COORDS, mmap_mode="r")
            build_tree(coords, folder, seed=seed, root_rows=root_rows, capacity=capacity, progress=progress)
            result = {}
        else:
            tree = TileTree.open(folder)
            keys = None if keys_blob is None else (keys_blob, keys_idx)
            levels = build_overlay(tree.points, tree.bounds, tree.index, folder, order=priority_order(V, seed),
                                   keys=keys, counts=counts, progress=progress)  # fmt: skip
            result = {"levels": levels}
        made[name] = {**want, **result, "seconds": time.perf_counter() - start}
        atomic_write_text(record, json.dumps(json_safe(made[name])))
        remade = True
    tree = TileTree.open(folder)
    overlay = read_json(folder / OVERLAY_INFO, "tile overlay", "build the tiles again", keys=("levels",))
    manifest = {
        **params, "bounds": tree.bounds, "depth": tree.depth, "tiles": tree.tiles, "levels": made["overlay"]["levels"],
        "enclosed": overlay.get("enclosed"), "grid": overlay.get("grid"), "caption": made["layout"]["caption"],
        "layout": made["layout"]["layout"], "seconds": {k: v["seconds"] for k, v in made.items()},
    }  # fmt: skip
    atomic_write_text(folder / MANIFEST, json.dumps(json_safe(manifest)))
    return tree


def is_complete(folder: str | Path) -> bool:
    """Whether `folder` holds a complete build: its manifest, and the tree's files of this version (a map
    built before tree-ranks.npy existed lacks them, and is built again)."""
    folder = Path(folder)
    return (folder / MANIFEST).exists() and all((folder / name).exists() for name in TREE_FILES)


def _stamp(path: Path) -> str | None:
    """What a stage's input file is now (size, time, inode): a stage made from another one is stale."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"


def _read_record(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
