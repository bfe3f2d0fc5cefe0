"""fastText's labelled text, read as the fastText tool reads it, and the classifier's dictionary that
turns each line into the rows it averages and the labels it should predict.

    text = LabelledText.read("train.txt")       # or LabelledText.of("__label__zool a small fish\n...")
    dictionary = Dictionary.build(text, word_ngrams=2, bucket=2_000_000)   # from training text
    dictionary = Dictionary.of_model(model)     # a FastTextModel's words, labels, n-gram settings, pruning
    bags = dictionary.encode(text)              # Bags: each line's input row ids and label ids

A line is split into tokens at ASCII whitespace (space, tab, CR, VT, FF), as fastText's readWord does;
every line that ends with a newline gets the end-of-sentence word "</s>" as its last token (a last line
without one gets none), and "</s>" is a word like any other: it has a row, and it takes part in word
n-grams. As in the tool, a "</s>" typed in a line ends it there (the rest is read as the next line).
A token starting with "__label__" is a label. A line's input rows are, in fastText's order:
each word's rows (its own row, then with -maxn > 0 its character n-grams' buckets; a word the dictionary
lacks has only the n-grams), then the buckets of its word 2..n-grams (hashing/words.py), over every
word including unknown ones. Bucket b is row nwords + b, or, in a pruned model, nwords + the index the
pruning kept it at, and no row at all when it was pruned.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from embedlab.errors import FileFormatError, InvalidValueError, check_int
from embedlab.files.reading import readable_file
from embedlab.hashing import EOS, MAX_BUCKETS, vocab_ngram_buckets
from embedlab.hashing.words import MAX_WORD_NGRAMS, word_hashes

if TYPE_CHECKING:
    from embedlab.vectors.io.fasttext_model import FastTextModel

LABEL = "__label__"  # fastText's -label default: the tool reads no other, since a .bin does not store it
_LABEL_BYTES, _EOS_BYTES = LABEL.encode(), EOS.encode()
EXPECTED = "fastText's labelled text (UTF-8 lines such as '__label__sport the match ended in a draw')"


@dataclass(frozen=True, eq=False)
class LabelledText:
    """A text as fastText tokenizes it: line l's tokens are types[tokens[offsets[l]:offsets[l + 1]]]."""

    types: list[bytes]  # (U,) each distinct token once, in order of first appearance
    tokens: np.ndarray  # (N,) int32 index into types
    offsets: np.ndarray  # (L+1,) int64 where each line's tokens start
    where: str = "the text"  # what error messages call it (a path)
    hashes: np.ndarray | None = None  # (U,) int64 each type's FNV-1a as fastText's int32 (None: computed when asked)

    @classmethod
    def read(cls, path: str | Path) -> LabelledText:
        """The UTF-8 text file at `path`; FileFormatError naming the line and byte where it is not text."""
        path = readable_file(path, EXPECTED)
        return cls.of(path.read_bytes(), str(path))

    @classmethod
    def of(cls, data: bytes | str, where: str = "the text") -> LabelledText:
        """Tokenize `data` (bytes or str: lines separated by "\\n")."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        _check_text(data, where)
        from embedlab.models.bag_kernels import split_text  # numba, imported only here

        # fastText reads each newline as the word "</s>" and ends a line at every "</s>" (one typed inside a
        # line too); the word's bytes go after the text for the kernel to point at
        raw = data + _EOS_BYTES
        ids, offsets, starts, ends, hashes = split_text(np.frombuffer(raw, np.uint8), len(data))
        types = [raw[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        return cls(types, ids, offsets, where, hashes)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def counts(self) -> np.ndarray:
        """(U,) int64 how often each type occurs."""
        return np.bincount(self.tokens, minlength=len(self.types)).astype(np.int64)

    @property
    def is_label(self) -> np.ndarray:
        """(U,) bool: the type starts with "__label__"."""
        return np.array([t.startswith(_LABEL_BYTES) for t in self.types], dtype=bool)

    def check_labelled(self) -> None:
        """InvalidValueError naming the first line with no label, or with labels and no word."""
        label = self.is_label
        word = ~label
        if _EOS_BYTES in self.types:
            word[self.types.index(_EOS_BYTES)] = False  # every line ends with it: it is not text
        lines = np.repeat(np.arange(len(self)), np.diff(self.offsets))
        for kinds, what in ((label, "no label"), (word, "labels but no text")):
            per_line = np.bincount(lines, weights=kinds[self.tokens], minlength=len(self))
            if len(bad := np.flatnonzero(per_line == 0)):
                raise InvalidValueError(
                    f"{self.where} line {int(bad[0]) + 1:,} has {what}: each line needs one or more labels and "
                    f"some text, as in '{LABEL}zool. a small fish' ({len(bad):,} of {len(self):,} lines have {what})"
                )


def _hashes(text: LabelledText) -> np.ndarray:
    """(U,) int64: each type's fastText hash, as split_text gave it or computed now."""
    return word_hashes(text.types) if text.hashes is None else text.hashes


