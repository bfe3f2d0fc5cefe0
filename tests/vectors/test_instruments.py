"""The instruments for text encoders: WordSim-7 against scipy's Spearman on the same cosines."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from scipy.stats import spearmanr

from embedlab.data.benchmarks import WORDSIM7
from embedlab.errors import InvalidValueError
from embedlab.vectors.instruments import word_text, wordsim7
from embedlab.vectors.io.benchmarks import read_benchmark_pairs


def _letters(texts: list[str]) -> np.ndarray:
    """A crude encoder: each text's letter counts (26 columns; words sharing letters are close) plus a
    little noise seeded by the text, so that no two pairs' cosines tie in exact arithmetic (a tie that
    float rounding splits one way here and another way in scipy would move the ranks)."""
    out = np.zeros((len(texts), 26))
    for i, text in enumerate(texts):
        for ch in text:
            if "a" <= ch <= "z":
                out[i, ord(ch) - 97] += 1
        out[i] += np.random.default_rng(zlib.crc32(text.encode())).normal(0, 0.1, 26)
    return out


def test_each_set_is_scipys_spearman_of_the_cosines_and_the_score_their_mean():
    result = wordsim7(_letters, resamples=200)
    assert list(result.sets) == list(WORDSIM7) and result.pairs["card660"] == 660
    for name in WORDSIM7:
        pairs = read_benchmark_pairs(name)
        a, b = (_letters([word_text(p[i]) for p in pairs]) for i in (0, 1))
        norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
        cosine = np.divide((a * b).sum(axis=1), norms, out=np.zeros(len(pairs)), where=norms > 0)
        expected = 100 * spearmanr([p[2] for p in pairs], cosine).statistic
        assert result.sets[name] == pytest.approx(expected, abs=1e-9), name
    assert result.score == pytest.approx(np.mean(list(result.sets.values())))
    low, high = result.interval
    assert low < result.score < high and high - low < 10  # seven sets of 252-3,500 pairs: a few points wide
    assert wordsim7(_letters, resamples=200) == result  # one seed, one interval


def test_word_text_and_bad_encoders():
    assert word_text("Formic_acid") == "formic acid"
    with pytest.raises(InvalidValueError, match="one finite row a text"):
        wordsim7(lambda texts: np.zeros((len(texts) - 1, 4)), resamples=100)
    with pytest.raises(InvalidValueError, match="one finite row a text"):
        wordsim7(lambda texts: np.full((len(texts), 4), np.nan), resamples=100)
