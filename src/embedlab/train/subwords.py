"""Subword training's pieces outside the kernels: each word's input rows, and the run folder's file.

    offsets, rows = input_rows(["cat", "dog"], 3, 6, 2_000_000)   # "cat": rows[0:7] = [0, 2 + 6 bucket ids]
    offsets, rows = input_rows(["cat", "dog"], 3, 6, 50_000, hash_count=2)   # floret's: "cat": 2 × 7 bucket ids
    bucket_counts(offsets, rows, word_counts, buckets)            # (B,) steps each bucket took, from the words'
    write_subwords(out / RUN_SUBWORDS, word_rows, ngram_rows, bucket_counts, min_n=3, max_n=6)

A subword run's input table is (V + B, D): the V word rows, then the B n-gram bucket rows. Word w
is read from rows[offsets[w]:offsets[w + 1]]: its own row w, then V + the bucket id of each
n-gram of "<w>" in fastText's order (embedlab.hashing, the one place n-grams are hashed). The ids
are computed once per vocabulary, before training; the kernels only follow them.

In floret's mode (`hash_count` 1..4) there are no word rows: the input table is the B bucket rows
alone, and word w's rows are floret's ids of "<w>" and of each of its n-grams, `hash_count` per key
(embedlab.hashing again), with no offset. The kernels index nothing by V on the input side, so the
same kernels train both modes, and a floret run never allocates the V word rows it would not use.

subwords.safetensors (vectors.io.RUN_SUBWORDS), beside the run's whole-word table (which holds the composed vectors):

    word_rows      (V, D) float32  each word's own input row, in the table's key order (fastText's mode only)
    ngram_rows     (B, D) float32  the bucket rows
    bucket_counts  (B,) int64      training updates each bucket row took (0: never trained)
    metadata       min_n, max_n, buckets, and hash_count in floret's mode (strings, as safetensors keeps them)

A floret run's file has no word_rows tensor at all (rather than an empty one): its metadata's
hash_count says the mode, and a reader that asks for word_rows learns at once that there are none.

It is written straight from the training table, without a copy in memory (a 2,000,000 × 100 table
is 800 MB), to a temporary file renamed into place.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from embedlab.files import atomic_writer
from embedlab.hashing import vocab_ngram_buckets
from embedlab.train.config import DIVERGED
from embedlab.vectors.io.table import check_finite_to_write

_DTYPES = {np.dtype(np.float32): "F32", np.dtype(np.int64): "I64"}  # safetensors' names


def input_rows(
    keys: Sequence[str], min_n: int, max_n: int, buckets: int, *, hash_count: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """V words -> offsets (V+1,) int64, rows (V + N,) int64: each word's own row, then its n-grams' rows.
    With hash_count (floret's mode): rows (N,) int64, each word's floret bucket ids alone.

    >>> offsets, rows = input_rows(["ab", "b"], 3, 3, 10)    # "<ab>": <ab ab>;  "<b>": <b>
    >>> offsets.tolist(), (rows[offsets[0]:offsets[1]] >= 2).tolist()
    ([0, 3, 5], [False, True, True])
    >>> input_rows(["ab", "b"], 3, 3, 10, hash_count=2)[0].tolist()    # <ab> <ab ab>;  <b> <b>: 2 ids each
    [0, 6, 10]
    """
    ngram_offsets, ids = vocab_ngram_buckets(keys, min_n, max_n, buckets, hash_count=hash_count)
    if hash_count is not None:
        return ngram_offsets, ids  # the input table is the bucket rows: a bucket id is its row
    V = len(keys)
    per_word = np.diff(ngram_offsets)  # (V,) n-grams of each word
    offsets = np.zeros(V + 1, dtype=np.int64)
    np.cumsum(per_word + 1, out=offsets[1:])
    rows = np.empty(offsets[-1], dtype=np.int64)
    rows[offsets[:-1]] = np.arange(V)  # the word's own row comes first, as in fastText's getSubwords
    shift = np.repeat(offsets[:-1] + 1 - ngram_offsets[:-1], per_word)  # (N,) where each n-gram id moves to
    rows[np.arange(len(ids)) + shift] = V + ids
    return offsets, rows


def bucket_counts(
    offsets: np.ndarray, rows: np.ndarray, word_counts: np.ndarray, buckets: int, *, word_rows: bool = True
) -> np.ndarray:
    """(V,) int64 steps each word's input rows took -> (B,) int64 steps each bucket row took.
    word_rows: whether the rows index word rows first (fastText's mode) or bucket rows only (floret's).

    Exact, because a word's rows always step together: a bucket takes every step of every word
    listing it, twice for a word listing it twice.

    >>> offsets, rows = input_rows(["ab", "b"], 3, 3, 10)
    >>> int(bucket_counts(offsets, rows, np.array([5, 2]), 10).sum())   # 5 × 2 n-grams + 2 × 1
    12
    """
    first = len(offsets) - 1 if word_rows else 0  # the input table's row of bucket 0
    counts = np.zeros(first + buckets, dtype=np.int64)
    np.add.at(counts, rows, np.repeat(word_counts.astype(np.int64), np.diff(offsets)))
    return counts[first:]


def write_subwords(
    path: str | Path, word_rows: np.ndarray | None, ngram_rows: np.ndarray, bucket_counts: np.ndarray, *,
    min_n: int, max_n: int, hash_count: int | None = None,
) -> Path:  # fmt: skip
    """Write subwords.safetensors (see the module docstring) atomically, streaming the arrays; a NaN
    or ±inf row (a run that diverged) is InvalidValueError naming it, and nothing is written.
    word_rows None with hash_count: a floret run's (no word_rows tensor; hash_count in the metadata)."""
    assert (word_rows is None) == (hash_count is not None), "word_rows in fastText's mode, hash_count in floret's"
    if word_rows is not None:  # a diverged run's NaN rows are refused before the file is touched
        check_finite_to_write(Path(f"{path} (word rows)"), None, word_rows, why=DIVERGED)
    check_finite_to_write(Path(f"{path} (n-gram bucket rows)"), None, ngram_rows, why=DIVERGED)
    tensors = {"word_rows": word_rows, "ngram_rows": ngram_rows, "bucket_counts": bucket_counts}
    tensors = {name: np.ascontiguousarray(a) for name, a in tensors.items() if a is not None}  # views of w_in: no copy
    header, offset = {}, 0
    for name, a in tensors.items():
        header[name] = {"dtype": _DTYPES[a.dtype], "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    header["__metadata__"] = {"min_n": str(min_n), "max_n": str(max_n), "buckets": str(len(ngram_rows))}
    if hash_count is not None:
        header["__metadata__"]["hash_count"] = str(hash_count)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned, as safetensors pads it
    with atomic_writer(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for a in tensors.values():
            f.write(a.data)
    return Path(path)