def _check_text(data: bytes, where: str) -> None:
    """FileFormatError unless `data` is UTF-8 text without NUL bytes, naming the line and byte."""
    try:
        data.decode("utf-8")
        bad, why = data.find(b"\0"), "a NUL byte"
    except UnicodeDecodeError as err:
        bad, why = err.start, f"the byte 0x{data[err.start]:02x}, which is not UTF-8"
    if bad >= 0:
        line = data.count(b"\n", 0, bad) + 1
        raise FileFormatError(f"{where} line {line:,} (byte {bad:,}): expected {EXPECTED}; found {why}")


@dataclass(frozen=True, eq=False)
class Bags:
    """Each line's input row ids and label ids: line l averages rows ids[offsets[l]:offsets[l + 1]]
    and should predict labels[label_offsets[l]:label_offsets[l + 1]]."""

    ids: np.ndarray  # (N,) int32 input rows
    offsets: np.ndarray  # (L+1,) int64
    labels: np.ndarray  # (M,) int32 label ids, 0..nlabels-1
    label_offsets: np.ndarray  # (L+1,) int64
    tokens: np.ndarray  # (L,) int64 tokens read on each line (labels and "</s>" included): what the rate follows

    def __len__(self) -> int:
        return len(self.offsets) - 1


@dataclass(frozen=True, eq=False)
class Dictionary:
    """The classifier's words and labels and how a line's input rows are found (fastText's Dictionary)."""

    words: list[str]  # (nwords,) most frequent first; "</s>" is one of them
    labels: list[str]  # (nlabels,) "__label__X", most frequent first
    word_counts: np.ndarray  # (nwords,) int64
    label_counts: np.ndarray  # (nlabels,) int64
    word_ngrams: int = 1  # the longest word n-gram (1: words alone)
    bucket: int = 0  # hashed rows for word and character n-grams (0 with neither)
    min_n: int = 0  # character n-grams of min_n..max_n characters; max_n 0: none (the classifier's default)
    max_n: int = 0
    pruned: np.ndarray | None = None  # (bucket,) int32 kept row of each bucket, -1 pruned; None: all kept

    def __post_init__(self) -> None:
        check_int("word_ngrams", self.word_ngrams, low=1, high=MAX_WORD_NGRAMS)
        check_int("bucket", self.bucket, low=0, high=MAX_BUCKETS)
        if (self.word_ngrams > 1 or self.max_n > 0) and self.bucket < 1:
            raise InvalidValueError(f"bucket must be >= 1 with word n-grams or character n-grams; got {self.bucket}")

    @functools.cached_property
    def _word_ids(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}

    @functools.cached_property
    def _label_ids(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.labels)}

    @property
    def rows(self) -> int:
        """Input rows: the words', then the kept buckets'."""
        return len(self.words) + (self.bucket if self.pruned is None else int((self.pruned >= 0).sum()))

    @classmethod
    def build(
        cls,
        text: LabelledText,
        min_count: int = 1,
        min_count_label: int = 0,
        word_ngrams: int = 1,
        bucket: int = 2_000_000,
        min_n: int = 0,
        max_n: int = 0,
    ) -> Dictionary:
        """The dictionary fastText builds from training text: words seen >= min_count times and labels
        seen >= min_count_label times, each by count, ties in order of first appearance. Without word
        or character n-grams no buckets are kept (fastText sets -bucket 0 then)."""
        counts, label = text.counts, text.is_label
        by_count = np.argsort(-counts, kind="stable")
        words = [i for i in by_count if not label[i] and counts[i] >= min_count]
        labels = [i for i in by_count if label[i] and counts[i] >= min_count_label]
        if word_ngrams <= 1 and max_n == 0:
            bucket = 0
        return cls(
            [text.types[i].decode() for i in words],
            [text.types[i].decode() for i in labels],
            counts[words],
            counts[labels],
            word_ngrams,
            bucket,
            min_n,
            max_n,
        )

    @classmethod
    def of_model(cls, model: FastTextModel) -> Dictionary:
        """The dictionary a supervised .bin holds (its pruned buckets too, after `quantize -cutoff`)."""
        nwords, a = int(np.count_nonzero(model.entry_types == 0)), model.args
        pruned = None
        if (pairs := getattr(model, "pruneidx", None)) is not None:
            pairs = np.array(list(pairs.items()) if isinstance(pairs, dict) else pairs, np.int64).reshape(-1, 2)
            pruned = np.full(a["bucket"], -1, np.int32)
            pruned[pairs[:, 0]] = pairs[:, 1]
        return cls(
            model.words[:nwords],
            model.words[nwords:],
            model.counts[:nwords],
            model.counts[nwords:],
            max(1, a["wordNgrams"]),
            a["bucket"],
            a["minn"],
            a["maxn"],
            pruned,
        )

    def encode(self, text: LabelledText) -> Bags:
        """Every line of `text` -> its input row ids and label ids (labels the dictionary lacks are dropped)."""
        from embedlab.models.bag_kernels import fill_bags  # numba, imported only here

        nwords, word_id, label_id = len(self.words), self._word_ids, self._label_ids
        names = [t.decode() for t in text.types]
        is_label = text.is_label
        kind = np.where(is_label, 1, 0).astype(np.int8)
        target = np.array(
            [label_id.get(n, -1) if lab else word_id.get(n, -1) for n, lab in zip(names, is_label, strict=True)],
            dtype=np.int32,
        )
        kind[is_label & (target < 0)] = 2  # a label the model does not know: read, then ignored
        sub_offsets, sub_ids = self._subwords(names, target, is_label)
        prune = np.arange(0, dtype=np.int32) if self.pruned is None else self.pruned
        ids, offsets, labels, label_offsets = fill_bags(
            text.tokens, text.offsets, kind, target, _hashes(text), sub_offsets, sub_ids,
            self.word_ngrams, self.bucket, nwords, prune, self.pruned is not None,
        )  # fmt: skip
        return Bags(ids, offsets, labels, label_offsets, np.diff(text.offsets))

    def _subwords(self, names: list[str], target: np.ndarray, is_label: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each type's own rows: (U+1,) offsets, (S,) int32 row ids: a known word its row, then with
        max_n > 0 its character n-grams' rows (an unknown word only those; "</s>" none); a label none."""
        nwords = len(self.words)
        own = [[] if lab or t < 0 else [int(t)] for t, lab in zip(target, is_label, strict=True)]
        if self.max_n > 0:
            offsets, buckets = vocab_ngram_buckets(
                [EOS if lab else n for n, lab in zip(names, is_label, strict=True)], self.min_n, self.max_n, self.bucket
            )
            rows = buckets if self.pruned is None else self.pruned[buckets]
            for u, row in enumerate(own):
                kept = rows[offsets[u] : offsets[u + 1]]
                row.extend((nwords + kept[kept >= 0]).tolist())
        lengths = np.array([len(r) for r in own], dtype=np.int64)
        offsets = np.zeros(len(own) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return offsets, np.array([i for r in own for i in r], dtype=np.int32)
