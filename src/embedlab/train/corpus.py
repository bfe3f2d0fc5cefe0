"""Corpora for word2vec: a counted vocabulary, subsampling and noise tables, and a streaming
encoder from lines to id chunks. Words are tokenizer.vocab's `words` (lower-cased runs of letters
and digits), counted by its `count_words`; both are importable from here too.

    vocab = WordVocab.build(open_corpus("gcide"), min_count=5)   # one pass, a Counter of words
    keep = vocab.keep_probabilities(1e-3)                         # (V,) float32: frequent words dropped
    cum_table = vocab.noise_table()                               # (V,) uint32: unigram^0.75 draws
    for chunk in encode(open_corpus("gcide"), vocab):             # ~10,000 words at a time
        chunk.ids, chunk.starts                                   # (N,) int32, (S+1,) int64
    prefetch(iter(ChunkCache(lines, vocab)))                      # encoded ahead, in a thread

Nothing here holds the corpus: `build` keeps one Counter, `encode` one chunk. A sentence is one
line; training windows never cross a line. The subsampling and noise formulas are gensim's (and
the C word2vec tool's), and the tests check them against a gensim model built on the same text.
"""

from __future__ import annotations

import queue
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import NamedTuple

import numpy as np

from embedlab.errors import InvalidValueError, check_float, check_int
from embedlab.tokenizer.vocab import count_words, most_frequent, words

__all__ = [
    "MAX_SENTENCE_WORDS", "NOISE_DOMAIN", "Chunk", "ChunkCache", "WordVocab", "chunk_lines", "count_words", "encode",
    "prefetch", "words",
]  # fmt: skip

# A line longer than this many in-vocabulary words is cut into sentences of this length, as gensim's
# LineSentence does (one 17M-word line such as text8's would otherwise be one unsplittable job).
MAX_SENTENCE_WORDS = 10_000

# gensim's cum_table scale: a draw is an integer below 2**31 - 1, so it fits word2vec's 32-bit randoms.
NOISE_DOMAIN = 2**31 - 1


@dataclass(frozen=True, eq=False)
class WordVocab:
    """Words kept for training, most frequent first (row i of every table is index_to_key[i]).

    word2vec's training rows (counts, subsampling, noise table); the tokenizer's word table with
    specials and an OOV policy is tokenizer.vocab.Vocab, built on the same count_words.

    Ties in count keep the order of first appearance in the corpus (gensim's order differs only
    within a tie, which changes no table built from the counts). `total` is the number of corpus
    tokens that are in the vocabulary: one epoch's worth of training words.
    """

    index_to_key: list[str]  # row -> word
    counts: np.ndarray  # (V,) int64 corpus counts, descending

    def __post_init__(self):
        object.__setattr__(self, "counts", np.asarray(self.counts, dtype=np.int64))
        if self.counts.shape != (len(self.index_to_key),):
            V = len(self.index_to_key)
            raise InvalidValueError(f"{V} words need counts of shape ({V},); got shape {self.counts.shape}")

    @property
    def key_to_index(self) -> dict[str, int]:
        """word -> row, built once."""
        cached = self.__dict__.get("_key_to_index")
        if cached is None:
            cached = {key: i for i, key in enumerate(self.index_to_key)}
            object.__setattr__(self, "_key_to_index", cached)  # a cache, not state: frozen stays honest
        return cached

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def __len__(self) -> int:
        return len(self.index_to_key)

    @classmethod
    def build(cls, lines: Iterable[str], min_count: int = 5, max_size: int | None = None) -> WordVocab:
        """Count `words` over a stream of lines; keep words seen at least `min_count` times, then
        the `max_size` most frequent of those (None: all)."""
        return cls.from_counts(count_words(lines), min_count, max_size)

    @classmethod
    def from_counts(cls, counter: Counter[str], min_count: int = 5, max_size: int | None = None) -> WordVocab:
        """The vocabulary of word counts (as count_words makes them; ties keep the Counter's order)."""
        if max_size is not None:
            check_int("max_size", max_size, low=1)
        kept = most_frequent(counter, min_count, max_size)  # ties stay in order of first appearance
        return cls([word for word, _ in kept], np.array([n for _, n in kept], dtype=np.int64))

    def keep_probabilities(self, sample: float) -> np.ndarray:
        """(V,) float32: the chance that one occurrence of each word is kept in training.

        word2vec's subsampling with threshold count t = sample · total: a word seen c times is kept
        with probability (sqrt(c / t) + 1) · t / c, capped at 1, so words far above the threshold
        lose most of their occurrences. sample=0 keeps everything.
        """
        sample = check_float("sample", sample, low=0.0, high=1.0)
        if sample == 0.0 or len(self) == 0:
            return np.ones(len(self), dtype=np.float32)
        threshold = sample * self.total
        c = self.counts.astype(np.float64)
        keep = (np.sqrt(c / threshold) + 1.0) * (threshold / c)
        return np.minimum(keep, 1.0).astype(np.float32)

    def noise_table(self, power: float = 0.75) -> np.ndarray:
        """(V,) uint32 cumulative counts**power, scaled so the last entry is NOISE_DOMAIN.

        gensim's cum_table: draw r uniform below table[-1]; the noise word is the first row whose
        entry exceeds r (a binary search), so row i comes up in proportion to counts[i]**power.
        """
        power = check_float("power", power, low=0.0)
        weights = self.counts.astype(np.float64) ** power  # (V,)
        cumulative = np.cumsum(weights)  # sequential sums, as gensim's loop
        return np.rint(cumulative / cumulative[-1] * NOISE_DOMAIN).astype(np.uint32)

    def to_dict(self) -> dict:
        """JSON-ready: {"index_to_key": [...], "counts": [...]}."""
        return {"index_to_key": list(self.index_to_key), "counts": self.counts.tolist()}

    @classmethod
    def from_dict(cls, data: dict) -> WordVocab:
        return cls(list(data["index_to_key"]), np.asarray(data["counts"], dtype=np.int64))


