"""The instruments for text encoders: WordSim-7 against scipy's Spearman on the same cosines, the reverse
dictionary against ranks counted one definition at a time, domains against scikit-learn run by hand,
fidelity against scipy; the gcide items themselves are tests/data/test_gcide.py's."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from scipy.stats import spearmanr

from embedlab.data.benchmarks import WORDSIM7
from embedlab.errors import InvalidValueError
from embedlab.vectors.instruments import domains, fidelity, reverse_dictionary, word_text, wordsim7
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


PAIRS = [("cat", "a small cat that purrs"), ("dog", "a loyal dog"), ("oak", "a tall oak tree"),
         ("fig", "sweet fruit"), ("eel", "an eel fish"), ("yak", "shaggy ox")]  # fmt: skip


def test_the_reverse_dictionary_ranks_each_definitions_headword_among_all():
    result = reverse_dictionary(_letters, PAIRS, resamples=200)
    heads = _letters([h for h, _ in PAIRS])
    heads /= np.linalg.norm(heads, axis=1, keepdims=True)
    ranks = []
    for i, (_, definition) in enumerate(PAIRS):  # one definition at a time, ties against the model
        d = _letters([definition])[0]
        cosines = heads @ (d / np.linalg.norm(d))
        ranks.append(int((cosines >= cosines[i]).sum()))
    ranks = np.array(ranks)
    assert result.figures["recall@1"] == pytest.approx(100 * np.mean(ranks == 1))
    assert result.figures["recall@10"] == 100.0  # 6 headwords: every one is in the top 10
    assert result.figures["mrr"] == pytest.approx(100 * np.mean(1 / ranks))
    assert result.items == 6 and result.baseline["recall@1"] == pytest.approx(100 / 6)
    low, high = result.intervals["mrr"]
    assert low <= result.figures["mrr"] <= high
    constant = reverse_dictionary(lambda texts: np.ones((len(texts), 3)), PAIRS, resamples=100)
    assert constant.figures["recall@1"] == 0 and constant.figures["mrr"] == pytest.approx(100 / 6)  # all tie: last


def test_domains_is_a_logistic_regression_on_the_training_part_scored_on_the_held_out_part():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    words = {"bot.": "leaf stem root petal", "zool.": "wing claw beak scale"}
    examples = [(label, " ".join(rng.choice(vocab.split(), 3)) + f" {i}", i % 5 == 0)
                for i in range(200) for label, vocab in words.items()]  # fmt: skip
    result = domains(_letters, examples, resamples=200)
    X = _letters([t for _, t, _ in examples])
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y, held = np.array([label for label, _, _ in examples]), np.array([h for _, _, h in examples])
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X[~held], y[~held])
    assert result.figures["accuracy"] == pytest.approx(100 * np.mean(model.predict(X[held]) == y[held]))
    assert result.figures["accuracy"] > 90 and result.baseline["accuracy"] == 50.0  # two balanced classes
    with pytest.raises(InvalidValueError, match="2 or more labels"):
        domains(_letters, [(label, text, False) for label, text, _ in examples], resamples=100)


def test_fidelity_is_scipys_spearman_of_the_two_models_cosines():
    texts = [f"{a} {b}" for a in ("red", "green", "blue", "grey") for b in ("cat", "owl", "fox")]
    same = fidelity(_letters, _letters, texts, pairs=50, resamples=200)
    assert same.figures["spearman"] == pytest.approx(100.0) and same.items == 50
    blurred = lambda t: _letters(t) + np.random.default_rng(1).normal(0, 1.0, (len(t), 26))  # noqa: E731
    result = fidelity(_letters, blurred, texts, pairs=50, resamples=200, seed=3)
    rng = np.random.default_rng(3)  # the pairs fidelity draws
    first = rng.integers(0, len(texts), 50)
    second = (first + rng.integers(1, len(texts), 50)) % len(texts)
    cosines = []
    for encode in (_letters, blurred):
        v = encode(texts)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        cosines.append((v[first] * v[second]).sum(axis=1))
    assert (first != second).all()
    assert result.figures["spearman"] == pytest.approx(100 * spearmanr(*cosines).statistic, abs=1e-9)
    assert 0 < result.figures["spearman"] < 100
