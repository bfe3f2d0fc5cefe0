"""A plain-text corpus file counted and encoded in one compiled pass: word2vec's fast way in.

    scan = scan_text(Path("corpus.txt"))       # None unless the file is ASCII: then count_words + encode
    vocab = WordVocab.from_counts(scan.counter(), min_count=5)
    for chunk in scan.encode(vocab, chunk_words=20_000): ...  # the Chunks encode() makes of the lines
    ChunkCache(scan, vocab, 20_000, encoder=ScannedText.encode)   # encoded once, replayed every epoch

`count_words` then `encode` tokenize every line twice in Python (a regex per batch of lines, a dict
lookup per word): on gcide that is 8 of a 30-second run. Here a numba loop reads the file's bytes
once, finds the same words (`words`' rule on ASCII: runs of [a-z0-9], lower-cased, joined by
single apostrophes), gives each distinct word an id in order of first appearance (the order
count_words keeps, so ties in count break alike) and writes each word's id to a temporary file,
4 bytes a word. Encoding for any vocabulary is then an array lookup per chunk, every epoch.

Only ASCII files take this path: `words` lower-cases and matches letters by Unicode's rules, which
this loop does not reproduce. Words are told apart by a 64-bit FNV-1a hash in an open-addressing
table, and every occurrence is compared byte for byte with the first one: two words with one hash stop the
scan (None, and the Python path runs) rather than merge.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from numba import njit

from embedlab.train.corpus import Chunk, WordVocab, chunk_lines

BLOCK_BYTES = 1 << 20  # the file is read in blocks of whole lines of about 1 MiB (faster than larger ones)
_FNV_OFFSET, _FNV_PRIME = np.uint64(14695981039346656037), np.uint64(1099511628211)
_NEWLINE, _APOSTROPHE = 10, 39


@njit(inline="always")
def _word_byte(c):
    """The byte lower-cased if c is an ASCII letter or digit, else -1."""
    if 97 <= c <= 122 or 48 <= c <= 57:
        return c
    if 65 <= c <= 90:
        return c + 32
    return -1


@njit(inline="always")
def _slot(slots, word_hash, h):
    """The slot of hash h in the open-addressing table `slots` (a power of two long, -1 = empty):
    where the word with that hash sits, or the empty slot it would take (linear probing)."""
    mask = np.uint64(slots.shape[0] - 1)
    i = h & mask
    while slots[i] >= 0 and word_hash[slots[i]] != h:
        i = (i + np.uint64(1)) & mask
    return i


@njit(nogil=True, cache=True)
def _rehash(word_hash, n_words, size):
    """A table of `size` slots holding word ids 0..n_words-1 by their hashes."""
    slots = np.full(size, -1, np.int64)
    for word in range(n_words):
        slots[_slot(slots, word_hash, word_hash[word])] = word
    return slots


@njit(nogil=True, cache=True)
def _scan_block(data, slots, word_hash, buf, used, word_start, word_length, counts, n_words, ids, line_words):
    """Scan whole lines `data` (B,) uint8, in place: each word's id -> ids, words per line ->
    line_words, a new word's hash -> word_hash and slots, its lower-cased bytes -> buf[used:] and
    their place -> word_start/length, occurrences -> counts. The caller sizes every array for the
    worst case (B bytes of words; slots at least twice the words).
    -> (words, lines, used, n_words); words = -1 when two different words share a hash."""
    B = data.shape[0]
    n_ids, n_lines, in_line, i = 0, 0, 0, 0
    while i < B:
        c = data[i]
        if c == _NEWLINE:
            line_words[n_lines] = in_line
            n_lines += 1
            in_line = 0
            i += 1
            continue
        if _word_byte(c) < 0:
            i += 1
            continue
        start, h = i, _FNV_OFFSET
        while True:  # a run of letters and digits, and more runs after single apostrophes
            while i < B and _word_byte(data[i]) >= 0:
                h = (h ^ np.uint64(_word_byte(data[i]))) * _FNV_PRIME
                i += 1
            if i + 1 < B and data[i] == _APOSTROPHE and _word_byte(data[i + 1]) >= 0:
                h = (h ^ np.uint64(_APOSTROPHE)) * _FNV_PRIME
                i += 1
                continue
            break
        length = i - start
        slot = _slot(slots, word_hash, h)
        if slots[slot] < 0:
            word = n_words
            slots[slot], word_hash[word] = word, h
            word_start[word], word_length[word] = used, length
            for k in range(length):
                b = data[start + k]
                buf[used + k] = b if b == _APOSTROPHE else _word_byte(b)
            used += length
            n_words += 1
        else:
            word = slots[slot]
            if word_length[word] != length:
                return -1, n_lines, used, n_words
            s = word_start[word]
            for k in range(length):
                b = data[start + k]
                if buf[s + k] != (b if b == _APOSTROPHE else _word_byte(b)):
                    return -1, n_lines, used, n_words
        counts[word] += 1
        ids[n_ids] = word
        n_ids += 1
        in_line += 1
    if in_line > 0:  # a last line without its newline
        line_words[n_lines] = in_line
        n_lines += 1
    return n_ids, n_lines, used, n_words


def _blocks(path: Path, block_bytes: int) -> Iterator[bytes]:
    """The file's bytes in blocks that end at a line end (or the file's end)."""
    carry = b""
    with path.open("rb") as f:
        while data := f.read(block_bytes):
            data = carry + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:  # no line end in the block: a long line, read on
                carry = data
                continue
            carry = data[cut:]
            yield data[:cut]
    if carry:
        yield carry


def _grown(array: np.ndarray, size: int) -> np.ndarray:
    """`array`, or a copy at least `size` long (doubling) when it is shorter."""
    if len(array) >= size:
        return array
    grown = np.zeros(max(size, 2 * len(array)), dtype=array.dtype)
    grown[: len(array)] = array
    return grown


class ScannedText:
    """A text file's distinct words, their counts, and every word's id on disk (see the module)."""

    def __init__(self, words: list[str], counts: np.ndarray, file) -> None:
        self.words = words  # id -> word, in order of first appearance
        self.counts = counts  # (U,) int64 occurrences
        self._file = file  # per block: [n_ids, n_lines] int64, ids (n_ids,) int32, line_words (n_lines,) int32

    def counter(self) -> Counter[str]:
        """Word counts in order of first appearance, as count_words gives them."""
        return Counter(dict(zip(self.words, self.counts.tolist(), strict=True)))

    def encode(self, vocab: WordVocab, chunk_words: int = 10_000) -> Iterator[Chunk]:
        """The Chunks `encode(lines, vocab, chunk_words)` yields for this file's lines."""
        rows = np.array([vocab.key_to_index.get(word, -1) for word in self.words], dtype=np.int64)
        carry_ids, carry_lines = np.zeros(0, np.int64), np.zeros(0, np.int64)
        for ids, line_words in self.blocks():
            raw = np.concatenate([carry_ids, rows[ids]])  # (R,) rows, -1 outside the vocabulary
            lines = np.concatenate([carry_lines, line_words])
            ends = np.cumsum(lines)  # raw words up to the end of each line
            cut = first = 0
            while True:  # a chunk ends after the line that brings it to chunk_words raw words, as encode's
                line = int(np.searchsorted(ends, cut + chunk_words, side="left"))
                if line >= len(lines):
                    break
                yield from chunk_lines(raw[cut : ends[line]], lines[first : line + 1])
                cut, first = int(ends[line]), line + 1
            carry_ids, carry_lines = raw[cut:], lines[first:]
        if len(carry_ids):
            yield from chunk_lines(carry_ids, carry_lines)

    def blocks(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(ids (N,) int32, line_words (L,) int32) per block, read back from the file."""
        self._file.seek(0)
        while header := self._file.read(16):
            n_ids, n_lines = np.frombuffer(header, dtype=np.int64)
            ids = np.frombuffer(self._file.read(4 * int(n_ids)), dtype=np.int32)
            yield ids, np.frombuffer(self._file.read(4 * int(n_lines)), dtype=np.int32)

    def close(self) -> None:
        self._file.close()


def scan_text(path: Path, block_bytes: int = BLOCK_BYTES) -> ScannedText | None:
    """Count and encode an ASCII text file's words in one pass -> ScannedText, or None (non-ASCII
    bytes, or a hash shared by two words): then count_words and encode are the way."""
    buf, word_start, word_length = np.zeros(1 << 20, np.uint8), np.zeros(1 << 16, np.int64), np.zeros(1 << 16, np.int64)
    counts, word_hash, slots = np.zeros(1 << 16, np.int64), np.zeros(1 << 16, np.uint64), np.full(1 << 17, -1, np.int64)
    used = n_words = 0
    file = tempfile.TemporaryFile()
    try:
        for block in _blocks(path, block_bytes):
            if not block.isascii():
                file.close()
                return None
            data = np.frombuffer(block, dtype=np.uint8)
            most = len(block) // 2 + 1  # words in a block: at most one per two bytes
            buf = _grown(buf, used + len(block))
            word_start, word_length = _grown(word_start, n_words + most), _grown(word_length, n_words + most)
            counts, word_hash = _grown(counts, n_words + most), _grown(word_hash, n_words + most)
            if len(slots) < 2 * (n_words + most):  # at most half full: probes stay short
                slots = _rehash(word_hash, n_words, 1 << int(2 * (n_words + most) - 1).bit_length())
            ids, line_words = np.empty(most, np.int32), np.empty(block.count(b"\n") + 1, np.int32)
            n_ids, n_lines, used, n_words = _scan_block(
                data, slots, word_hash, buf, used, word_start, word_length, counts, n_words, ids, line_words
            )
            if n_ids < 0:
                file.close()
                return None
            file.write(np.array([n_ids, n_lines], dtype=np.int64).tobytes())
            file.write(ids[:n_ids].tobytes())
            file.write(line_words[:n_lines].tobytes())
    except BaseException:
        file.close()
        raise
    raw = buf[:used].tobytes()
    words = [
        raw[s : s + n].decode("ascii")
        for s, n in zip(word_start[:n_words].tolist(), word_length[:n_words].tolist(), strict=True)
    ]
    return ScannedText(words, counts[:n_words].copy(), file)
