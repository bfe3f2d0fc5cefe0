"""Every row of a table on one map: the library side of the lab's Projector page.

    projector = Projector(vectors)                 # one per served table; each layout made once
    layout = projector.layout("pca", dims=2)       # Layout: (V, 2) float32, one point per row
    layout.coordinates.tobytes()                   # what the page receives: little-endian float32
    projector.colours("band")                      # Colours: (V,) uint8 band of each row, band names
    projector.focus("king", k=10)                  # Focus: the k nearest rows in the full space,
                                                   # and where the map puts them
    projector.info()                               # ProjectorInfo: size, colourings, maps made so far
    projector.compare(other, k=10)                 # TableComparison (vectors.compare), kept
    projector.comparison(other, k=10, top=20)      # Comparison: its summary and top movers, the page's answer
    projector.displacement(other)                  # (V,) how far each row moved; NaN if unshared

PCA (the default) centres the rows and projects them on the table's first three principal axes
(vectors.projection.principal_axes: the covariance is summed over chunks, so a million rows need no
float64 copy); the 2-D map is the 3-D one's first two axes, so switching keeps the picture. UMAP
(pip install umap-learn) is fitted on a seeded sample of UMAP_SAMPLE rows, and every row is then
placed with the fitted model (umap's transform), rather than showing only the sample as the
TensorFlow projector does. The fit runs in a child process at a lower priority (about 95 s on
MiniLM on first use, numba compiling most of it): in a thread of the lab's own process its
compiler and kernels hold the GIL and share the cores with the requests of every other page.

A 2-D map cannot keep every neighbourhood of a 384-wide table. `focus` measures what it loses for
one key: its k nearest rows by cosine in the full space against its k nearest points on the map
(Euclidean, among all rows), how many the two lists share, and each true neighbour's rank on the
map (1 = the closest point).
"""

from __future__ import annotations

import importlib.util
import json
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from embedlab.data.themes import COLOURS, OTHER, THEMES
from embedlab.errors import InvalidValueError, MissingDataError, check_choice, check_int
from embedlab.sims.child import in_child
from embedlab.sims.limits import MAX_TOKEN
from embedlab.sims.once import MadeOnce
from embedlab.vectors.compare import MAX_TOP, Mover, TableComparison, compare_tables
from embedlab.vectors.frequency import BANDS, band_rows
from embedlab.vectors.keys import resolve_key, themed_keys
from embedlab.vectors.projection import PROJECTIONS, fit_umap, principal_axes
from embedlab.vectors.table import Vectors

MAX_ROWS = 1_000_000  # rows a map may hold: a million float32 points in 3-D is 12 MB to send
PCA_COMPONENTS = 3  # computed once; the 2-D map is the first two
UMAP_SAMPLE = 10_000  # rows UMAP is fitted on (seeded); the others are placed by its transform
UMAP_NEIGHBOURS = 15  # UMAP's n_neighbors
UMAP_NICE = 10  # the fit's process runs this much below the lab's priority
SCHEMES = ("band", "theme", "norm")  # colour by corpus-frequency band, theme group, row norm
DIMS = (2, 3)
MAX_K = 100  # neighbours of a searched key
MAX_MOVERS = 100  # the largest movers a comparison lists
LIMITS: dict[str, Any] = {
    "k": [1, MAX_K],
    "token": MAX_TOKEN,
    "rows": MAX_ROWS,
    "dims": list(DIMS),
    "methods": list(PROJECTIONS),
    "schemes": list(SCHEMES),
    "top": [1, MAX_MOVERS],
}
# Frequency bands from frequent (dark) to rare (light): the rare-token problem as a picture.
BAND_COLOURS = dict(zip((name for _, name in BANDS), ("#08306b", "#2171b5", "#6baed6", "#f4a259", "#d62728"),
                        strict=True))  # fmt: skip
