"""Words into hashed table rows: what lets a table answer a word it never saw.

    ngrams.py   fastText's character n-grams of "<word>" and their FNV-1a bucket ids (signed-byte
                quirk kept, so ids agree with fastText's and gensim's); a whole vocabulary at once
    murmur.py   MurmurHash3 x64 128, floret's hash (`hash_count` 1..4 ids per key)
    kernels.py  the compiled (numba) n-gram hashing behind `vocab_ngram_buckets`
    words.py    fastText's word n-grams (a classifier's "new york"): hashes combined as the tool combines them
    compose.py  compose_rows: every word's vector, the mean of its own row and its buckets' rows

Nothing here imports another embedlab package but `errors`: layers, tokenizers, vector tables and
trainers all hash the same way by importing this.
"""

from __future__ import annotations

from embedlab.hashing.compose import compose_rows
from embedlab.hashing.ngrams import (
    BUCKETS,
    EOS,
    MAX_BUCKETS,
    MAX_N,
    MIN_N,
    char_ngrams,
    check_ngram_range,
    fasttext_hash,
    ngram_buckets,
    vocab_ngram_buckets,
)

__all__ = [
    "BUCKETS",
    "EOS",
    "MAX_BUCKETS",
    "MAX_N",
    "MIN_N",
    "char_ngrams",
    "compose_rows",
    "check_ngram_range",
    "fasttext_hash",
    "ngram_buckets",
    "vocab_ngram_buckets",
]
