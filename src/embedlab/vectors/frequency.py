"""Corpus-frequency bands: how well a row can be trained, judged by how often its key occurs.

    BANDS                               (floor, name) pairs, most frequent first, the last floor 0
    band(250_000)                       'very frequent': the band of one count
    band_rows(counts, BANDS)            the rows of each band: (n_b,) int64 row indices per band
    frequency_bands(counts, 100)        FrequencyBands: ids seen >= 100 times, and the rare rest
    word_rows(vectors.index_to_key, 3)  the first 3 rows that hold words: a table's most frequent ones

A row moves only when its key is in a batch, so a rare key's row gets few updates: the tokenizer's
statistics, the norms of a trained table (analysis.py) and the lab's update counts are all read
band by band, with these bands.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from embedlab.errors import InvalidValueError, check_int

# Named bands of corpus count, most frequent first: how well a row can be trained.
BANDS = ((100_000, "very frequent"), (10_000, "frequent"), (1_000, "common"), (100, "uncommon"), (0, "rare"))


def band(count: int, bands: Sequence[tuple[int, str]] = BANDS) -> str:
    """The name of the band a corpus count falls in.

    >>> band(250_000), band(42)
    ('very frequent', 'rare')
    """
    return next(name for floor, name in bands if count >= floor)


def band_rows(counts: Sequence[int] | np.ndarray, bands: Sequence[tuple[int, str]] = BANDS) -> list[np.ndarray]:
    """counts (V,) -> one (n_b,) int64 array of row indices per band, in the order of `bands`: band b
    holds the rows with floor_b <= count < floor_(b-1). `bands` are (floor, name) pairs with strictly
    decreasing floors ending at 0, so every row is in exactly one band.

    >>> [rows.tolist() for rows in band_rows([500, 3, 0, 120], ((100, "often"), (0, "seldom")))]
    [[0, 3], [1, 2]]
    """
    floors = [check_int("band floor", floor, low=0) for floor, _ in bands]
    if not floors or floors[-1] != 0 or any(a <= b for a, b in zip(floors, floors[1:], strict=False)):
        raise InvalidValueError(f"band floors must decrease strictly and end at 0; got {floors}")
    counts = np.asarray(counts)
    if counts.ndim != 1 or not (counts.size == 0 or np.issubdtype(counts.dtype, np.integer)):
        raise InvalidValueError(f"counts must be a 1-D array of integers; got {counts.dtype} {counts.shape}")
    ceilings = [np.inf, *floors[:-1]]
    return [np.flatnonzero((counts >= low) & (counts < high)) for low, high in zip(floors, ceilings, strict=True)]


@dataclass(frozen=True)
class FrequencyBands:
    """Token ids split by corpus count at `threshold`."""

    threshold: int
    well_trained: list[int]  # ids seen at least `threshold` times
    rare: list[int]  # ids seen fewer times (never-seen ids included)

    @property
    def rare_share(self) -> float:
        return len(self.rare) / (len(self.rare) + len(self.well_trained))


def frequency_bands(counts: Sequence[int] | np.ndarray, threshold: int) -> FrequencyBands:
    """Split ids (V,) into well-trained (count >= threshold) and rare rows: two bands of band_rows.

    >>> frequency_bands([500, 3, 0, 120], threshold=100).rare
    [1, 2]
    """
    threshold = check_int("threshold", threshold, low=1)
    well, rare = band_rows(counts, ((threshold, "well trained"), (0, "rare")))
    return FrequencyBands(threshold, well.tolist(), rare.tolist())


def word_rows(keys: Iterable[str], n: int) -> list[int]:
    """The first `n` rows (fewer if the table has fewer) whose keys are words, letters only and two at
    least, in table order. A trained run's rows are sorted by count and a WordPiece vocabulary lists
    its words after its special tokens ([PAD], [unused0], ...) and single characters, so these are
    the table's most frequent words: where a page opens when it knows no better.

    >>> word_rows(["[PAD]", "[unused0]", "!", "a", "the", "##s", "of", "cat"], 3)
    [4, 6, 7]
    """
    n = check_int("n", n, low=0)
    rows = []
    for row, key in enumerate(keys):
        if len(rows) == n:
            break
        if len(key) > 1 and key.isalpha():
            rows.append(row)
    return rows
