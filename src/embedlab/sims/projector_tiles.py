"""Any table on one map, however many rows: the tiled side of the lab's Projector page.

    maps = TiledMaps("big.npy", "/data/big.npy")    # one per served table; nothing is read yet
    maps.manifest("pca")                             # Building (a child process builds the map) ... then
                                                     # TileManifest: bounds, the tree's tiles, contour levels
    maps.tile("pca", build, "0/0/0", "theme")        # Tile: the root's points, rows, colour values, ranks
    maps.overlay("pca", build, "1/0/1")              # that tile's density contours and region labels
    maps.search("pca", "^king", regex=True)          # SearchHits: every row whose key matches, counted
    maps.neighbours("pca", row=42, k=10)             # Reach: its nearest rows in the table's own space

The page never receives every row. A map is built once per table and layout (vectors/map_build.py:
keys, norms and colour codes, the (V, 2) points, a quadtree of tiles, each tile's contours and
labels) in a child process below the lab's priority, and kept beside the table; the page polls
`manifest` for the build's progress, draws the root tile (1,000 rows sampled from all) at once and
asks for the tiles under its view as it zooms. The server holds the table memory-mapped: what it
keeps resident is the tiles it reads and the (V, 2) points, not the (V, D) rows; the rows are
read chunk by chunk when a neighbour search scans them (vectors/rowscan.py).

A tile carries the build it was made from: a table that changed since its map was built answers
a tile request of the old build with FileChangedError (409), and the next manifest builds again.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from embedlab.errors import (
    BusyError,
    EmbedlabError,
    FileChangedError,
    InvalidValueError,
    MissingDataError,
    check_choice,
    check_int,
)
from embedlab.sims.child import in_child
from embedlab.sims.projector import NAMES, PALETTE, SCHEMES
from embedlab.vectors.keystore import MAX_PATTERN as MAX_PATTERN  # the routes' limit on a pattern's length
from embedlab.vectors.map_build import MapFiles, ProgressFile, build_map, is_built
from embedlab.vectors.map_source import MapSource, open_map_source, tiles_root
from embedlab.vectors.projection import PROJECTIONS
from embedlab.vectors.rowscan import nearest_rows
from embedlab.vectors.tiles import TileTree

log = logging.getLogger("embedlab")

MAX_HITS = 10_000  # search hits a page is sent and draws; the count is over every row
SEARCH_BUDGET_S = 1.5  # a search that runs longer over the keys is refused (a simple regex over 10M keys: 0.2-0.6 s)
MAX_K = 100  # neighbours of a clicked point
MOVED = "moved"  # the page's colouring by displacement against a compared table
BAND_CODES = "codes-band.npy"  # written by the build where the table has corpus counts


@dataclass(frozen=True)
class Building:
    """A map not ready yet: what its build is doing."""

    state: str  # "building"
    table: str
    method: str
    stage: str  # keys | norms | codes | layout | tree | overlay ... (the builder's own names)
    done: int  # units of the stage done so far (rows, tiles)
    total: int  # units of the stage in all (0 while unknown)


@dataclass(frozen=True)
class TileManifest:
    """A built map: what the page needs to draw any view of it."""

    state: str  # "ready"
    table: str
    method: str  # pca | umap
    build: str  # the table's fingerprint when the map was built; a tile request names it
    rows: int  # V: every row of the table has a point
    dim: int  # D
    bounds: tuple[float, ...]  # [x0, y0, x1, y1]: the square holding every point; tile z/x/y is 1/2**z of it
    depth: int  # the deepest tile's z
    root_rows: int  # rows in the root tile "0/0/0"
    capacity: int  # the most rows any other tile holds
    tiles: dict[str, int]  # tile id "z/x/y" -> its rows; a tile not listed does not exist
    levels: tuple[float, ...]  # the contours' densities (rows per unit of map area), ascending
    schemes: tuple[str, ...]  # the colourings offered (band only where the table has counts)
    names: dict[str, tuple[str, ...] | None]  # scheme -> what each code means; None for a continuous value
    colours: dict[str, str]  # a code's name -> its CSS colour
    caption: str  # how the layout was made
    seconds: dict[str, float]  # the build's stages, timed


@dataclass(frozen=True, eq=False)
class Tile:
    """One tile's points as the page receives them (`body`, little-endian): (n, 2) float32 points,
    (n,) uint32 rows, (n,) colour values, uint8 codes or float32 (NaN: none), then (n,) uint32 each
    row's priority rank, ascending (the rows of rank < P, a prefix, are the tile's share of one
    uniform sample of P rows of the table: what the page draws)."""

    tile: str
    rows: int  # n
    value_dtype: str  # uint8 | float32
    body: bytes

    def headers(self) -> dict[str, str]:
        return {"X-Tile": self.tile, "X-Rows": str(self.rows), "X-Value-Dtype": self.value_dtype}


@dataclass(frozen=True)
class Contour:
    level: float  # a density of the manifest's levels (rows per unit of map area)
    lines: tuple[
        tuple[float, ...], ...
    ]  # each line's points as x0, y0, x1, y1, ... (closed lines end where they begin)


@dataclass(frozen=True)
class RegionLabel:
    x: float  # the dense region's peak on the map
    y: float
    text: str  # the term most particular to the region's keys (tf-idf), else its representative key
    rows: int  # rows of the region


@dataclass(frozen=True)
class Overlay:
    """What a tile adds to the map's reading, computed over every row in its box (not only its own)."""

    tile: str
    contours: tuple[Contour, ...]  # the density contours inside the tile's box
    labels: tuple[RegionLabel, ...]  # its dense regions, named


