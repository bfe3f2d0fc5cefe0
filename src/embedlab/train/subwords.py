"""Subword training's pieces outside the kernels: each word's input rows and each bucket's steps.

    offsets, rows = input_rows(["cat", "dog"], 3, 6, 2_000_000)   # "cat": rows[0:7] = [0, 2 + 6 bucket ids]
    offsets, rows = input_rows(["cat", "dog"], 3, 6, 50_000, hash_count=2)   # floret's: "cat": 2 × 7 bucket ids
    bucket_counts(offsets, rows, word_counts, buckets)            # (B,) steps each bucket took, from the words'

A subword run's input table is (V + B, D): the V word rows, then the B n-gram bucket rows. Word w
is read from rows[offsets[w]:offsets[w + 1]]: its own row w, then V + the bucket id of each
n-gram of "<w>" in fastText's order (embedlab.hashing, the one place n-grams are hashed). The ids
are computed once per vocabulary, before training; the kernels only follow them.

In floret's mode (`hash_count` 1..4) there are no word rows: the input table is the B bucket rows
alone, and word w's rows are floret's ids of "<w>" and of each of its n-grams, `hash_count` per key
(embedlab.hashing again), with no offset. The kernels index nothing by V on the input side, so the
same kernels train both modes, and a floret run never allocates the V word rows it would not use.

The run folder's subwords.safetensors (the word rows, the bucket rows and bucket_counts below) is
written and read by vectors.io.run (write_subwords, read_subwords), streamed from the training table.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from embedlab.hashing import vocab_ngram_buckets


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
