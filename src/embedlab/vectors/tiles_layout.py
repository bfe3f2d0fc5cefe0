"""A table's rows laid out on a 2-D map, the table streamed: the first stage of its tiles (tiles.py).

    info = compute_layout(rows, "pca", folder / "coords.npy", progress=report)   # (V, 2) float32 .npy
    info.caption()          # 'PCA of 10,000,000 rows, centred; axes explain 18% and 11% of variance'
    write_npy(path, (V, 2), np.float32, blocks)                     # an .npy file written block by block

`rows` may be a np.memmap of a table larger than memory: it is read CHUNK rows at a time, and no
float32 or float64 copy of the whole table is ever made. PCA sums the (D, D) covariance over chunks
(projection.principal_axes), then projects chunk by chunk; UMAP is fitted on a seeded sample of
UMAP_SAMPLE rows (the projector's rule, sims/projector.py) and places every other row with the
fitted model's transform, UMAP_CHUNK rows at a time so its progress is seen.
"""

from __future__ import annotations

import mmap
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from embedlab.errors import InvalidValueError, check_choice, check_int
from embedlab.files import atomic_writer
from embedlab.vectors.projection import PROJECTIONS, fit_umap, import_umap, principal_axes

UMAP_SAMPLE = 10_000  # rows UMAP is fitted on (seeded); the others are placed by its transform
UMAP_NEIGHBOURS = 15  # UMAP's n_neighbors: a table needs more rows than this
CHUNK = 65_536  # rows read at once while streaming a table: 26 MB of float32 at D = 100
UMAP_CHUNK = 20_000  # rows placed by UMAP's transform at once (its progress steps)
Progress = Callable[[str, int, int], None]  # progress(stage, done, total)


@dataclass(frozen=True)
class LayoutInfo:
    method: str  # "pca" | "umap"
    rows: int  # V: every row has a point
    dim: int  # D of the table laid out
    fitted_on: int  # rows the layout was fitted on (PCA: all; UMAP: a seeded sample)
    explained_variance_ratio: tuple[float, float] | None  # PCA only: each axis's share of the variance
    seconds: float

    def caption(self) -> str:
        """How the map was made: 'PCA of 1,000,000 rows, centred; axes explain 18% and 11% of variance'
        or 'UMAP fitted on 10,000 of 1,000,000 rows (a seeded sample); the other 990,000 placed by it'."""
        if self.explained_variance_ratio is not None:
            first, second = (round(100 * r) for r in self.explained_variance_ratio)
            return f"PCA of {self.rows:,} rows, centred; axes explain {first}% and {second}% of variance"
        rest = self.rows - self.fitted_on
        placed = f"; the other {rest:,} placed by it" if rest else ""
        return f"UMAP fitted on {self.fitted_on:,} of {self.rows:,} rows (a seeded sample){placed}"


def check_layout_rows(method: str, shape: tuple[int, ...]) -> None:
    """Refuse a table a layout cannot map: PCA needs >= 4 rows of width >= 3 (the projector's
    rule), UMAP more rows than its UMAP_NEIGHBOURS."""
    check_choice("method", method, PROJECTIONS)
    if len(shape) != 2:
        raise InvalidValueError(f"a layout needs a (V, D) table; got shape {tuple(shape)}")
    V, D = shape
    low = 4 if method == "pca" else UMAP_NEIGHBOURS + 1
    if V < low or D < 3:
        raise InvalidValueError(f"a {method.upper()} map needs >= {low} rows of width >= 3; the table is ({V}, {D})")