PALETTE = {**BAND_COLOURS, **COLOURS}  # a code's name -> its CSS colour, for every categorical scheme
# scheme -> what each of its codes means (code 0 of theme: in no group); None: continuous values
NAMES: dict[str, tuple[str, ...] | None] = {"band": tuple(BAND_COLOURS), "theme": (OTHER, *THEMES), "norm": None}


@dataclass(frozen=True)
class ProjectorInfo:
    """What a table offers the projector page."""

    table: str  # the table's name
    rows: int  # V: one point per row
    dim: int  # D
    schemes: tuple[str, ...]  # the colourings offered (band only where the table has counts)
    names: dict[str, tuple[str, ...] | None]  # scheme -> what each code means; None for norms
    colours: dict[str, str]  # a code's name (band, theme) -> its CSS colour
    made: tuple[str, ...]  # the maps computed so far, "method-dims" ("pca-2"): the others take time on first use
    umap_sample: int  # rows a UMAP map is fitted on (the others are placed by the fitted model)


@dataclass(frozen=True, eq=False)
class Layout:
    method: str  # "pca" or "umap"
    coordinates: np.ndarray  # (V, dims) float32, row i of the table at coordinates[i]
    explained_variance_ratio: tuple[float, ...] | None  # PCA: each axis's share of the variance
    fitted_on: int  # rows the projection was fitted on (all for PCA, the sample for UMAP)
    seconds: float  # time taken to compute it

    @property
    def dims(self) -> int:
        return self.coordinates.shape[1]

    def caption(self) -> str:
        """'PCA of all 30,522 rows, centred; axes explain 4.1%, 3.0% of variance' or the UMAP line."""
        rows = len(self.coordinates)
        if self.explained_variance_ratio is None:
            return f"UMAP fitted on {self.fitted_on:,} of {rows:,} rows (seeded), the rest placed by the fitted model"
        shares = ", ".join(f"{100 * r:.1f}%" for r in self.explained_variance_ratio)
        return f"PCA of all {rows:,} rows, centred; axes explain {shares} of variance"


@dataclass(frozen=True, eq=False)
class Colours:
    scheme: str  # one of SCHEMES
    values: np.ndarray  # (V,) uint8 index into `names` (band, theme), or float32 (norm)
    names: tuple[str, ...] | None  # what each code means; None for continuous values


@dataclass(frozen=True)
class MapNeighbour:
    key: str
    row: int
    cosine: float  # with the focused key's row, in the full space
    map_rank: int  # its place among all points by distance on the map from the key's point (1 = closest)


@dataclass(frozen=True)
class Focus:
    """A key on one map: its true neighbours (full space) against its neighbours on the map."""

    table: str  # the table's name
    method: str  # the map: pca | umap
    dims: int  # 2 or 3
    key: str
    row: int
    count: int | None  # corpus count, where the table has counts
    point: tuple[float, ...]  # the key's coordinates on the map
    neighbours: tuple[MapNeighbour, ...]  # the k nearest rows by cosine, best first
    map_neighbours: tuple[str, ...]  # the k nearest points on the map, closest first
    k: int
    kept: int  # how many of `neighbours` are among `map_neighbours`


@dataclass(frozen=True)
class Comparison:
    """vectors.compare.TableComparison as the page shows it: the summary and the `top` movers,
    without the per-key arrays (a map colours by those: Projector.displacement). A shaped view, so
    its fields are TableComparison's own, less the per-key ones (a test pins them)."""

    name_a: str
    name_b: str
    dim_a: int
    dim_b: int
    shared: int  # keys in both tables: the S rows compared
    only_a: int  # keys of A that B lacks
    only_b: int
    k: int  # neighbours per key, searched among the shared keys in each table's own space
    residual: float  # relative Frobenius error after alignment (None if B's rows are all zero)
    mean_displacement: float
    median_displacement: float
    mean_jaccard: float
    movers: tuple[Mover, ...]  # the largest displacements first


PER_KEY = ("keys", "displacement", "jaccard")  # TableComparison's fields a Comparison leaves out


