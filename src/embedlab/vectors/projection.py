"""Projections of a table's rows for a picture: 2-D maps, a whole table's principal axes, frames aligned.

    project_2d(vectors, method="pca")     (n, 2) coordinates for a plot: PCA or UMAP
    pca_2d(matrix)                        (n, 2) scores on the first two principal axes, signs fixed
    principal_axes(matrix, 3)             a whole table's first principal axes, from its (D, D)
                                          covariance summed over chunks (a million rows, no copy)
    project_frame(rows, previous)         (W, 2) PCA coordinates turned to line up with the frame
                                          before (align_2d): maps that move only as the rows move
    fit_umap(sample, rest, dims, k, seed) UMAP fitted on `sample`, `rest` placed by the fitted model
    import_umap()                         umap-learn, its numba code compiled once a machine

Every function is pure; a map says how it was made (`Projection.caption()`), since a PCA of 30 rows
is not a picture of the table.
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from embedlab.errors import InvalidValueError, MissingDataError, check_choice, check_int
from embedlab.files import Matrix
from embedlab.vectors import similarity as sim
from embedlab.vectors.compare import orthogonal_procrustes
from embedlab.vectors.table import Vectors

PROJECTIONS = ("pca", "umap")
# umap's own rule: below this many rows it takes each row's exact neighbours from all pairwise distances
UMAP_EXACT_BELOW = 4096


@dataclass(frozen=True, eq=False)
class Projection:
    method: str
    keys: tuple[str, ...]  # one per row of `coordinates`
    coordinates: Matrix  # (n, 2) float32
    explained_variance_ratio: tuple[float, float] | None  # PCA only: share of variance per axis
    n_points: int  # rows projected (= len(keys)): a map of 30 rows is not a map of the table
    centred: bool  # the mean row was subtracted first (PCA always; UMAP never)
    normalised: bool  # rows were scaled to unit length first, so only directions count

    def caption(self) -> str:
        """How the map was made, in one line:
        'PCA of 27 rows, centred, not normalised; axes explain 18% and 11% of variance'."""
        text = (f"{self.method.upper()} of {self.n_points} rows, {'' if self.centred else 'not '}centred, "
                f"{'' if self.normalised else 'not '}normalised")  # fmt: skip
        if self.explained_variance_ratio is None:
            return text
        first, second = (round(100 * r) for r in self.explained_variance_ratio)
        return f"{text}; axes explain {first}% and {second}% of variance"


def project_2d(
    data: Vectors | np.ndarray,
    keys: Sequence[str] | None = None,
    method: str = "pca",
    seed: int = 0,
    n_neighbors: int = 15,
    normalize: bool = False,
) -> Projection:
    """(n, D) -> (n, 2) coordinates by PCA (deterministic signs) or UMAP (pip install umap-learn).

    With a `Vectors`, `keys` choose the rows (all by default); with a matrix (an array, or a torch
    tensor read as one), they name its rows ("0", "1", ... by default). `normalize` scales every
    row to unit length before projecting, so long rows (frequent tokens) do not dominate the axes.
    `n_neighbors` is UMAP's neighbourhood size, fixed by `seed`.
    """
    check_choice("method", method, PROJECTIONS)
    if isinstance(data, Vectors):
        keys = data.index_to_key if keys is None else list(keys)
        matrix = data.vectors[[data.index_of(key) for key in keys]]
    else:
        matrix = sim.as_array(data)
        keys = [str(i) for i in range(matrix.shape[0])] if keys is None else list(keys)
        if matrix.ndim != 2 or len(keys) != matrix.shape[0]:
            raise InvalidValueError(f"need an (n, D) matrix and n keys; got {tuple(matrix.shape)} and {len(keys)}")
    n, D = matrix.shape
    if n < 2 or D < 2:
        raise InvalidValueError(f"a 2-D projection needs at least 2 rows of width >= 2; got ({n}, {D})")
    if normalize:
        matrix = sim.unit_rows(matrix.astype(np.float64))  # (n, D); a zero row stays zero
    if method == "pca":
        coordinates, ratio = pca_2d(matrix)
        return Projection("pca", tuple(keys), coordinates.astype(np.float32), ratio, n, True, normalize)
    n_neighbors = check_int("n_neighbors", n_neighbors, low=2, high=n - 1)
    coordinates, _ = fit_umap(matrix.astype(np.float32), matrix[:0], 2, n_neighbors, check_int("seed", seed))
    return Projection("umap", tuple(keys), coordinates, None, n, False, normalize)


def fit_umap(
    sample: np.ndarray, rest: np.ndarray, dims: int, neighbours: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """UMAP fitted on `sample` (n, D) -> its (n, dims) float32 coordinates, and (m, dims) for `rest`
    (m, D) placed by the fitted model (m may be 0).

    Below UMAP_EXACT_BELOW rows umap finds exact neighbours from every pairwise distance, which it
    computes through scikit-learn with a numba metric called from Python once a pair (3,500 rows:
    6 million calls, about 25 s of a 30 s fit). With nothing to place, the distances are computed
    here by scipy's pdist (float64: under a second, 134 MB at 4,095 rows) and handed over as a
    precomputed metric. The neighbour graph is the same, its weights equal to float32 rounding
    (1,500 rows: 1.2e-5 at most), so the map is as good, though not the same coordinates: 500 epochs
    of seeded SGD amplify rounding (tests/vectors/test_projection.py compares how well both keep
    neighbours).
    """
    umap = import_umap()
    if len(rest) or len(sample) >= UMAP_EXACT_BELOW:
        reducer = umap.UMAP(n_components=dims, n_neighbors=neighbours, random_state=seed)
        fitted = reducer.fit_transform(sample).astype(np.float32)
        placed = reducer.transform(rest).astype(np.float32) if len(rest) else np.empty((0, dims), np.float32)
        return fitted, placed
    from scipy.spatial.distance import pdist, squareform

    reducer = umap.UMAP(n_components=dims, n_neighbors=neighbours, random_state=seed, metric="precomputed")
    with warnings.catch_warnings():  # that a precomputed map has no inverse_transform: never asked for here
        warnings.filterwarnings("ignore", "using precomputed metric")
        fitted = reducer.fit_transform(squareform(pdist(sample))).astype(np.float32)
    return fitted, np.empty((0, dims), np.float32)


@functools.cache
def import_umap() -> ModuleType:
    """umap-learn, with numba's on-disk cache turned on for its compiled functions and pynndescent's.

    Most of them are `njit` without `cache=True`, so every process compiled them again on its first
    fit: about 20 s of CPU before a 300-row map that then takes 0.5 s (a lab's first UMAP map, each
    test process). With the cache on, the code numba compiled is kept beside their sources (or in
    numba's user cache where those are read-only) and loaded by later processes; numba keys each
    entry by its source file, so an upgraded umap compiles again. A map drawn with loaded code is bit
    for bit the map of freshly compiled code (tests/vectors/test_projection.py).
    """
    try:
        import umap
    except ImportError:
        raise MissingDataError("UMAP projections need umap-learn: pip install umap-learn") from None
    from numba.core.dispatcher import Dispatcher

    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] not in ("umap", "pynndescent"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Dispatcher):
                try:
                    value.enable_caching()
                except RuntimeError:  # numba finds no place to keep it (no source file): compiled as before
                    pass
    return umap


def pca_2d(matrix: np.ndarray) -> tuple[np.ndarray, tuple[float, float]]:
    """(n, D) -> (n, 2) float64 scores on the first two principal axes, and their shares of variance.

    Each axis's sign is fixed so that its largest-magnitude loading is positive: the same input
    always gives the same picture.
    """
    matrix = sim.as_array(matrix, np.float64)
    centred = matrix - matrix.mean(axis=0)  # (n, D)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)  # vt (min(n, D), D)
    axes = vt[:2]  # (2, D)
    largest = np.take_along_axis(axes, np.abs(axes).argmax(axis=1, keepdims=True), axis=1)  # (2, 1)
    axes = axes * np.where(largest < 0, -1.0, 1.0)
    variance = np.square(singular)
    ratio = (variance[:2] / variance.sum()).tolist() if variance.sum() > 0 else [0.0, 0.0]
    return centred @ axes.T, (ratio[0], ratio[1])


@dataclass(frozen=True, eq=False)
class PrincipalAxes:
    mean: np.ndarray  # (D,) float64, the mean row
    axes: np.ndarray  # (components, D) float64, unit length, orthogonal, largest variance first
    explained_variance_ratio: tuple[float, ...]  # each axis's share of the total variance

    def project(self, matrix: np.ndarray, chunk: int = 65_536) -> np.ndarray:
        """(V, D) -> (V, components) float32 coordinates of the centred rows, chunk by chunk."""
        out = np.empty((len(matrix), len(self.axes)), dtype=np.float32)
        for start in range(0, len(matrix), chunk):
            block = np.asarray(matrix[start : start + chunk], dtype=np.float64) - self.mean
            out[start : start + chunk] = block @ self.axes.T
        return out


def principal_axes(matrix: np.ndarray, components: int = 2, chunk: int = 65_536) -> PrincipalAxes:
    """(V, D) rows -> their mean (D,) and first `components` principal axes (components, D) float64,
    with each axis's share of the variance; the signs as pca_2d's (largest loading positive).

    The (D, D) covariance is summed chunk by chunk in float64, so V can be a million rows: pca_2d's
    SVD of the centred (V, D) matrix would copy it whole in float64. Projecting is then
    (matrix - mean) @ axes.T, (V, components).

    >>> axes = principal_axes(np.array([[0.0, 0.0], [2.0, 0.1], [4.0, 0.0]]), 1)
    >>> axes.axes.round(3).tolist(), round(axes.explained_variance_ratio[0], 4)
    ([[1.0, 0.0]], 0.9992)
    """
    V, D = matrix.shape
    components = check_int("components", components, low=1, high=D)
    chunk = check_int("chunk", chunk, low=1)
    total, gram = np.zeros(D), np.zeros((D, D))
    for start in range(0, V, chunk):
        block = np.asarray(matrix[start : start + chunk], dtype=np.float64)  # (c, D)
        total += block.sum(axis=0)
        gram += block.T @ block
    mean = total / V
    covariance = gram / V - np.outer(mean, mean)  # (D, D), E[x xᵀ] − μ μᵀ
    values, vectors = np.linalg.eigh(covariance)  # ascending
    order = np.argsort(values)[::-1][:components]
    axes = vectors[:, order].T  # (components, D)
    largest = np.take_along_axis(axes, np.abs(axes).argmax(axis=1, keepdims=True), axis=1)
    axes = axes * np.where(largest < 0, -1.0, 1.0)
    variance = np.clip(values, 0.0, None)
    shares = variance[order] / variance.sum() if variance.sum() > 0 else np.zeros(components)
    return PrincipalAxes(mean, axes, tuple(float(x) for x in shares))


def align_2d(points: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """(W, 2) -> (W, 2): `points` turned by the 2 × 2 orthogonal matrix (rotation or reflection) that
    brings them closest to `reference` (W, 2) in least squares. Both are taken as centred.

    Orthogonal Procrustes (compare.orthogonal_procrustes): with pointsᵀ reference = U S Vᵀ the best
    turn is U Vᵀ. A mirrored copy comes back unmirrored: align_2d(p * [-1, 1], p) == p.
    """
    return points @ orthogonal_procrustes(points, reference)  # turned by a (2, 2)


def project_frame(rows: np.ndarray, previous: np.ndarray | None = None) -> tuple[np.ndarray, tuple[float, float]]:
    """(W, D) rows -> (W, 2) float64 coordinates on their own first two principal axes (rows centred,
    not normalised), turned to line up with `previous` (W, 2) when given; and the two axes' shares
    of the variance."""
    coordinates, variance = pca_2d(rows)
    return (coordinates if previous is None else align_2d(coordinates, previous)), variance