def compute_layout(
    rows: np.ndarray, method: str, out_path: str | Path, *, seed: int = 0, chunk: int = CHUNK,
    progress: Progress | None = None,
) -> LayoutInfo:  # fmt: skip
    """(V, D) rows (a np.memmap is read chunk by chunk, never copied whole) -> (V, 2) float32 points
    written to out_path (.npy, atomically). PCA: the table's first two principal axes, from its
    covariance summed over chunks, each chunk projected (progress stages "axes", "projection").
    UMAP: fitted on UMAP_SAMPLE rows drawn with `seed` ("umap fit"), every other row placed by the
    fitted model's transform ("placement")."""
    check_layout_rows(method, rows.shape)
    seed, chunk = check_int("seed", seed, low=0), check_int("chunk", chunk, low=1)
    report = progress or (lambda stage, done, total: None)
    V, D = rows.shape
    start = time.perf_counter()
    if method == "pca":
        axes = principal_axes(_Checked(rows, lambda done: report("axes", done, V)), 2, chunk)
        blocks = (axes.project(read_rows(rows, a, a + chunk)) for a in range(0, V, chunk))
        write_npy(out_path, (V, 2), np.float32, _reported(blocks, "projection", V, report))
        ratio = axes.explained_variance_ratio
        return LayoutInfo("pca", V, D, V, (ratio[0], ratio[1]), time.perf_counter() - start)
    sample = np.sort(np.random.default_rng(seed).permutation(V)[:UMAP_SAMPLE])  # (S,) rows
    fit_rows = finite_rows(np.asarray(rows[sample], np.float32), sample)
    report("umap fit", 0, 1)
    if len(sample) == V:  # the whole table is the sample: fit_umap's exact-neighbour path for small ones
        fitted, _ = fit_umap(fit_rows, fit_rows[:0], 2, min(UMAP_NEIGHBOURS, V - 1), seed)
        report("umap fit", 1, 1)
        write_npy(out_path, (V, 2), np.float32, [fitted])
        return LayoutInfo("umap", V, D, V, None, time.perf_counter() - start)
    reducer = import_umap().UMAP(n_components=2, n_neighbors=UMAP_NEIGHBOURS, random_state=seed)
    fitted = reducer.fit_transform(fit_rows).astype(np.float32)  # (S, 2)
    report("umap fit", 1, 1)

    def placed(a: int) -> np.ndarray:
        block = np.empty((min(UMAP_CHUNK, V - a), 2), np.float32)
        lo, hi = np.searchsorted(sample, [a, a + len(block)])
        mine = np.zeros(len(block), bool)
        mine[sample[lo:hi] - a] = True  # rows of the sample keep their fitted points
        block[mine] = fitted[lo:hi]
        if not mine.all():
            rest = np.flatnonzero(~mine)
            block[rest] = reducer.transform(finite_rows(read_rows(rows, a, a + len(block))[rest], a + rest))
        return block

    blocks = (placed(a) for a in range(0, V, UMAP_CHUNK))
    write_npy(out_path, (V, 2), np.float32, _reported(blocks, "placement", V, report))
    return LayoutInfo("umap", V, D, len(sample), None, time.perf_counter() - start)


class _Checked:
    """`rows` as principal_axes reads them (shape, slices), each slice checked finite and reported."""

    def __init__(self, rows: np.ndarray, report: Callable[[int], None]) -> None:
        self.rows, self.shape, self.report = rows, rows.shape, report

    def __getitem__(self, part: slice) -> np.ndarray:
        block = finite_rows(read_rows(self.rows, part.start, part.stop), range(len(self.rows))[part])
        self.report(min(part.stop, len(self.rows)))
        return block


def read_rows(rows: np.ndarray, start: int, stop: int) -> np.ndarray:
    """rows[start:stop] as float32. From a whole np.memmap (np.load's mmap_mode) the bytes are read
    from its file rather than through the mapping: pages touched through a mapping stay counted in
    this process's resident memory until it ends (4 GB of RSS for a 10M x 100 table, though the
    kernel may drop them), pages read join only the system's file cache."""
    stop = min(stop, len(rows))
    whole = isinstance(rows, np.memmap) and isinstance(rows.base, mmap.mmap) and rows.mode != "c"  # "c": edits unsaved
    if not (whole and rows.flags.c_contiguous):
        return np.asarray(rows[start:stop], np.float32)
    width = rows.strides[0]  # bytes a row
    with open(rows.filename, "rb") as f:
        f.seek(rows.offset + start * width)
        block = np.fromfile(f, rows.dtype, count=(stop - start) * width // rows.itemsize)
    return block.reshape(stop - start, *rows.shape[1:]).astype(np.float32, copy=False)


def finite_rows(block: np.ndarray, rows: np.ndarray | range) -> np.ndarray:
    """`block` (n, D) of the table's rows `rows` (n,), unless one holds NaN or ±inf: that row is named."""
    bad = ~np.isfinite(block).all(axis=1)
    if bad.any():
        raise InvalidValueError(f"row {int(rows[bad.argmax()])} holds NaN or ±inf; a map needs finite rows")
    return block


def _reported(blocks: Iterable[np.ndarray], stage: str, total: int, report: Progress) -> Iterable[np.ndarray]:
    done = 0
    for block in blocks:
        yield block
        done += len(block)
        report(stage, done, total)


def write_npy(path: str | Path, shape: tuple[int, ...], dtype: type, blocks: Iterable[np.ndarray]) -> Path:
    """An .npy file of `shape` written block by block along its first axis (atomic: temporary name,
    then rename), so a (V, 2) array of ten million rows is never whole in memory. -> path"""
    dtype = np.dtype(dtype).newbyteorder("<")
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": tuple(shape)}
    written = 0
    with atomic_writer(path) as f:
        np.lib.format.write_array_header_2_0(f, header)
        for block in blocks:
            f.write(np.ascontiguousarray(block, dtype=dtype).tobytes())
            written += len(block)
        assert written == shape[0], f"{path}: {written} rows written of {shape[0]}"
    return Path(path)