class Projector:
    """One table's maps and colourings, each computed on first use and kept (thread-safe)."""

    def __init__(self, vectors: Vectors, seed: int = 0) -> None:
        rows, width = vectors.table.shape
        if rows > MAX_ROWS:
            raise InvalidValueError(f"{vectors.name} has {rows:,} rows; the projector maps at most {MAX_ROWS:,}")
        if rows < 4 or width < 3:
            raise InvalidValueError(f"a map needs >= 4 rows of width >= 3; {vectors.name} is ({rows}, {width})")
        self.vectors = vectors
        self.seed = check_int("seed", seed, low=0)
        self._made = MadeOnce()  # ("pca",) | ("umap", dims) | ("colours", scheme) | ("compare", table, k) | ("keys",)

    def info(self) -> ProjectorInfo:
        """The table's size, the colourings it offers, what each code means, the maps made so far."""
        vectors = self.vectors
        made = [
            f"{key[0]}-{dims}"
            for key in self._made.names()
            if key[0] in PROJECTIONS
            for dims in (DIMS if key[0] == "pca" else key[1:])
        ]
        return ProjectorInfo(
            table=vectors.name,
            rows=len(vectors),
            dim=vectors.vector_size,
            schemes=self.schemes,
            names={scheme: NAMES[scheme] for scheme in self.schemes},
            colours=PALETTE,
            made=tuple(sorted(made)),
            umap_sample=min(UMAP_SAMPLE, len(vectors)),
        )

    def keys_json(self) -> bytes:
        """Every key in row order as one JSON list, serialised once (a million keys are worth it)."""
        return self._made.get(("keys",), lambda: json.dumps(self.vectors.index_to_key).encode())

    @property
    def schemes(self) -> tuple[str, ...]:
        """The colourings this table offers: by band only where it has corpus counts."""
        return SCHEMES if self.vectors.counts is not None else tuple(s for s in SCHEMES if s != "band")

    def layout(self, method: str = "pca", dims: int = 2) -> Layout:
        """(V, D) -> (V, dims) coordinates of every row, by `method` (pca | umap)."""
        check_choice("method", method, PROJECTIONS)
        check_choice("dims", dims, DIMS)
        if method == "pca":
            full = self._made.get(("pca",), self._pca)
            return Layout("pca", full.coordinates[:, :dims], full.explained_variance_ratio[:dims], full.fitted_on,
                          full.seconds)  # fmt: skip
        return self._made.get(("umap", dims), lambda: self._umap(dims))

    def colours(self, scheme: str) -> Colours:
        """(V,) colour value of every row by `scheme`: a band code, a theme code or the row's norm."""
        check_choice("scheme", scheme, self.schemes)
        return self._made.get(("colours", scheme), lambda: self._colours(scheme))

    def focus(self, word: str, k: int = 10, method: str = "pca", dims: int = 2) -> Focus:
        """A key (or word: "Ġ" + word in BPE tables), its k nearest rows by cosine in the full space,
        its k nearest points on the map, and each true neighbour's rank on the map."""
        k = check_int("k", k, low=1, high=len(self.vectors) - 1)
        key = resolve_key(self.vectors, word)
        row = self.vectors.index_of(key)
        points = self.layout(method, dims).coordinates  # (V, dims)
        distance = np.linalg.norm(points - points[row], axis=1)  # (V,) on the map
        distance[row] = np.inf  # the key is not its own neighbour
        found = self.vectors.most_similar(key, topn=k)
        rows = np.array([self.vectors.index_of(n) for n in found.keys])
        # subtle: rank = 1 + the points strictly closer; ties share the better rank
        ranks = [1 + int(np.count_nonzero(distance < distance[r])) for r in rows]
        on_map = np.argpartition(distance, k - 1)[:k]
        on_map = on_map[np.argsort(distance[on_map], kind="stable")]
        neighbours = tuple(MapNeighbour(key_, int(r), float(score), rank)
                           for (key_, score), r, rank in zip(found, rows, ranks, strict=True))  # fmt: skip
        count = None if self.vectors.counts is None else int(self.vectors.counts[row])
        keys = self.vectors.index_to_key
        return Focus(
            table=self.vectors.name,
            method=method,
            dims=dims,
            key=key,
            row=row,
            count=count,
            point=tuple(float(x) for x in points[row]),
            neighbours=neighbours,
            map_neighbours=tuple(keys[r] for r in on_map),
            k=k,
            kept=len(set(rows) & set(on_map.tolist())),
        )

    def compare(self, other: Vectors, k: int = 10) -> TableComparison:
        """This table against `other`, key by key (vectors.compare), with the most movers it lists."""
        return self._made.get(("compare", other.name, k), lambda: compare_tables(self.vectors, other, k=k, top=MAX_TOP))

    def compared(self, other: Vectors, k: int = 10) -> bool:
        """Whether compare(other, k) is made already, so that asking for it costs no computation."""
        return ("compare", other.name, k) in self._made.names()

    def comparison(self, other: Vectors, k: int = 10, top: int = 20) -> Comparison:
        """compare(other, k) as the page shows it: the summary and the `top` largest movers."""
        top = check_int("top", top, low=1, high=MAX_TOP)
        full = self.compare(other, k)
        summary = {name: value for name, value in vars(full).items() if name not in PER_KEY}
        return Comparison(**{**summary, "movers": full.movers[:top]})

    def displacement(self, other: Vectors, k: int = 10) -> np.ndarray:
        """(V,) float32: how far each row moved against `other` after alignment (0..2); NaN for a key
        `other` lacks."""
        comparison = self.compare(other, k)
        moved = np.full(len(self.vectors), np.nan, dtype=np.float32)
        moved[[self.vectors.key_to_index[key] for key in comparison.keys]] = comparison.displacement
        return moved

    # ---- made once each (self._made) ----------------------------------------------------------

    def _pca(self) -> Layout:
        start = time.perf_counter()
        rows = self.vectors.vectors  # (V, D) read-only float32
        axes = principal_axes(rows, PCA_COMPONENTS)
        coordinates = axes.project(rows)  # (V, 3)
        return Layout("pca", coordinates, axes.explained_variance_ratio, len(rows), time.perf_counter() - start)

    def _umap(self, dims: int) -> Layout:
        if importlib.util.find_spec("umap") is None:
            raise MissingDataError("UMAP maps need umap-learn: pip install umap-learn")
        start = time.perf_counter()
        rows = self.vectors.vectors
        sample = np.random.default_rng(self.seed).permutation(len(rows))[:UMAP_SAMPLE]
        rest = np.setdiff1d(np.arange(len(rows)), sample)
        neighbours = min(UMAP_NEIGHBOURS, len(sample) - 1)
        fit = in_child(fit_umap, rows[sample], rows[rest], dims, neighbours, self.seed, nice=UMAP_NICE)
        fitted, placed = fit.result()
        coordinates = np.empty((len(rows), dims), dtype=np.float32)
        coordinates[sample], coordinates[rest] = fitted, placed
        return Layout("umap", coordinates, None, len(sample), time.perf_counter() - start)

    def _colours(self, scheme: str) -> Colours:
        if scheme == "norm":
            return Colours(scheme, self.vectors.norms.astype(np.float32), None)
        codes, names = np.zeros(len(self.vectors), dtype=np.uint8), NAMES[scheme]
        if scheme == "band":
            for code, rows in enumerate(band_rows(self.vectors.counts, BANDS)):
                codes[rows] = code
        else:
            for _, key, theme in themed_keys(self.vectors):
                codes[self.vectors.index_of(key)] = names.index(theme)
        return Colours(scheme, codes, names)


def wire(array: np.ndarray) -> tuple[bytes, dict[str, str]]:
    """An array as raw little-endian bytes, row-major, with its dtype and shape as the headers
    X-Dtype and X-Shape say them: (3, 2) float32 -> 24 bytes, {"X-Dtype": "float32", "X-Shape": "3,2"}."""
    array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    return array.tobytes(), {"X-Dtype": array.dtype.name, "X-Shape": ",".join(map(str, array.shape))}
