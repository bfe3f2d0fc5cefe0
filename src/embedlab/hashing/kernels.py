"""Compiled n-gram hashing over a whole vocabulary (ngrams.vocab_ngram_buckets calls these).

The words arrive as one UTF-8 byte array `text` (each word already wrapped as "<word>"), word i
being text[starts[i]:ends[i]]. The loops are `ngrams._ngram_spans`, `ngrams.fasttext_hash` and
`murmur.floret_hashes` written for numba: the same order, the same signed-byte FNV-1a, the same
MurmurHash3; tests check they agree. All hash arithmetic is uint64 (wrapping, as C's).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# uint64 arithmetic masked to 32 bits: numba widens uint32 * uint32 to 64 bits
_FNV_OFFSET, _FNV_PRIME, _MASK = np.uint64(2166136261), np.uint64(16777619), np.uint64(0xFFFFFFFF)
_FLORET_SEED = 2166136261  # murmur.FLORET_SEED


@njit(cache=True)
def _next_char(text, j, end):
    """The index after the UTF-8 character that starts at j."""
    j += 1
    while j < end and (text[j] & 0xC0) == 0x80:
        j += 1
    return j


@njit(cache=True)
def count_ngrams(text, starts, ends, min_n, max_n):
    """(V,) int64: how many n-grams each word has."""
    counts = np.zeros(len(starts), dtype=np.int64)
    for w in range(len(starts)):
        begin, end = starts[w], ends[w]
        for i in range(begin, end):
            if (text[i] & 0xC0) == 0x80:
                continue
            j, n = i, 1
            while j < end and n <= max_n:
                j = _next_char(text, j, end)
                if n >= min_n and not (n == 1 and (i == begin or j == end)):
                    counts[w] += 1
                n += 1
    return counts


@njit(cache=True)
def fnv(text, i, j):
    """fastText's 32-bit FNV-1a of text[i:j] (uint64 holding 32 bits)."""
    h = _FNV_OFFSET
    for b in range(i, j):
        byte = np.uint64(text[b])
        if byte >= 0x80:
            byte |= np.uint64(0xFFFFFF00)  # fastText hashes int8_t(c): sign-extended
        h = ((h ^ byte) * _FNV_PRIME) & _MASK
    return h


@njit(cache=True)
def _rotl(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@njit(cache=True)
def _fmix(k):
    k ^= k >> np.uint64(33)
    k *= np.uint64(0xFF51AFD7ED558CCD)
    k ^= k >> np.uint64(33)
    k *= np.uint64(0xC4CEB9FE1A85EC53)
    return k ^ (k >> np.uint64(33))


@njit(cache=True)
def _little(text, i, n):
    """n <= 8 bytes from text[i] as a little-endian uint64."""
    x = np.uint64(0)
    for b in range(n):
        x |= np.uint64(text[i + b]) << np.uint64(8 * b)
    return x


@njit(cache=True)
def _murmur(text, i, j, seed):
    """MurmurHash3_x64_128 of text[i:j] -> (h1, h2)."""
    c1, c2 = np.uint64(0x87C37B91114253D5), np.uint64(0x4CF5AD432745937F)
    h1 = h2 = np.uint64(seed)
    length = j - i
    blocks = length // 16
    for block in range(blocks):
        at = i + 16 * block
        k1 = _rotl(_little(text, at, 8) * c1, 31) * c2
        k2 = _rotl(_little(text, at + 8, 8) * c2, 33) * c1
        h1 = (_rotl(h1 ^ k1, 27) + h2) * np.uint64(5) + np.uint64(0x52DCE729)
        h2 = (_rotl(h2 ^ k2, 31) + h1) * np.uint64(5) + np.uint64(0x38495AB5)
    at, rest = i + 16 * blocks, length % 16
    if rest > 8:
        h2 ^= _rotl(_little(text, at + 8, rest - 8) * c2, 33) * c1
    if rest > 0:
        h1 ^= _rotl(_little(text, at, min(rest, 8)) * c1, 31) * c2
    h1 ^= np.uint64(length)
    h2 ^= np.uint64(length)
    h1 += h2
    h2 += h1
    h1, h2 = _fmix(h1), _fmix(h2)
    h1 += h2
    return h1, h2 + h1


@njit(cache=True)
def _put_floret(text, i, j, buckets, floret, ids, k):
    """floret's `floret` ids of text[i:j] into ids[k:]; -> the next k."""
    h1, h2 = _murmur(text, i, j, _FLORET_SEED)
    for q in range(floret):
        half = h1 if q < 2 else h2
        quarter = (half >> np.uint64(32)) if q % 2 else (half & _MASK)
        ids[k] = np.int64(quarter % np.uint64(buckets))
        k += 1
    return k


@njit(cache=True)
def fill_ngrams(text, starts, ends, min_n, max_n, buckets, offsets, ids, floret):
    """Write word w's bucket ids into ids[offsets[w]:offsets[w + 1]]: fastText's FNV-1a ids when
    floret is 0, else floret's `floret` murmur ids of the whole word and then of each n-gram."""
    for w in range(len(starts)):
        begin, end = starts[w], ends[w]
        k = offsets[w]
        if floret and end > begin:
            k = _put_floret(text, begin, end, buckets, floret, ids, k)
        for i in range(begin, end):
            if (text[i] & 0xC0) == 0x80:
                continue
            j, n = i, 1
            while j < end and n <= max_n:
                j = _next_char(text, j, end)
                if n >= min_n and not (n == 1 and (i == begin or j == end)):
                    if floret:
                        k = _put_floret(text, i, j, buckets, floret, ids, k)
                    else:
                        ids[k] = np.int64(fnv(text, i, j) % np.uint64(buckets))
                        k += 1
                n += 1


@njit(cache=True)
def hash_keys(text, starts, ends):
    """(N,) int64: fastText's FNV-1a of each key text[starts[k]:ends[k]], as the int32 fastText keeps
    it (a hash >= 2**31 is negative: Dictionary::getLine stores word hashes in an int32 vector)."""
    out = np.empty(len(starts), dtype=np.int64)
    for k in range(len(starts)):
        h = np.int64(fnv(text, starts[k], ends[k]))
        out[k] = h - 4294967296 if h >= 2147483648 else h
    return out
