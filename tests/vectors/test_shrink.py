"""Rare rows shrunk toward a prior: the weights by hand, the n-gram prior against the table's own
composition, and the tables it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.errors import InvalidValueError
from embedlab.vectors import SubwordVectors, Vectors
from embedlab.vectors.shrink import shrink_rare, shrink_rows

TOL32 = 1e-6  # float32 means of a few rows of size ~1: round-off near 2^-24 of each term


def test_each_row_keeps_its_share_of_count_over_count_plus_k():
    rows = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]], np.float32)
    prior = np.array([0.0, 1.0], np.float32)
    out = shrink_rows(rows, np.array([0, 10, 30, 990]), prior, strength=10)
    keep = np.array([0.0, 0.5, 0.75, 0.99])  # c / (c + 10)
    np.testing.assert_allclose(out, np.stack([keep, 1 - keep], axis=1), atol=TOL32)
    assert np.array_equal(shrink_rows(rows, np.array([0, 1, 2, 3]), prior, strength=0), rows)  # k 0: no change


def test_bad_inputs_are_named():
    rows = np.ones((2, 3), np.float32)
    with pytest.raises(InvalidValueError, match="strength must be >= 0"):
        shrink_rows(rows, np.array([1, 2]), rows, strength=-1)
    with pytest.raises(InvalidValueError, match=r"\(V, d\) rows and \(V,\) counts"):
        shrink_rows(rows, np.array([1, 2, 3]), rows, strength=1)
    with pytest.raises(InvalidValueError, match="counts must be >= 0; got -4"):
        shrink_rows(rows, np.array([1, -4]), rows, strength=1)
    with pytest.raises(InvalidValueError, match="has no counts"):
        shrink_rare(Vectors(["a", "b"], rows))
    with pytest.raises(InvalidValueError, match="toward 'mean'"):
        shrink_rare(Vectors(["a", "b"], rows, [5, 1]))


def _subword_table() -> SubwordVectors:
    rng = np.random.default_rng(0)
    words = ["cat", "catalogue", "dog"]
    word_rows, bucket_rows = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=(50, 4)).astype(np.float32)
    return SubwordVectors(words, word_rows, bucket_rows, [1000, 3, 0])


def test_the_ngram_prior_moves_the_composed_vector_toward_the_words_ngrams():
    table = _subword_table()
    shrunk = shrink_rare(table, strength=3, toward="ngrams")
    for word, count in zip(table.index_to_key, table.counts, strict=True):
        # the oracle: the table's own answer for the word without its row (its n-grams' mean), made
        # by a table that knows only the other words
        others = [w for w in table.index_to_key if w != word]
        rows = np.stack([table.word_rows[table.key_to_index[w]] for w in others])
        alone = SubwordVectors(others, rows, table.ngram_rows, min_n=table.min_n, max_n=table.max_n)
        keep = count / (count + 3)
        expected = keep * table[word] + (1 - keep) * alone[word]
        np.testing.assert_allclose(shrunk[word], expected, atol=TOL32)
    assert np.array_equal(shrunk["catalog"], table["catalog"])  # a word without a row: its n-grams, unchanged
    assert np.array_equal(table.word_rows, _subword_table().word_rows)  # the table itself is unchanged


def test_the_mean_prior_on_a_whole_word_table():
    table = Vectors(["a", "b"], np.array([[2.0, 0.0], [0.0, 2.0]], np.float32), [20, 0])
    shrunk = shrink_rare(table, strength=20, toward="mean")
    # a keeps half its row and takes half of the mean (1, 1); b, never seen, is the mean
    np.testing.assert_allclose(shrunk.vectors, [[1.5, 0.5], [1.0, 1.0]], atol=TOL32)
    assert shrunk.counts.tolist() == [20, 0] and type(shrunk) is Vectors
