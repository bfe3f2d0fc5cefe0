"""Instruments for anything that turns texts into vectors (a static model, the encoder itself, a
table's mean of rows): each takes `encode`, texts (N,) -> (N, D), and runs offline.

    wordsim7(encode)          Model2Vec's "WordSim": the mean Spearman × 100 over seven word-pair sets
                              (data.benchmarks.WORDSIM7), each word encoded on its own, with a
                              bootstrap interval; -> WordSimResult

A word is encoded as a text: lower-cased, CARD-660's "_" joins read as spaces ("formic acid"), so
every pair is scored (a model with no piece for a word gives its zero vector, cosine 0). Spearman is
of the cosines against the human scores. Model2Vec publishes 49.91 for all-MiniLM-L6-v2 itself,
50.75 for potion-base-8M and 43.05 for GloVe 300d on these seven sets.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from embedlab.data.benchmarks import WORDSIM7
from embedlab.errors import InvalidValueError
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


def _encoded(encode: Encode, texts: list[str]) -> np.ndarray:
    """encode(texts), checked: one finite row a text."""
    out = np.asarray(encode(texts), dtype=np.float64)
    if out.ndim != 2 or len(out) != len(texts) or not np.isfinite(out).all():
        raise InvalidValueError(f"encode must give one finite row a text: {len(texts)} texts gave {out.shape}")
    return out
