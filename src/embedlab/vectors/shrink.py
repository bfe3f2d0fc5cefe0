"""Rare rows shrunk toward a prior: the lessons' remedy for words too rare to have learned a good row.

    shrink_rows(rows, counts, prior, strength=20)      (V, d) -> (V, d): row w moved toward prior w
    shrink_rare(table, strength=20, toward="ngrams")  a new table of the same kind, its rare rows shrunk

A row moves only when its word is in a batch, so a word seen c times has had c chances to leave its
random start: its row is a noisy estimate. Lessons 000 and 002 name the remedy ("regularising or
averaging embeddings for low-frequency tokens"); this is the averaging one, as a post-processing of a
trained table. Each row is pulled toward a prior by its count,

    row'_w = λ_w · row_w + (1 - λ_w) · prior_w,    λ_w = c_w / (c_w + k)

so a word seen k times keeps half its own row, one seen 10·k times 91%, and the frequent rows barely
move. k (`strength`) is a pseudo-count: how many occurrences the prior is worth. Two priors:

    "ngrams"  (a subword table) the mean of the word's character n-gram rows: what the table would
              give the word if it had no row of its own. The word's own row is shrunk, and its vector
              is then composed as before, the mean of its own row and its n-grams' rows; shrinking
              the own row toward the n-gram mean by λ is the same as shrinking the composed vector
              toward the n-gram mean by λ. Words without a row (unseen, or below min_count) keep
              their n-gram vector, so the table covers the same words.
    "mean"    (any table with counts) the mean of all rows: the one prior a whole-word table has.

Measured on RW with `python docs/rare_rows.py` (docs/training.md, "Rare rows shrunk toward their
subwords"): which rows it helps and which it hurts is there, by the count of the pair's rarer word.
"""

from __future__ import annotations

import numpy as np

from embedlab.errors import InvalidValueError, check_choice, check_float
from embedlab.hashing import compose_rows, vocab_ngram_buckets
from embedlab.vectors.subword import SubwordVectors
from embedlab.vectors.table import Vectors

PRIORS = ("ngrams", "mean")  # what a rare row is shrunk toward


def shrink_rows(rows: np.ndarray, counts: np.ndarray, prior: np.ndarray, strength: float) -> np.ndarray:
    """(V, d) rows, (V,) counts, a (V, d) or (d,) prior -> (V, d) float32, row w moved to
    λ·row + (1 - λ)·prior with λ = c_w / (c_w + strength); strength 0 leaves every row as it is.

    >>> shrink_rows(np.array([[4.0], [4.0]]), np.array([20, 180]), np.zeros(1), strength=20).tolist()
    [[2.0], [3.5999999046325684]]
    """
    rows, counts = np.asarray(rows, dtype=np.float32), np.asarray(counts)
    strength = check_float("strength", strength, low=0.0)
    if rows.ndim != 2 or counts.shape != rows.shape[:1]:
        raise InvalidValueError(f"need (V, d) rows and (V,) counts; got {rows.shape} and {counts.shape}")
    if (counts < 0).any():
        raise InvalidValueError(f"counts must be >= 0; got {int(counts.min())}")
    if strength == 0:
        return rows.copy()
    keep = (counts / (counts + strength)).astype(np.float32)[:, None]  # (V, 1) λ; a count of 0 keeps nothing
    return keep * rows + (1 - keep) * np.asarray(prior, dtype=np.float32)


def ngram_means(table: SubwordVectors) -> tuple[np.ndarray, np.ndarray]:
    """(V, d) float32 each whole word's n-gram rows' mean, and (V,) bool which words have any n-gram."""
    offsets, ids = vocab_ngram_buckets(table.index_to_key, table.min_n, table.max_n, table.buckets)
    return compose_rows(None, table.ngram_rows, offsets, ids), np.diff(offsets) > 0


def shrink_rare(table: Vectors, strength: float = 20.0, toward: str = "ngrams") -> Vectors:
    """A new table whose rows are shrunk toward `toward`'s prior by their counts (module docstring):
    a SubwordVectors for a SubwordVectors (its own word rows shrunk, its n-gram rows as they were), a
    Vectors otherwise. The table must know its counts (a training run's does); `table` is unchanged."""
    check_choice("toward", toward, PRIORS)
    if table.counts is None:
        raise InvalidValueError(f"{table.name} has no counts: a rare row is told by its count (a run folder has them)")
    subword = isinstance(table, SubwordVectors)
    if subword and table.word_rows is None:
        raise InvalidValueError(f"{table.name} is a floret table: it has no word rows of its own to shrink")
    if toward == "ngrams" and not subword:
        raise InvalidValueError(f"{table.name} has no n-grams (a whole-word table); shrink it toward 'mean'")
    rows = table.word_rows if subword else table.vectors  # (V, d) what training gave each word
    if toward == "mean":
        prior = rows.mean(axis=0)  # (d,)
    else:
        means, has = ngram_means(table)
        prior = np.where(has[:, None], means, rows)  # a word without n-grams keeps its own row
    shrunk = shrink_rows(rows, table.counts, prior, strength)
    name = f"{table.name} shrunk toward {toward} (k {strength:g})"
    if not subword:
        return Vectors(table.index_to_key, shrunk, table.counts, name=name)
    return SubwordVectors(table.index_to_key, shrunk, table.ngram_rows, table.counts, min_n=table.min_n,
                          max_n=table.max_n, name=name, bucket_counts=table.bucket_counts)  # fmt: skip
