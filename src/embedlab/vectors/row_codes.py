"""Each row's norm and colour codes, for a map of any size: written once beside its key store.

    write_row_attributes(source, keys, root, progress=report)
    # -> {"norm": root/norms.npy, "theme": root/codes-theme.npy, "band": root/codes-band.npy}

    norms.npy        (V,) float32 each row's L2 norm, the table streamed a chunk at a time (rowscan.row_chunks)
    codes-theme.npy  (V,) uint8 THEME_NAMES index: 0 "other", 1 + i for the i-th THEMES group whose word
                     the row is the key of (the word itself, or its byte-level piece "Ġ" + word)
    codes-band.npy   (V,) uint8 BAND_NAMES index: the corpus-frequency band of the row's count; only for
                     a table with counts

The codes are the lab projector's (sims/projector.py colours a small table the same way). Each file
is written atomically and skipped when present: map_build removes them when the table changes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from embedlab.data.themes import OTHER, THEMES
from embedlab.errors import InvalidValueError
from embedlab.files import atomic_writer
from embedlab.tokenizer.bytes import word_key
from embedlab.vectors.frequency import BANDS, band_rows
from embedlab.vectors.keystore import KeyStore
from embedlab.vectors.map_source import MapSource
from embedlab.vectors.rowscan import row_chunks

NORMS = "norms.npy"
THEME_NAMES = (OTHER, *THEMES)  # code -> name
BAND_NAMES = tuple(name for _, name in BANDS)  # code -> name, most frequent first
Progress = Callable[[str, int, int], None]  # (stage, done, total)


def write_row_attributes(
    source: MapSource, keys: KeyStore, root: str | Path, progress: Progress | None = None
) -> dict[str, Path]:
    """Write what `root` lacks of norms.npy, codes-theme.npy and codes-band.npy (with counts only) for
    `source`, whose keys are `keys` -> {"norm" | "theme" | "band": its file}. `progress(stage, done,
    total)` hears "norms" row by row and "codes" scheme by scheme."""
    root = Path(root)
    report = progress or (lambda stage, done, total: None)
    V = len(source.rows)
    if len(keys) != V:
        raise InvalidValueError(f"the key store holds {len(keys):,} keys for {V:,} rows: it is another table's")
    files = {"norm": root / NORMS, "theme": root / "codes-theme.npy"}
    if not files["norm"].exists():
        write_norms(source.rows, files["norm"], lambda done: report("norms", done, V))
    schemes = {"theme": lambda: theme_codes(keys)}
    if source.counts is not None:
        files["band"] = root / "codes-band.npy"
        schemes["band"] = lambda: band_codes(source.counts)
    for done, (scheme, codes) in enumerate(schemes.items()):
        report("codes", done, len(schemes))
        if not files[scheme].exists():
            with atomic_writer(files[scheme], "wb") as f:
                np.save(f, codes(), allow_pickle=False)
    report("codes", len(schemes), len(schemes))
    return files


def write_norms(rows: np.ndarray, path: Path, progress: Callable[[int], None] | None = None) -> Path:
    """(V, D) rows -> `path`, a (V,) float32 .npy of their L2 norms, streamed: written a chunk at a
    time, atomically; `progress(rows done)` after each chunk."""
    V = len(rows)
    with atomic_writer(path, "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": (V,)})
        for start, block in row_chunks(rows):
            norms = np.sqrt(np.einsum("ij,ij->i", block, block, dtype=np.float32))  # (n,)
            f.write(norms.astype("<f4").tobytes())
            if progress is not None:
                progress(start + len(block))
    return path


def theme_codes(keys: KeyStore) -> np.ndarray:
    """(V,) uint8: 1 + the THEMES group of each row whose key is a themed word (or "Ġ" + it), else 0.

    A word in two groups takes the later one's code, as the projector's colouring does.
    """
    codes = np.zeros(len(keys), dtype=np.uint8)
    for code, words in enumerate(THEMES.values(), start=1):
        for word in words:
            key = word_key(word, keys)  # a KeyStore answers `in` by a hash look-up
            if key is not None:
                codes[keys.find(key)] = code
    return codes


def band_codes(counts: np.ndarray) -> np.ndarray:
    """(V,) counts -> (V,) uint8 index in BANDS of each row's band.

    >>> band_codes(np.array([250_000, 42, 1_500])).tolist()
    [0, 4, 2]
    """
    codes = np.zeros(len(counts), dtype=np.uint8)
    for code, rows in enumerate(band_rows(counts, BANDS)):
        codes[rows] = code
    return codes
