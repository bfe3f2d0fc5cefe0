"""SubwordVectors: a table that answers any word, as fastText's and gensim's FastTextKeyedVectors do.

    table = SubwordVectors(words, word_rows, ngram_rows, min_n=3, max_n=6)
    table["unhappinesses"]                 # (d,) even without a row: the mean of its n-grams' rows
    "unhappinesses" in table               # True: a vector can be made for it
    table.has_index_for("unhappinesses")   # False: it has no row of its own
    table.source("unhappinesses")          # "ngrams" ("word" for a word with a row)
    table.most_similar("unhappinesses")    # ranks the whole words, as every Vectors query
    table = SubwordVectors.load("wiki.bin")  # a fastText .bin (the tool's, gensim's or ours), mapped
    table.save("copy.bin")                   # Facebook's .bin again: fastText and gensim read it
    table.save("copy.ftz", dsub=4)           # the same product-quantized: fastText and load() read it
    table.training                           # {"epoch": 5, "window": 5, ...}: the settings a .bin's
                                             # header gets (a run folder's own, a .bin's; None: fastText's)

    load("minilm" | PATH)                    # the richest table a name or path holds: a SubwordVectors
                                             # for a fastText .bin with n-grams or an `embedlab train
                                             # --subwords` run folder, else Vectors.load
    SubwordVectors(words, None, bucket_rows, hash_count=2)   # floret's mode: words hashed with the n-grams

fastText keeps two kinds of input rows: one per vocabulary word (`word_rows`, V × d) and one per
hash bucket (`ngram_rows`, B × d) shared by every character n-gram hashed into it (embedlab.hashing
hashes them, as fastText does). A word's vector is the mean of its own row and its n-grams' rows
(fastText's getWordVector); a word without a row gets the mean of its n-grams' rows alone, so a
misspelling or an inflection still lands near its relatives. `vectors` (V, d) holds the composed
vector of every whole word, computed once here, so every query of Vectors (neighbours, analogies,
benchmarks, comparisons, exports as word2vec text: what fastText writes to .vec) works unchanged;
only the lookup of one key (`Vectors._vector_of`) is overridden.

floret's mode (`hash_count` 1..4, explosion/floret) keeps no word rows: the whole word "<word>" is
hashed into the bucket rows like one more n-gram, each key `hash_count` times (MurmurHash3), and every
word's vector, seen or not, is the mean of those rows. A compact table (50,000 buckets instead of
2,000,000) that still answers any word. `word_rows` is then None; the whole words are still the keys
(`key_to_index`, `has_index_for`, source "word"), their composed vectors the rows of `vectors`. A
floret .bin reads and writes as floret answers, the word at index 0 included (see from_fasttext).

A word with no n-gram of min_n..max_n characters ("a" when min_n is 5; fastText's end-of-sentence
"</s>") has no vector: where gensim returns the zero vector, this raises UnknownKeyError saying
why, and so does a word none of whose buckets was ever updated in training (when `bucket_counts`
says so), whose vector would be the buckets' random initial values.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from embedlab.errors import FileFormatError, InvalidValueError, UnknownKeyError, describe
from embedlab.files import FileStamp, check_path
from embedlab.files.reading import file_exists, readable_file
from embedlab.hashing import MAX_N, MIN_N, check_ngram_range, compose_rows, ngram_buckets, vocab_ngram_buckets
from embedlab.vectors import io
from embedlab.vectors import similarity as sim
from embedlab.vectors.io.fasttext import FastTextModel, read_fasttext, write_fasttext
from embedlab.vectors.io.fasttext_model import training_of_run
from embedlab.vectors.io.floret import write_floret_text
from embedlab.vectors.io.quantized import check_quantizer, quantize_word_model
from embedlab.vectors.io.run import RUN_FILE, RUN_SUBWORDS, read_record, read_run_table, read_subwords
from embedlab.vectors.io.table import check_finite
from embedlab.vectors.similarity import read_only
from embedlab.vectors.table import Vectors

if TYPE_CHECKING:
    import torch

SOURCES = ("word", "ngrams")  # where a vector comes from: the word's own row, or its n-grams alone


class SubwordVectors(Vectors):
    """Whole words `keys` (V,) with their own rows `word_rows` (V, d) float32 and the hash-bucket
    rows `ngram_rows` (B, d) float32 of fastText's character n-grams (min_n..max_n characters);
    `counts` (V,) corpus frequencies and `bucket_counts` (B,) int64 training updates per bucket,
    when known (None for a file from fastText or gensim). `hash_count` 1..4: floret's mode, with
    `word_rows` None (the words are hashed into the bucket rows too); None: fastText's.

    The rows are kept as given, not copied (a memory-mapped `ngram_rows` stays mapped) and are
    handed out read-only; `vectors` (V, d) are the composed whole-word vectors.
    """

    composes = True  # a word without a row gets the mean of its n-gram rows

    def __init__(
        self,
        keys: Sequence[str],
        word_rows: np.ndarray | torch.Tensor,
        ngram_rows: np.ndarray | torch.Tensor,
        counts: Sequence[int] | np.ndarray | None = None,
        *,
        min_n: int = MIN_N,
        max_n: int = MAX_N,
        name: str = "vectors",
        bucket_counts: Sequence[int] | np.ndarray | None = None,
        hash_count: int | None = None,
    ):
        grams = sim.as_array(ngram_rows)
        if (word_rows is None) != (hash_count is not None):
            raise InvalidValueError(
                "word_rows must be None in floret's mode (hash_count 1..4: words are hashed into the bucket rows) "
                f"and a (V, d) matrix otherwise; got hash_count {hash_count} and word_rows {describe(word_rows)}"
            )
        words = None if word_rows is None else sim.as_array(word_rows)
        if grams.ndim != 2 or (words is not None and (words.ndim != 2 or words.shape[1] != grams.shape[1])):
            raise InvalidValueError(
                f"word_rows (V, d) and ngram_rows (B, d) must be matrices of one width; "
                f"got shapes {None if words is None else tuple(words.shape)} and {tuple(grams.shape)}"
            )
        if words is not None and len(keys) != words.shape[0]:
            raise InvalidValueError(f"{len(keys)} keys for {words.shape[0]} word rows; need one key per row")
        check_ngram_range(min_n, max_n, grams.shape[0], hash_count)  # also: at least one bucket
        self._set_keys(keys, counts, name)  # the composed rows are made on first use (`_rows`)
        self._composed: np.ndarray | None = None
        self._first_own_row: np.ndarray | None = None  # floret's quirk, for a floret file (from_fasttext)
        self.mapped: FileStamp | None = None  # the file the rows are mapped from (load), checked before each read
        self._word_rows = words  # (V, d) each word's own input row; None in floret's mode
        self._ngram_rows = grams  # (B, d) the bucket rows, shared by the n-grams hashed to each
        self.min_n, self.max_n, self.hash_count = min_n, max_n, hash_count
        self.bucket_counts = None if bucket_counts is None else np.asarray(bucket_counts, dtype=np.int64)
        # the settings the rows were trained with, by FastTextModel.from_arrays' names, where known (a
        # .bin's Args, a run folder's run.json): a .bin written from the table says them, not fastText's defaults
        self.training: dict | None = None
        if self.bucket_counts is not None and self.bucket_counts.shape != (self.buckets,):
            raise InvalidValueError(
                f"bucket_counts must have one entry per bucket ({self.buckets}); got shape {self.bucket_counts.shape}"
            )

    # ---- fastText files ------------------------------------------------------------------------

    @classmethod
    def from_fasttext(cls, model: FastTextModel, name: str = "vectors") -> SubwordVectors:
        """The whole words of a fastText model (labels left out), its rows kept as they are (mapped,
        for a model read from a file). A floret model in floret's mode gives a floret table whose
        word at index 0 answers as floret does: the mean of its own row and its bucket rows (floret
        keeps that one word row, meant for "</s>": io.fasttext.word_vectors)."""
        if model.max_n == 0 or model.buckets == 0:
            raise InvalidValueError(
                f"{name} has no n-grams (maxn {model.max_n}, bucket {model.buckets}): a plain table"
            )
        n, floret = model.nwords, model.hash_count
        word_rows = None if floret else model.word_rows
        table = cls(
            model.words[:n],
            word_rows,
            model.ngram_rows,
            model.counts[:n],
            min_n=model.min_n,
            max_n=model.max_n,
            name=name,
            hash_count=floret,
        )
        if floret and n:  # floret's quirk, as the file means it: its first word keeps its own row
            table._first_own_row = model.word_rows[0]
        table.training = model.training
        return table

    @classmethod
    def load(cls, path: str | Path) -> SubwordVectors:  # type: ignore[override]
        """A fastText .bin with n-grams (the tool's, gensim's or ours), its matrices memory-mapped."""
        stamp = FileStamp.of(
            readable_file(path, "a fastText model (.bin)")
        )  # before the mapping: a change after it shows
        table = cls.from_fasttext(read_fasttext(path), name=str(path))
        table.mapped = stamp
        return table

    def to_fasttext(self, output: np.ndarray | None = None) -> FastTextModel:
        """The table as a fastText model: its word and bucket rows, counts (1 each when unknown) and
        `output` rows (V, d) (None: zeros, enough to read vectors, not to go on training).

        A floret table gives a floret model (floret's Args, mode 2) whose word rows are zeros but
        row 0: floret counts the first word's own row in its mean (from_fasttext), so row 0 is the
        one that makes that mean the table's vector: (k + 1) * vector - the sum of its k bucket rows.
        """
        self._check_mapped()
        word_rows = self._word_rows
        if self.hash_count is not None:
            word_rows = np.zeros((len(self), self.vector_size), np.float32)
            if len(self):
                ids = self._hashed_ids(self.index_to_key[0])
                word_rows[0] = (len(ids) + 1) * self._rows[0] - self._ngram_rows[ids].sum(axis=0, dtype=np.float32)
        return FastTextModel.from_arrays(
            self.index_to_key,
            word_rows,
            self._ngram_rows,
            self.counts,
            output,
            min_n=self.min_n,
            max_n=self.max_n,
            hash_count=self.hash_count,
            **(self.training or {}),
        )

    def save(
        self,
        path: str | Path,
        format: str | None = None,
        replace: bool = True,
        *,
        dsub: int | None = None,
        qnorm: bool = False,
    ) -> list[Path]:
        """As Vectors.save, but a .bin (or format "fasttext") is Facebook's fastText format, which
        keeps the n-grams (floret's .bin for a floret table), a .ftz (format "ftz") the same with its
        word and bucket rows product-quantized (io/quantized.py), and a .floret (or format "floret")
        is floret's text vectors, a floret table's bucket rows alone (io/floret.py: what spaCy reads);
        any other format holds the composed whole-word vectors."""
        chosen = self.save_format(path, format)
        check_quantizer(chosen, dsub, qnorm)
        if chosen == "ftz":
            return [write_fasttext(quantize_word_model(self.to_fasttext(), dsub, qnorm), path, replace)]
        if chosen == "fasttext":
            return [write_fasttext(self.to_fasttext(), path, replace)]
        if chosen == "floret":
            if self.hash_count is None:
                raise InvalidValueError(
                    f"cannot write {path} as floret's text vectors: they hold bucket rows that words are hashed into "
                    "too (floret's mode), and this table has word rows of its own; write a .bin"
                )
            return [
                write_floret_text(
                    self._ngram_rows,
                    path,
                    min_n=self.min_n,
                    max_n=self.max_n,
                    hash_count=self.hash_count,
                    replace=replace,
                )
            ]
        return super().save(path, format, replace, dsub=dsub, qnorm=qnorm)

    def save_format(self, path: str | Path, format: str | None = None) -> str:
        """ "fasttext" for a .bin (word2vec binary cannot hold n-grams) and "floret" for a .floret,
        unless `format` says otherwise."""
        chosen = super().save_format(path, format)
        return "fasttext" if format is None and chosen == "word2vec-bin" else chosen

    # ---- rows ----------------------------------------------------------------------------------

    @property
    def word_rows(self) -> np.ndarray | None:
        """(V, d) float32 read-only view of each whole word's own row; None in floret's mode."""
        self._check_mapped()
        return None if self._word_rows is None else read_only(self._word_rows.view())

    @property
    def ngram_rows(self) -> np.ndarray:
        """(B, d) float32 read-only view of the hash-bucket rows."""
        self._check_mapped()
        return read_only(self._ngram_rows.view())

    @property
    def _rows(self) -> np.ndarray:
        """(V, d) the composed whole-word vectors, made on first use: an unseen word's query needs
        only its own n-gram rows, so loading a 2,000,000-bucket .bin to that first answer reads
        neither every word's n-grams nor most of the mapped bucket rows."""
        if self._composed is None:
            self._check_mapped()
            keys, grams = self.index_to_key, self._ngram_rows
            offsets, ids = vocab_ngram_buckets(keys, self.min_n, self.max_n, len(grams), hash_count=self.hash_count)
            composed = compose_rows(self._word_rows, grams, offsets, ids)
            if self._first_own_row is not None:  # floret: (own + k buckets' mean * k) / (k + 1)
                k = offsets[1] - offsets[0]
                composed[0] = (self._first_own_row + k * composed[0]) / np.float32(k + 1)
            if not np.isfinite(composed).all():  # name the row it came from: a word's own, or a bucket's
                where = Path(self.name)
                if self._word_rows is not None:
                    check_finite(where, keys, self._word_rows)
                row = int(np.flatnonzero(~np.isfinite(composed).all(axis=1))[0])
                self._bucket_rows(ids[offsets[row] : offsets[row + 1]])
                check_finite(where, keys, composed)  # finite rows whose mean is not (beyond float32's range)
            self._composed = composed
        return self._composed

    @_rows.setter
    def _rows(self, rows: np.ndarray) -> None:
        self._composed = rows

    @property
    def vector_size(self) -> int:
        return self._ngram_rows.shape[1]

    @property
    def buckets(self) -> int:
        """B, the number of hash buckets n-grams are hashed into."""
        return self._ngram_rows.shape[0]

    def __repr__(self) -> str:
        floret = "" if self.hash_count is None else f", words too, each key hashed {self.hash_count} times (floret)"
        return (
            f"SubwordVectors({self.name!r}, {len(self)} words × {self.vector_size}, "
            f"{self.buckets} buckets of {self.min_n}..{self.max_n}-grams{floret})"
        )

    def __contains__(self, key: object) -> bool:
        """Whether a vector can be made for `key`: its own row, or at least one (updated) n-gram.
        gensim's FastTextKeyedVectors says True for every word, even one it can only give zeros."""
        if key in self.key_to_index:
            return True
        try:
            self._ngram_ids(key)
        except UnknownKeyError:
            return False
        return True

    def source(self, key: str) -> str:
        """ "word" if `key` has its own row, "ngrams" if its vector is made from its n-grams alone;
        UnknownKeyError (saying why) if neither can be."""
        if key in self.key_to_index:
            return "word"
        self._ngram_ids(key)
        return "ngrams"

    # ---- internals -----------------------------------------------------------------------------

    def _vector_of(self, key: str, unit: bool = False) -> np.ndarray:
        if key in self.key_to_index:
            return super()._vector_of(key, unit)
        ids = self._ngram_ids(key)
        # fastText's order: the rows added one after another in float32, then divided by their count
        vector = self._bucket_rows(ids).sum(axis=0, dtype=np.float32) / np.float32(len(ids))  # (d,)
        return sim.unit_rows(vector) if unit else vector

    def _check_mapped(self) -> None:
        """FileChangedError if the file the rows are mapped from changed since it was loaded: touching
        a mapping of a file cut short kills the process (SIGBUS), so every read through it asks first."""
        if self.mapped is not None:
            self.mapped.check(self.name)

    def _bucket_rows(self, ids: np.ndarray) -> np.ndarray:
        """(n, d) float32 a copy of the bucket rows `ids`, read through the mapping only after
        _check_mapped; a NaN or ±inf among them is FileFormatError naming the bucket row and column."""
        self._check_mapped()
        rows = self._ngram_rows[ids]  # fancy indexing: a copy
        bad = np.argwhere(~np.isfinite(rows))
        if len(bad):
            i, column = (int(x) for x in bad[0])
            raise FileFormatError(
                f"{self.name}: n-gram bucket row {int(ids[i])} column {column} holds {rows[i, column]}; "
                "vectors must be finite numbers"
            )
        return rows

    def _ngram_ids(self, key: object) -> np.ndarray:
        """(n,) int64 bucket ids of a key without a row; UnknownKeyError if they make no vector."""
        if not isinstance(key, str):
            raise self._unknown(key)
        self._check_mapped()  # bucket_counts may be mapped too
        ids = self._hashed_ids(key)
        where = f"unknown key {key!r}: not among the {len(self)} words of {self.name}"
        if not len(ids):
            raise UnknownKeyError(
                f"{where}, and it has no character n-gram of {self.min_n} to {self.max_n} characters "
                "(boundary marks < > included) to make a vector from"
            )
        if self.bucket_counts is not None and not self.bucket_counts[ids].any():
            raise UnknownKeyError(
                f"{where}, and none of the buckets of its {len(ids)} n-grams was updated in training: "
                "their rows are still the random initial values"
            )
        return ids

    def _hashed_ids(self, word: str) -> np.ndarray:
        """(n,) int64 the bucket ids `word`'s vector is made from (floret's: "<word>"'s, then its n-grams')."""
        return ngram_buckets(word, self.min_n, self.max_n, self.buckets, hash_count=self.hash_count)


def load(name_or_path: str | Path) -> Vectors:
    """The table a built-in name or a path holds, as the richest class that can answer for it: a
    SubwordVectors for a fastText .bin with n-grams or a subword run folder (any word gets a vector;
    the bucket rows memory-mapped; a floret run's, whose subwords.safetensors has no word_rows and
    says its hash_count, in floret's mode), else Vectors.load."""
    path = Path(check_path(name_or_path, "a table's name or path"))
    if path.is_dir() and file_exists(path / RUN_SUBWORDS, "a subword run's rows"):
        table = read_run_table(path)  # the whole words, their counts (and composed vectors, made again here)
        stamp = FileStamp.of(path / RUN_SUBWORDS)  # before the mapping: a change after it shows
        rows = read_subwords(path)
        subwords = SubwordVectors(table.keys, rows.word_rows, rows.ngram_rows, table.counts, min_n=rows.min_n,
                                  max_n=rows.max_n, name=str(name_or_path), bucket_counts=rows.bucket_counts,
                                  hash_count=rows.hash_count)  # fmt: skip
        subwords.mapped = stamp
        subwords.training = run_training(path)
        return subwords
    if path.is_file() and io.detect_format(path) == "fasttext":
        stamp = FileStamp.of(path)
        model = read_fasttext(path)
        if model.max_n > 0 and model.buckets > 0:
            subwords = SubwordVectors.from_fasttext(model, name=str(name_or_path))
            subwords.mapped = stamp
            return subwords
    return Vectors.load(name_or_path)


def run_training(folder: Path) -> dict | None:
    """A run folder's training settings for its .bin's header (FastTextModel.from_arrays' names),
    from its run.json; None for a folder without one (its header then says fastText's defaults)."""
    if not file_exists(folder / RUN_FILE, "a run's settings"):
        return None
    return training_of_run(read_record(folder)["config"], str(folder / RUN_FILE))
