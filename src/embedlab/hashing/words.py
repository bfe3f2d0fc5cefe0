"""fastText's word n-grams: the hashed rows a classifier gives to "new york" beside "new" and "york".

    word_hashes([b"new", b"york"])               -> (2,) int64: each word's FNV-1a as fastText's int32
    word_ngram_buckets(hashes, n=2, buckets=B)   -> (K,) int64 bucket ids of the line's 2..n-grams

A word n-gram has no entry of its own: its hash is built from its words' hashes and taken modulo
`buckets`, so "new york" lands in a row shared at random with other n-grams (the hashing trick).
The arithmetic is fastText's Dictionary::addWordNgrams, bit for bit, so bucket ids agree with a
model the tool trained: each word's 32-bit FNV-1a is kept as an int32 and widened to uint64 with
its sign (a hash >= 2**31 becomes 0xFFFFFFFF_xxxxxxxx), then h = h * 116049371 + next word's hash,
wrapping at 2**64, for each longer n-gram starting at the same word. Order: by first word, then
length (what fastText appends after the words' own rows).

>>> word_ngram_buckets(word_hashes([b"new", b"york", b"city"]), 2, 1000).tolist()
[521, 196]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from embedlab.errors import check_int
from embedlab.hashing.ngrams import MAX_BUCKETS

NGRAM_MULTIPLIER = 116049371  # fastText's constant in Dictionary::addWordNgrams
MAX_WORD_NGRAMS = 64  # a longer n-gram is never seen twice; fastText sets no limit, this guards the loops
_WRAP = 1 << 64


def word_hashes(words: Sequence[bytes]) -> np.ndarray:
    """(N,) int64: fastText's FNV-1a of each word's bytes, as the signed int32 fastText keeps."""
    from embedlab.hashing.kernels import hash_keys  # numba, imported only here

    ends = np.cumsum([len(w) for w in words], dtype=np.int64)
    starts = ends - np.array([len(w) for w in words], dtype=np.int64)
    return hash_keys(np.frombuffer(b"".join(words), dtype=np.uint8), starts, ends)


def word_ngram_buckets(hashes: Sequence[int] | np.ndarray, n: int, buckets: int) -> np.ndarray:
    """(K,) int64: the bucket ids of one line's word 2..n-grams, from its words' hashes (word_hashes).
    n = 1: none. The reference for the compiled loop the classifier uses (models/bag_kernels.py)."""
    check_int("n", n, low=1, high=MAX_WORD_NGRAMS)
    check_int("buckets", buckets, low=1, high=MAX_BUCKETS)
    wide = [int(h) % _WRAP for h in hashes]  # int32 -> uint64, sign-extended
    out = []
    for i, h in enumerate(wide):
        for following in wide[i + 1 : i + n]:
            h = (h * NGRAM_MULTIPLIER + following) % _WRAP
            out.append(h % buckets)
    return np.array(out, dtype=np.int64)