@dataclass(frozen=True)
class SearchHits:
    """The rows whose keys match a pattern: counted over every row, the first `shown` sent."""

    table: str
    pattern: str
    regex: bool  # a regular expression (each key searched as with regex.search, ^ and $ at its ends), else a substring
    count: int  # matching rows among all rows
    shown: int  # hits sent (rows in ascending order), at most the limit asked for
    rows: tuple[int, ...]
    keys: tuple[str, ...]
    points: tuple[tuple[float, float], ...]  # each hit's point on the map
    seconds: float  # the search's time on the server


@dataclass(frozen=True)
class RowNeighbour:
    row: int
    key: str
    cosine: float  # with the clicked row, in the table's own space
    map_rank: int  # 1 + the points the map puts strictly closer to the clicked point (among all rows)
    point: tuple[float, float]


@dataclass(frozen=True)
class Reach:
    """A clicked row's nearest rows by cosine in the table's own space, and where the map put them."""

    table: str
    method: str
    row: int
    key: str
    point: tuple[float, float]
    k: int
    search: str  # how the neighbours were found: "exact" (every row scanned)
    seconds: float  # the search's time on the server
    neighbours: tuple[RowNeighbour, ...]  # best first
    kept: int  # how many of them are among the map's k nearest points to the row


class TiledMaps:
    """One served table's maps (one a layout), each built once in a child process and kept."""

    def __init__(self, name: str, path: str | Path, seed: int = 0) -> None:
        self.name, self.path, self.seed = name, str(path), seed
        self._lock = threading.Lock()
        self._source: MapSource | None = None
        self._files: MapFiles | None = None
        self._trees: dict[str, TileTree] = {}
        self._builds: dict[str, Future] = {}

    # ---- the map and its build ------------------------------------------------------------------

    def manifest(self, method: str = "pca") -> TileManifest | Building:
        """The map of `method` if built; else its build's progress (the build started if need be).
        A build that failed on the table (too few rows for the layout) raises its error."""
        check_choice("method", method, PROJECTIONS)
        with self._lock:
            source = self._current_source()
            if is_built(source, method):
                return self._manifest(source, method)
            future = self._builds.get(method)
            if future is not None and future.done():
                self._end_of(method, future)
            if method not in self._builds:
                progress = ProgressFile(self._progress_path(source, method))
                progress("starting", 0, 0)
                build = partial(build_map, self.path, method, seed=self.seed, progress=progress)
                self._builds[method] = in_child(build)
            stage = ProgressFile.read(self._progress_path(source, method))
            return Building("building", self.name, method, stage["stage"], stage["done"], stage["total"])

    def tree(self, method: str, build: str) -> TileTree:
        """The built map of `method` whose build is `build`; FileChangedError for another build."""
        check_choice("method", method, PROJECTIONS)
        with self._lock:
            source = self._current_source()
            if build != source.fingerprint:
                raise FileChangedError(f"{self.name} changed since the tiles asked for were built; reload the map")
            if not is_built(source, method):
                raise MissingDataError(f"the {method} map of {self.name} is not built; ask for its manifest first")
            if method not in self._trees:
                self._trees[method] = self._map_files(source).layout(method)
            return self._trees[method]

    def tile(self, method: str, build: str, tile: str, scheme: str, moved: np.ndarray | None = None) -> Tile:
        """Tile `tile` ("z/x/y") of the map: its points, rows, each row's colour by `scheme` (theme |
        band | norm, or "moved" with `moved` (V,) the displacement of each row) and priority rank."""
        tree = self.tree(method, build)
        rows, points = tree.tile(tile)
        values = self._colour_values(scheme, rows, moved)
        parts = (points.astype(np.float32), rows.astype(np.uint32), values, tree.ranks(tile).astype(np.uint32))
        body = b"".join(np.ascontiguousarray(a, a.dtype.newbyteorder("<")).tobytes() for a in parts)
        return Tile(tile, len(rows), values.dtype.name, body)

    def overlay(self, method: str, build: str, tile: str) -> dict:
        """Tile `tile`'s density contours and region labels, computed over every row in its box: an
        Overlay's JSON form, as the build stored it."""
        return self.tree(method, build).overlay(tile)

    # ---- questions of every row -----------------------------------------------------------------

    def search(self, method: str, pattern: str, regex: bool = False, limit: int = MAX_HITS) -> SearchHits:
        """Every row whose key holds `pattern` (a substring, or a regular expression with regex=True),
        counted; the first `limit` with their points on the `method` map."""
        limit = check_int("limit", limit, low=1, high=MAX_HITS)
        source, files, points = self._built(method)
        hits = files.keys.search(pattern, regex=regex, limit=limit, budget_s=SEARCH_BUDGET_S)
        rows = np.asarray(hits.rows, dtype=np.int64)
        return SearchHits(self.name, pattern, regex, hits.count, len(rows), tuple(rows.tolist()),
                          tuple(files.keys.keys(rows)), _pairs(points[rows]), hits.seconds)  # fmt: skip

    def neighbours(self, method: str, row: int, k: int = 10) -> Reach:
        """Row `row`'s k nearest rows by cosine in the table's own space, with the ranks the `method`
        map gives them and how many of them are among its k nearest points on the map."""
        source, files, points = self._built(method)
        V = len(points)
        row = check_int("row", row, low=0, high=V - 1)
        k = check_int("k", k, low=1, high=min(MAX_K, V - 1))
        start = time.perf_counter()
        rows, cosines = nearest_rows(source.rows, self._norms(files), row, k)
        seconds = time.perf_counter() - start
        offset = points - points[row]  # (V, 2)
        distance = np.einsum("ij,ij->i", offset, offset)  # (V,) squared distances on the map: the same order
        distance[row] = np.inf  # the row is not its own neighbour
        # subtle: rank = 1 + the points strictly closer; ties share the better rank
        ranks = [1 + int(np.count_nonzero(distance < distance[r])) for r in rows]
        on_map = np.argpartition(distance, k - 1)[:k]
        keys = files.keys.keys(rows)
        near = tuple(RowNeighbour(int(r), key, float(c), rank, _pair(points[r]))
                     for r, key, c, rank in zip(rows, keys, cosines, ranks, strict=True))  # fmt: skip
        return Reach(self.name, method, row, files.keys.key(row), _pair(points[row]), k, "exact", seconds, near,
                     len(set(rows.tolist()) & set(on_map.tolist())))  # fmt: skip

    def check_rows(self, most: int) -> None:
        """Refuse a view of every row at once (InvalidValueError) when the table has more than `most`."""
        rows = len(self._current_source().rows)
        if rows > most:
            raise InvalidValueError(f"{self.name} has {rows:,} rows; the 3-D view and comparisons hold at most "
                                    f"{most:,} (the 2-D map holds any number)")  # fmt: skip

    def moved(self, displacement: np.ndarray) -> np.ndarray:
        """Projector.displacement's (V',) array for this table's V map rows: a map with rows the table's
        keyed rows lack (a fastText .bin's n-gram buckets follow its words) has none for them (NaN)."""
        rows = len(self._current_source().rows)
        moved = np.full(rows, np.nan, dtype=np.float32)
        moved[: len(displacement)] = displacement[:rows]
        return moved

    def schemes(self) -> tuple[str, ...]:
        """The colourings the built map offers: by band only where the table has corpus counts (the
        build wrote band codes; asking the source would read a sidecar's every key)."""
        root = self._map_files(self._current_source()).root
        return tuple(s for s in SCHEMES if s != "band" or (root / BAND_CODES).exists())

    # ---- within ---------------------------------------------------------------------------------

    def _current_source(self) -> MapSource:
        """The table as it is on disk now: opened again when its file changed since it was opened."""
        if self._source is None or self._source.fingerprint != self._source.current_fingerprint():
            self._source, self._files, self._trees = open_map_source(self.path), None, {}
            # a build that ended (a failure on the old table among them) says nothing of the new one;
            # one still running finishes the old map, which the next build finds stale and replaces
            self._builds = {method: build for method, build in self._builds.items() if not build.done()}
        return self._source

    def _map_files(self, source: MapSource) -> MapFiles:
        if self._files is None:
            self._files = MapFiles.open(source)
        return self._files

    def _built(self, method: str) -> tuple[MapSource, MapFiles, np.ndarray]:
        source = self._current_source()
        tree = self.tree(method, source.fingerprint)
        return source, self._map_files(source), tree.points

    def _progress_path(self, source: MapSource, method: str) -> Path:
        root = tiles_root(source)
        root.mkdir(parents=True, exist_ok=True)
        return root / f"{method}.progress.json"

    def _end_of(self, method: str, future: Future) -> None:
        """A finished build: forgotten so the next manifest looks again (a success is on disk); one
        refused because another process builds the same map is tried again; an error on the table
        is raised, a bug logged and told as such."""
        error = future.exception()
        if error is None or isinstance(error, BusyError):
            del self._builds[method]
        elif isinstance(error, EmbedlabError):
            raise error
        else:
            log.error("building the %s map of %s failed", method, self.name, exc_info=error)
            raise EmbedlabError(f"building the {method} map of {self.name} failed (the server log says why)")

    def _norms(self, files: MapFiles) -> np.ndarray:
        return np.load(files.root / "norms.npy", mmap_mode="r")

    def _colour_values(self, scheme: str, rows: np.ndarray, moved: np.ndarray | None) -> np.ndarray:
        if scheme == MOVED:
            if moved is None:
                raise MissingDataError("colouring by 'moved' needs a compared table (other=)")
            return moved[rows].astype(np.float32)
        check_choice("scheme", scheme, self.schemes())
        files = self._map_files(self._current_source())
        if scheme == "norm":
            return self._norms(files)[rows].astype(np.float32)
        return np.load(files.root / f"codes-{scheme}.npy", mmap_mode="r")[rows].astype(np.uint8)

    def _manifest(self, source: MapSource, method: str) -> TileManifest:
        tree = self._trees.get(method) or self._map_files(source).layout(method)
        self._trees[method] = tree
        about = tree.manifest
        schemes = self.schemes()
        return TileManifest(
            state="ready",
            table=self.name,
            method=method,
            build=source.fingerprint,
            rows=int(about["rows"]),
            dim=int(about["dim"]),
            bounds=tuple(float(x) for x in about["bounds"]),
            depth=int(about["depth"]),
            root_rows=int(about["root_rows"]),
            capacity=int(about["capacity"]),
            tiles={tile: int(n) for tile, n in about["tiles"].items()},
            levels=tuple(float(x) for x in about["levels"]),
            schemes=schemes,
            names={scheme: NAMES[scheme] for scheme in schemes},
            colours=PALETTE,
            caption=str(about["caption"]),
            seconds={stage: float(s) for stage, s in about["seconds"].items()},
        )


def _pair(point: np.ndarray) -> tuple[float, float]:
    return float(point[0]), float(point[1])


def _pairs(points: np.ndarray) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in points)
