"""Instruments for anything that turns texts into vectors (a static model, the encoder itself, a
table's mean of rows): each takes `encode`, texts (N,) -> (N, D), and runs offline.

    wordsim7(encode)          Model2Vec's "WordSim": the mean Spearman × 100 over seven word-pair sets
                              (data.benchmarks.WORDSIM7), each word encoded on its own, with a
                              bootstrap interval; -> WordSimResult
    reverse_dictionary(encode)   each of 5,000 gcide definitions (data.gcide) looks for its headword
                              among the 5,000 headwords by cosine: recall@1, recall@10, MRR; -> Figures
    domains(encode)           a logistic regression on the vectors of 23,000 gcide definitions tells
                              their subject label ("Zool.", "Chem.", ...): held-out accuracy; -> Figures
    fidelity(teacher, student)   Spearman between the two models' cosines over random pairs of gcide
                              definitions: how much of the teacher's geometry a student keeps; -> Figures

Every figure carries a percentile bootstrap interval over its items (vectors.intervals), one seed one
interval.

A word is encoded as a text: lower-cased, CARD-660's "_" joins read as spaces ("formic acid"), so
every pair is scored (a model with no piece for a word gives its zero vector, cosine 0). Spearman is
of the cosines against the human scores. Model2Vec publishes 49.91 for all-MiniLM-L6-v2 itself,
50.75 for potion-base-8M and 43.05 for GloVe 300d on these seven sets.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from embedlab.data.benchmarks import WORDSIM7
from embedlab.data.gcide import domain_definitions, reverse_dictionary_pairs
from embedlab.errors import InvalidValueError, check_int
from embedlab.files import json_safe
from embedlab.vectors.intervals import CONFIDENCE, RESAMPLES, check_bootstrap, percentile_interval, resample_counts
from embedlab.vectors.io.benchmarks import read_benchmark_pairs
from embedlab.vectors.similarity import unit_rows
from embedlab.vectors.stats import spearman, spearman_counts

Encode = Callable[[list[str]], np.ndarray]  # texts (N,) -> (N, D)


@dataclass(frozen=True)
class WordSimResult:
    """score: mean Spearman × 100 over the sets; interval: its bootstrap interval (each set's pairs
    resampled on their own); sets: {name: Spearman × 100}; pairs: {name: pairs scored}."""

    score: float
    interval: tuple[float, float]
    sets: dict[str, float]
    pairs: dict[str, int]
    resamples: int
    confidence: float

    def to_dict(self) -> dict:
        return json_safe(dataclasses.asdict(self))


def word_text(word: str) -> str:
    """A benchmark word as the text to encode: lower-cased, "_" joins as spaces ("Formic_acid" -> "formic acid")."""
    return word.replace("_", " ").lower()


def wordsim7(
    encode: Encode, *, resamples: int = RESAMPLES, confidence: float = CONFIDENCE, seed: int = 0
) -> WordSimResult:
    """The mean Spearman × 100 of cosine against human score over WORDSIM7, every pair scored."""
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed)
    sets = {name: read_benchmark_pairs(name) for name in WORDSIM7}
    words = sorted({word_text(w) for pairs in sets.values() for a, b, _ in pairs for w in (a, b)})
    vectors = unit_rows(_encoded(encode, words))
    row = {w: i for i, w in enumerate(words)}
    scores, draws = {}, []
    for k, (name, pairs) in enumerate(sets.items()):
        a = vectors[[row[word_text(p[0])] for p in pairs]]
        b = vectors[[row[word_text(p[1])] for p in pairs]]
        gold, cosine = np.array([p[2] for p in pairs]), np.einsum("pd,pd->p", a, b)
        scores[name] = 100.0 * spearman(gold, cosine)
        draws.append(spearman_counts(gold, cosine, resample_counts(len(pairs), resamples, seed + k)))
    low, high = percentile_interval(100.0 * np.mean(draws, axis=0), confidence)
    return WordSimResult(float(np.mean(list(scores.values()))), (low, high), scores,
                         {name: len(pairs) for name, pairs in sets.items()}, resamples, confidence)  # fmt: skip


@dataclass(frozen=True)
class Figures:
    """An instrument's figures {name: value}, each with its bootstrap interval, over `items` items; `baseline`:
    what no model scores ({name: value}, e.g. the majority class's accuracy, chance recall)."""

    figures: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    items: int
    baseline: dict[str, float]
    resamples: int
    confidence: float

    def to_dict(self) -> dict:
        return json_safe(dataclasses.asdict(self))


def reverse_dictionary(
    encode: Encode,
    pairs: Sequence[tuple[str, str]] | None = None,
    *,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> Figures:
    """Each definition's headword among all the headwords: recall@1, recall@10 and MRR (× 100), with
    intervals over the definitions. `pairs`: (headword, definition); data.gcide's 5,000 by default.

    A tie counts against the model: a definition's rank is 1 + the headwords scoring at least as high as
    its own other than itself, so a model that gives every text the same vector ranks every headword last.
    """
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed)
    pairs = reverse_dictionary_pairs() if pairs is None else pairs
    if len(pairs) < 2:
        raise InvalidValueError(f"a reverse dictionary needs 2 or more (headword, definition) pairs; got {len(pairs)}")
    heads = unit_rows(_encoded(encode, [h for h, _ in pairs])).astype(np.float32)
    definitions = unit_rows(_encoded(encode, [d for _, d in pairs])).astype(np.float32)
    ranks = np.empty(len(pairs), dtype=np.int64)
    for start in range(0, len(pairs), 1024):  # (1024, P) cosines at a time
        block = definitions[start : start + 1024] @ heads.T
        own = block[np.arange(len(block)), np.arange(start, start + len(block))]
        ranks[start : start + len(block)] = (block >= own[:, None]).sum(axis=1)  # itself included: rank >= 1
    per_item = {"recall@1": ranks <= 1, "recall@10": ranks <= 10, "mrr": 1.0 / ranks}
    chance = {"recall@1": 1 / len(pairs), "recall@10": min(10, len(pairs)) / len(pairs),
              "mrr": float(np.mean(1.0 / np.arange(1, len(pairs) + 1)))}  # fmt: skip
    return _mean_figures(per_item, chance, resamples, confidence, seed)


def domains(
    encode: Encode,
    examples: Sequence[tuple[str, str, bool]] | None = None,
    *,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> Figures:
    """Accuracy × 100 of a logistic regression (standardised columns of the unit vectors) trained on the
    examples not held out and scored on the held-out ones; baseline: the training set's majority class.
    `examples`: (label, text, held_out); data.gcide's subject-labelled definitions by default."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed)
    examples = domain_definitions() if examples is None else examples
    labels = np.array([label for label, _, _ in examples])
    held = np.array([h for _, _, h in examples], dtype=bool)
    if held.all() or not held.any() or len(set(labels[~held])) < 2:
        raise InvalidValueError("domains needs training examples of 2 or more labels and held-out examples")
    X = unit_rows(_encoded(encode, [text for _, text, _ in examples]))
    # standardised: a unit vector's entries are ~1/sqrt(D), which the default regularisation would flatten
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X[~held], labels[~held])
    right = model.predict(X[held]) == labels[held]
    names, counts = np.unique(labels[~held], return_counts=True)
    majority = float(np.mean(labels[held] == names[np.argmax(counts)]))
    return _mean_figures({"accuracy": right}, {"accuracy": majority}, resamples, confidence, seed)


def fidelity(
    teacher: Encode,
    student: Encode,
    texts: Sequence[str] | None = None,
    *,
    pairs: int = 5000,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> Figures:
    """Spearman × 100 between the teacher's and the student's cosines over `pairs` random pairs of distinct
    `texts` (the reverse dictionary's 5,000 definitions by default), drawn with `seed`."""
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed)
    pairs = check_int("pairs", pairs, low=2)
    texts = [d for _, d in reverse_dictionary_pairs()] if texts is None else list(texts)
    if len(texts) < 2:
        raise InvalidValueError(f"fidelity needs 2 or more texts; got {len(texts)}")
    rng = np.random.default_rng(seed)
    first = rng.integers(0, len(texts), size=pairs)
    second = (first + rng.integers(1, len(texts), size=pairs)) % len(texts)  # never the text itself
    cosines = []
    for encode in (teacher, student):
        vectors = unit_rows(_encoded(encode, texts))
        cosines.append(np.einsum("pd,pd->p", vectors[first], vectors[second]))
    score = 100.0 * spearman(*cosines)
    draws = 100.0 * spearman_counts(*cosines, resample_counts(pairs, resamples, seed))
    return Figures({"spearman": score}, {"spearman": percentile_interval(draws, confidence)}, pairs,
                   {"spearman": 0.0}, resamples, confidence)  # fmt: skip


def _mean_figures(
    per_item: dict[str, np.ndarray], baseline: dict[str, float], resamples: int, confidence: float, seed: int
) -> Figures:
    """Figures that are means × 100 of per-item values (N,), intervals over the items resampled together."""
    n = len(next(iter(per_item.values())))
    counts = resample_counts(n, resamples, seed)  # (R, N), one draw for every figure
    figures, intervals = {}, {}
    for name, values in per_item.items():
        values = 100.0 * np.asarray(values, dtype=np.float64)
        figures[name] = float(values.mean())
        intervals[name] = percentile_interval(counts @ values / n, confidence)
    return Figures(figures, intervals, n, {k: 100.0 * v for k, v in baseline.items()}, resamples, confidence)


def _encoded(encode: Encode, texts: list[str]) -> np.ndarray:
    """encode(texts), checked: one finite row a text."""
    out = np.asarray(encode(texts), dtype=np.float64)
    if out.ndim != 2 or len(out) != len(texts) or not np.isfinite(out).all():
        raise InvalidValueError(f"encode must give one finite row a text: {len(texts)} texts gave {out.shape}")
    return out