class Chunk(NamedTuple):
    """Sentences of in-vocabulary ids: sentence s is ids[starts[s]:starts[s + 1]].

    ids: (N,) int32 rows; starts: (S+1,) int64 offsets, starts[0] == 0 and starts[-1] == N.
    """

    ids: np.ndarray
    starts: np.ndarray


def encode(lines: Iterable[str], vocab: WordVocab, chunk_words: int = 10_000) -> Iterator[Chunk]:
    """Stream lines -> Chunks of whole sentences, each about `chunk_words` ids (at least one sentence).

    Words outside the vocabulary are dropped, so their neighbours become adjacent (as gensim and
    word2vec do); lines with no vocabulary word are skipped; lines longer than MAX_SENTENCE_WORDS
    are cut into several sentences.

    >>> vocab = WordVocab(["the", "cat", "sat"], np.array([3, 2, 1]))
    >>> [(c.ids.tolist(), c.starts.tolist()) for c in encode(["The cat sat.", "a dog", "the cat"], vocab)]
    [([0, 1, 2, 0, 1], [0, 3, 5])]
    """
    chunk_words = check_int("chunk_words", chunk_words, low=1)
    get = vocab.key_to_index.get
    ids: list[int] = []  # raw lookups of the chunk's lines, -1 for unknown words
    lengths: list[int] = []  # raw words per line
    for line in lines:
        tokens = words(line)
        ids.extend(map(get, tokens, repeat(-1)))  # one C-level pass: dict.get(word, -1)
        lengths.append(len(tokens))
        if len(ids) >= chunk_words:
            yield from chunk_lines(ids, lengths)
            ids, lengths = [], []
    if ids:
        yield from chunk_lines(ids, lengths)


