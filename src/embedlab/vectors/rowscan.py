"""Exact nearest rows by cosine over a table of any size, read a chunk at a time: bounded memory.

    rows, cosines = nearest_rows(table, norms, row=42, k=10)   # (k,) int64, (k,) float32, best first
    for start, block in row_chunks(table): ...                 # (n, D) blocks, their pages let go after each

A click on a map asks for one row's neighbours in the table's own space. The table may be a 4 GB
memory map (10,000,000 x 100 float32): one query is one pass over it, a matrix-vector product per
chunk, keeping only the k best so far. When the table is a read-only memory map (np.load(mmap_mode=
"r"), a fastText .bin's input), each chunk's pages are dropped from this process's resident set once
it is scanned (madvise MADV_DONTNEED): the file stays in the page cache, so the next scan reads it
from memory, but the server's RSS holds one chunk, not the table.

Cosine is a.b / (|a| |b|) with the norms given (norms.npy of the map); a zero row has cosine 0 with
every row (as vectors.similarity's unit_rows make it), a row holding NaN or ±inf is never a neighbour.
Equal cosines rank by lower row: the answer is one list, whatever the chunk size.

Measured on a 2-core machine shared with other jobs (so: ranges), a query of 10 neighbours over a
memory-mapped .npy already in the page cache: 1,000,000 x 100 (400 MB) 40-50 ms when the machine
was quiet, 180-330 ms while other processes held the cores; 10,000,000 x 100 (4 GB) 0.7-1.1 s
(1.3-3.8 s busy), the process's peak RSS 190 MB. Dropping the pages cost 0-15% against keeping them.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator

import numpy as np

from embedlab.errors import InvalidValueError, check_int

# bytes of rows scanned at once (83,886 rows of width 100): what a scan holds resident. On 1,000,000 x 100
# (a quiet moment of a 2-core machine) 6.5 MB chunks took 51 ms a query, 26 MB 45 ms, 105 MB 43 ms
CHUNK_BYTES = 32 << 20
# a memory-mapped table this small stays resident once scanned; a larger one is dropped chunk by chunk,
# so a server's memory stays bounded. On 1,000,000 x 100 (400 MB) a scan took 78 ms kept resident and
# 141 ms read again from the page cache each time (minor faults); at 10,000,000 x 100 the 4 GB would stay
KEEP_BYTES = 1 << 30


def nearest_rows(
    rows: np.ndarray, norms: np.ndarray, row: int, k: int, *, chunk: int | None = None, keep: int = KEEP_BYTES
) -> tuple[np.ndarray, np.ndarray]:
    """(V, D) rows, (V,) norms -> the k rows of largest cosine with `row` (itself excluded): rows
    (k,) int64 and their cosines (k,) float32, best first, equal cosines by lower row. `chunk`: rows
    scanned at once (None: CHUNK_BYTES of them); a memory-mapped `rows` of more than `keep` bytes
    leaves this process's resident set chunk by chunk (row_chunks).

    >>> table = np.array([[1, 0], [0, 1], [1, 1], [2, 0]], dtype=np.float32)
    >>> nearest_rows(table, np.linalg.norm(table, axis=1), row=0, k=2)[0].tolist()
    [3, 2]
    """
    V = len(rows)
    if rows.ndim != 2 or np.shape(norms) != (V,):
        raise InvalidValueError(f"need rows (V, D) and norms (V,); got {rows.shape} and {np.shape(norms)}")
    row = check_int("row", row, low=0, high=V - 1)
    k = check_int("k", k, low=1, high=V - 1)  # its neighbours are the other V - 1 rows
    chunk = chunk_rows(rows) if chunk is None else check_int("chunk", chunk, low=1)
    query = np.array(rows[row], dtype=np.float32)  # (D,) a copy: the row's page may be dropped below
    scale = np.float32(norms[row])
    best_cos, best_rows = np.empty(0, np.float32), np.empty(0, np.int64)
    for start, block in row_chunks(rows, chunk, release=rows.nbytes > keep):
        cos = _cosines(block, query, norms[start : start + len(block)], scale)  # (n,)
        if start <= row < start + len(block):
            cos[row - start] = -np.inf
        if len(best_rows) == k:  # subtle: later rows lose ties, so only a strictly larger cosine gets in
            found = np.flatnonzero(cos > best_cos[-1])
            found = found[_best(cos[found], k)]
        else:
            found = _best(cos, k + 1)  # one more: the query row may be among them, at -inf
        found = found[found + start != row]
        merged_cos, merged_rows = np.concatenate([best_cos, cos[found]]), np.concatenate([best_rows, found + start])
        order = np.lexsort((merged_rows, -merged_cos))[:k]
        best_cos, best_rows = merged_cos[order], merged_rows[order]
    return best_rows, best_cos.astype(np.float32, copy=False)


def chunk_rows(rows: np.ndarray) -> int:
    """How many rows of `rows` (V, D) make CHUNK_BYTES (one at least).

    >>> chunk_rows(np.zeros((10, 100), np.float32))
    83886
    """
    return max(1, CHUNK_BYTES // max(1, rows.shape[1] * rows.itemsize))


def row_chunks(rows: np.ndarray, chunk: int | None = None, *, release: bool = True) -> Iterator[tuple[int, np.ndarray]]:
    """(start, rows[start : start + chunk]) for each chunk of rows in order (None: chunk_rows(rows) of
    them). When `rows` is a read-only memory map (and `release`), each block's pages leave this process's resident
    set once the caller asks for the next block (or stops): a block must not be used after that
    (copy what is kept)."""
    mapping, chunk = _mapping(rows) if release else None, chunk or chunk_rows(rows)
    for start in range(0, len(rows), chunk):
        block = rows[start : start + chunk]
        try:
            yield start, block if block.flags.aligned else np.array(block)  # BLAS needs aligned floats
        finally:
            if mapping is not None:
                _release(mapping, block)


def _cosines(block: np.ndarray, query: np.ndarray, norms: np.ndarray, scale: np.float32) -> np.ndarray:
    """(n, D) rows, (D,) query, (n,) their norms, the query's norm -> (n,) float32 cosines: 0 where
    either norm is 0, -inf where a row (or the query) holds NaN or ±inf."""
    dots = block @ query  # (n,)
    lengths = np.multiply(norms, scale, dtype=np.float32)  # (n,)
    cos = np.divide(dots, lengths, out=np.zeros_like(dots), where=lengths > 0)
    # subtle: a NaN norm makes `where` false (a 0, not a NaN); two sums find such rows without a pass
    # that writes, so a clean table (nearly always) pays two reductions, not three masks
    if not (np.isfinite(dots.sum()) and np.isfinite(lengths.sum())):
        cos[~(np.isfinite(dots) & np.isfinite(lengths))] = -np.inf
    return cos


def _best(scores: np.ndarray, k: int) -> np.ndarray:
    """The indices of the k largest `scores` (all of them if fewer), equal scores by lower index, in
    no order: argpartition finds the k-th value, then every larger one and the first equal ones.

    >>> sorted(_best(np.array([0.5, 0.9, 0.5, 0.5, 0.1]), 3).tolist())
    [0, 1, 2]
    """
    if len(scores) <= k:
        return np.arange(len(scores))
    kth = scores[np.argpartition(scores, len(scores) - k)[len(scores) - k]]  # the k-th largest value
    above = np.flatnonzero(scores > kth)
    return np.concatenate([above, np.flatnonzero(scores == kth)[: k - len(above)]])


def _mapping(rows: np.ndarray) -> tuple[mmap.mmap, int] | None:
    """The read-only memory map under `rows` and the address where it starts, or None (rows in
    memory, or writable: dropping a private writable map's pages would drop what was written)."""
    if rows.flags.writeable or not hasattr(mmap, "MADV_DONTNEED"):  # (no madvise on Windows)
        return None
    base = rows
    while base is not None and not isinstance(base, mmap.mmap):  # np.frombuffer's base is a memoryview of it
        base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
    if base is None or len(base) == 0:
        return None
    return base, np.frombuffer(base, np.uint8, count=1).ctypes.data


def _release(mapping: tuple[mmap.mmap, int], block: np.ndarray) -> None:
    """Drop `block`'s pages from this process's resident set (the page cache keeps them)."""
    mm, address = mapping
    start = block.ctypes.data - address
    if not 0 <= start <= len(mm) or block.nbytes == 0:
        return
    first = start - start % mmap.PAGESIZE  # madvise starts at a page; a page shared with the next block is read again
    mm.madvise(mmap.MADV_DONTNEED, first, min(start + block.nbytes, len(mm)) - first)
