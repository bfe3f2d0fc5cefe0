"""How often each row of a trained table was updated, against how often its token occurs.

A run folder written by `embedlab train` holds update_counts.npy, (V,) int64: the gradient steps
each input row received. A row only moves when its token is in a batch, so rare tokens get few
updates; word2vec's subsampling of frequent words (and its window) bend the relation away from a
straight proportion.

    updates = read_update_counts("runs/wiki")                     # (V,) int64
    report = updates_by_frequency(vectors.counts, updates, vectors.index_to_key)
    report = run_updates(Vectors.load("runs/wiki"), "runs/wiki")  # the same, read and checked
    report.bands, report.spearman, report.points
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_int
from embedlab.tokenizer.vocab import BANDS
from embedlab.vectors.evaluate import spearman  # Pearson of average ranks, float64; NaN if constant
from embedlab.vectors.io import RUN_TABLE
from embedlab.vectors.table import Vectors

UPDATE_COUNTS = "update_counts.npy"  # inside a run folder, beside RUN_TABLE


def read_update_counts(source: str | Path) -> np.ndarray:
    """A run folder (or its vectors.safetensors) -> (V,) int64 update counts, read without pickles."""
    path = Path(source)
    folder = path.parent if path.name == RUN_TABLE and path.is_file() else path
    file = folder / UPDATE_COUNTS
    if not file.is_file():
        raise MissingDataError(
            f"{source} has no {UPDATE_COUNTS}: only folders written by `embedlab train` record update counts"
        )
    try:
        counts = np.load(file, allow_pickle=False)
    except (ValueError, OSError) as err:
        raise FileFormatError(f"{file}: not a readable .npy array ({err})") from None
    if counts.ndim != 1 or not np.issubdtype(counts.dtype, np.integer) or (counts < 0).any():
        raise FileFormatError(f"{file}: expected (V,) integers >= 0; got {counts.dtype} {counts.shape}")
    return counts.astype(np.int64)


@dataclass(frozen=True)
class UpdateBand:
    name: str
    floor: int  # the band holds rows with floor <= corpus count < the next band's floor
    rows: int
    mean_count: float  # NaN for an empty band
    mean_updates: float
    updates_per_occurrence: float  # the band's updates over its occurrences


@dataclass(frozen=True)
class UpdateFrequency:
    bands: tuple[UpdateBand, ...]  # most frequent first
    spearman: float  # rank correlation of corpus count and update count over all rows
    rows: int
    never_updated: int  # rows with update count 0
    points: tuple[tuple[str, int, int], ...]  # (key, count, updates), a sample across frequency ranks

    def to_dict(self) -> dict:
        """Plain JSON: NaN (an empty band, a constant column) becomes None."""
        return {
            "bands": [{k: _finite(v) for k, v in asdict(b).items()} for b in self.bands],
            "spearman": _finite(self.spearman),
            "rows": self.rows,
            "never_updated": self.never_updated,
            "points": {
                "keys": [p[0] for p in self.points],
                "counts": [p[1] for p in self.points],
                "updates": [p[2] for p in self.points],
            },
        }


def _finite(x):
    return None if isinstance(x, float) and not math.isfinite(x) else x


def updates_by_frequency(
    counts: Sequence[int] | np.ndarray,
    updates: Sequence[int] | np.ndarray,
    keys: Sequence[str],
    points: int = 1000,
    bands: Sequence[tuple[int, str]] = BANDS,
) -> UpdateFrequency:
    """Corpus counts (V,), update counts (V,), keys (V,) -> mean updates per count band, their rank
    correlation, and up to `points` rows spread evenly over the frequency ranks (for a scatter).

    `bands` are (floor, name) pairs with strictly decreasing floors ending at 0 (default: the
    tokenizer's named bands, `embedlab.tokenizer.vocab.BANDS`).
    """
    counts, updates = np.asarray(counts), np.asarray(updates)
    n = len(keys)
    for name, array in (("counts", counts), ("updates", updates)):
        if array.shape != (n,) or not np.issubdtype(array.dtype, np.integer):
            raise InvalidValueError(f"{name} must be {n} integers, one per key; got {array.dtype} {array.shape}")
    points = check_int("points", points, low=1)
    floors = [check_int("band floor", floor, low=0) for floor, _ in bands]
    if not floors or floors[-1] != 0 or any(a <= b for a, b in zip(floors, floors[1:], strict=False)):
        raise InvalidValueError(f"band floors must decrease strictly and end at 0; got {floors}")
    results = []
    for (floor, name), ceiling in zip(bands, [math.inf, *floors[:-1]], strict=True):
        inside = (counts >= floor) & (counts < ceiling)
        c, u = counts[inside].astype(np.float64), updates[inside].astype(np.float64)
        if inside.any():
            per = float(u.sum() / c.sum()) if c.sum() > 0 else math.nan
            results.append(UpdateBand(name, floor, int(inside.sum()), float(c.mean()), float(u.mean()), per))
        else:
            results.append(UpdateBand(name, floor, 0, math.nan, math.nan, math.nan))
    by_rank = np.argsort(-counts, kind="stable")  # most frequent first
    chosen = by_rank[np.unique(np.linspace(0, n - 1, min(points, n)).round().astype(np.int64))] if n else by_rank
    sample = tuple((keys[i], int(counts[i]), int(updates[i])) for i in chosen)
    rho = spearman(counts, updates) if n >= 2 else math.nan
    return UpdateFrequency(tuple(results), rho, n, int((updates == 0).sum()), sample)


def run_updates(vectors: Vectors, source: str | Path, points: int = 1000) -> UpdateFrequency:
    """A run's table (V, D) with corpus counts, and the folder it was loaded from -> its
    `updates_by_frequency`."""
    updates = read_update_counts(source)
    if vectors.counts is None:
        raise MissingDataError(f"{vectors.name} has no corpus counts to set against its update counts")
    if len(updates) != len(vectors):
        raise FileFormatError(f"{source}: {len(updates)} update counts for a table of {len(vectors)} rows")
    return updates_by_frequency(vectors.counts, updates, vectors.index_to_key, points)