class ChunkCache:
    """A corpus encoded once and replayed: a re-iterable of Chunks for training's many epochs.

    The first pass runs `encode` and appends each Chunk to an unnamed temporary file; later passes
    read the Chunks back, neither re-reading nor re-tokenizing the corpus (which for CBOW costs
    more than training). Memory holds one Chunk; the file holds 4 bytes per word and 8 per
    sentence and is gone when the cache is closed. A pass cut short is thrown away, and the next
    pass encodes again. One pass at a time.

        with ChunkCache(open_corpus("gcide"), vocab) as chunks:
            for epoch in range(5):
                for chunk in chunks: ...
    """

    def __init__(
        self, lines: Iterable[str], vocab: WordVocab, chunk_words: int = 10_000, directory: str | Path | None = None,
        encoder: Callable[..., Iterator[Chunk]] = None,
    ):  # fmt: skip
        """encoder(lines, vocab, chunk_words) -> Chunks: `encode` unless given (a ScannedText's encode)."""
        self.lines, self.vocab, self.chunk_words = lines, vocab, check_int("chunk_words", chunk_words, low=1)
        self.directory = directory  # None: the system's temporary folder
        self.encoder = encoder or encode
        self._file = None  # the complete encoding, once a first pass has finished

    def __iter__(self) -> Iterator[Chunk]:
        return self._replay() if self._file is not None else self._encode()

    def _encode(self) -> Iterator[Chunk]:
        file = tempfile.TemporaryFile(dir=self.directory)
        try:
            for chunk in self.encoder(self.lines, self.vocab, self.chunk_words):
                file.write(np.array([len(chunk.ids), len(chunk.starts)], dtype=np.int64).tobytes())
                file.write(chunk.ids.tobytes())
                file.write(chunk.starts.tobytes())
                yield chunk
        except BaseException:
            file.close()
            raise
        self._file = file

    def _replay(self) -> Iterator[Chunk]:
        self._file.seek(0)
        while header := self._file.read(16):
            n_ids, n_starts = np.frombuffer(header, dtype=np.int64)
            ids = np.frombuffer(bytearray(self._file.read(4 * int(n_ids))), dtype=np.int32)  # writable
            starts = np.frombuffer(bytearray(self._file.read(8 * int(n_starts))), dtype=np.int64)
            yield Chunk(ids, starts)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> ChunkCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def chunk_lines(ids: Sequence[int], lengths: Sequence[int]) -> Iterator[Chunk]:
    """Raw lookups of some lines' words (rows, -1 outside the vocabulary) and the lines' word
    counts -> a Chunk without unknown words or empty sentences (if any id is left)."""
    raw = np.array(ids, dtype=np.int64)  # (R,)
    known = raw >= 0
    if not known.any():
        return
    lengths = np.asarray(lengths)
    line_ends = np.cumsum(lengths)[lengths > 0]  # (L,) raw end of each non-empty line
    kept_ends = np.unique(np.cumsum(known)[line_ends - 1])  # lines with no known word add no sentence
    starts = np.concatenate([[0], kept_ends[kept_ends > 0]]).astype(np.int64)  # (S+1,)
    if np.any(np.diff(starts) > MAX_SENTENCE_WORDS):
        starts = _split_long(starts)
    yield Chunk(raw[known].astype(np.int32), starts)


def _split_long(starts: np.ndarray) -> np.ndarray:
    """Insert cuts every MAX_SENTENCE_WORDS ids inside sentences that are longer."""
    cuts = [np.arange(a, b, MAX_SENTENCE_WORDS) for a, b in zip(starts[:-1], starts[1:], strict=True)]
    return np.concatenate([*cuts, starts[-1:]]).astype(np.int64)


def prefetch(chunks: Iterator[Chunk], depth: int = 4) -> Iterator[Chunk]:
    """Encode ahead in a thread: tokenizing is Python work that overlaps the kernels (they drop the GIL)."""
    ready: queue.Queue = queue.Queue(maxsize=depth)
    stop, end = threading.Event(), object()

    def put(item) -> bool:
        while not stop.is_set():  # the consumer may be gone: look again every 0.1 s
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                pass
        return False

    def produce():
        try:
            for chunk in chunks:
                if not put(chunk):
                    return
            put(end)
        except BaseException as error:  # raised again in the consumer
            put(error)
        finally:
            getattr(chunks, "close", lambda: None)()  # a generator given up on ends here, in its own thread

    worker = threading.Thread(target=produce, daemon=True)
    worker.start()
    try:
        while (item := ready.get()) is not end:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()
