"""floret's text vectors (.floret): what the `floret` package's save_floret_vectors writes and
spaCy's `init vectors --mode floret` reads. Only the bucket rows: a floret table hashes its words
into them too, so they answer any word without a list of words.

    write_floret_text(ngram_rows, "v.floret", min_n=3, max_n=6, hash_count=2)

The layout: a header line "bucket dim minn maxn hashCount hashSeed BOW EOW" (for example
"50000 100 3 6 2 2166136261 < >"), then one line per bucket row: its index and its D numbers,
space-separated. floret prints 5 significant digits; these are the shortest decimals that read back
as the same float32.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from embedlab.files import atomic_writer
from embedlab.hashing.murmur import FLORET_SEED
from embedlab.hashing.ngrams import BOW, EOW
from embedlab.vectors.io.table import check_finite_to_write
from embedlab.vectors.io.text import format_rows

ROWS_PER_WRITE = 65536  # bucket rows formatted at once


def write_floret_text(
    ngram_rows: np.ndarray, path: str | Path, *, min_n: int, max_n: int, hash_count: int, replace: bool = True
) -> Path:
    """(B, D) float32 bucket rows of a floret table -> a .floret text file at `path`, atomically
    (replace False: only if `path` is new) -> path. NaN or ±inf is refused before the file is touched."""
    path = Path(path)
    buckets, dim = ngram_rows.shape
    check_finite_to_write(Path(f"{path} (bucket rows)"), None, ngram_rows)
    with atomic_writer(path, "wb", replace) as f:
        f.write(f"{buckets} {dim} {min_n} {max_n} {hash_count} {FLORET_SEED} {BOW} {EOW}\n".encode())
        for start in range(0, buckets, ROWS_PER_WRITE):
            rows = format_rows(np.asarray(ngram_rows[start : start + ROWS_PER_WRITE], dtype=np.float32), " ")
            f.write(b"".join(b"%d %s\n" % (start + i, row) for i, row in enumerate(rows)))
    return path
