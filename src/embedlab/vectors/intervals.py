"""Seeded percentile bootstrap intervals of benchmark scores: of one table, and of the difference of two.

    spearman_interval(gold, model)                  (P,), (P,) -> (low, high) of Spearman's rho, pairs resampled
    accuracy_interval(correct, total)               counts -> (low, high) of an accuracy, questions resampled
    spearman_difference_interval(gold, a, b)        (P,) x 3 -> (low, high) of rho_b − rho_a, paired
    accuracy_difference_interval(right_a, right_b)  (Q,), (Q,) bool -> (low, high) of acc_b − acc_a, paired
    compare_benchmarks(a, b)                        -> a Difference per built-in benchmark (`compare --evaluate`)
    check_bootstrap(resamples, confidence, seed)    the checks each of them makes
    resample_counts(n, R, seed), percentile_interval(scores, confidence)   their two steps, for other scores

A percentile bootstrap draws R resamples of a benchmark's items with replacement, each as large as
the benchmark, scores every resample, and reports the (1 − confidence)/2 and (1 + confidence)/2
percentiles of the R scores: with 95%, the 2.5th and 97.5th. It measures how much a score would move
on another draw of items like these (WordSim-353's 353 pairs are a small sample of word pairs), not
the noise of training the table. Draws come from np.random.default_rng(seed): one seed, one interval.

Word pairs: each resample's Spearman is stats.spearman_counts (ties averaged, as stats.spearman),
all R in one vectorised pass. Analogies, a shortcut that is exact: drawing Q questions with
replacement from Q with K right makes the resample's right count Binomial(Q, K/Q), so the bootstrap
draws that count instead of Q indices; paired, the four outcomes (both right, only A, only B,
neither) of the drawn questions are Multinomial(Q, their shares). tests/vectors/test_intervals.py
checks both against an index-resampling bootstrap.

Paired: two tables are compared on the items both can score, every resample drawing the same items
for both, so what the two share (hard pairs, easy questions) cancels in B − A; the difference is
`significant` when its interval excludes 0.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass

import numpy as np

from embedlab.data.benchmarks import PAIR_BENCHMARKS, benchmark_path
from embedlab.errors import InvalidValueError, check_float, check_int
from embedlab.files import json_safe
from embedlab.vectors.io.benchmarks import read_benchmark_pairs
from embedlab.vectors.scoring import analogy_answers, pair_scores
from embedlab.vectors.stats import spearman, spearman_counts
from embedlab.vectors.table import Vectors

RESAMPLES = 1000  # the default: its percentiles move by about 0.002 in rho from seed to seed (WordSim-353, SimLex-999)
CONFIDENCE = 0.95
MIN_RESAMPLES, MAX_RESAMPLES = 100, 100_000  # fewer leave the 2.5th percentile to 2 or 3 draws; more buy nothing


@dataclass(frozen=True)
class Difference:
    """B's score minus A's on one benchmark, over the `items` (pairs or questions) both tables can score."""

    name: str  # a benchmark of data.benchmarks: "wordsim353", ..., "google"
    metric: str  # "spearman" | "accuracy"
    a: float  # A's score on the shared items
    b: float  # B's score on the shared items
    difference: float  # b - a
    interval: tuple[float, float]  # bootstrap interval of b - a
    items: int
    resamples: int
    confidence: float
    significant: bool  # the interval excludes 0

    def to_dict(self) -> dict:
        return json_safe(dataclasses.asdict(self))


def check_bootstrap(
    resamples: object, confidence: object, seed: object, *, allow_off: bool = False
) -> tuple[int, float, int]:
    """(resamples, confidence, seed) checked: resamples an integer in MIN_RESAMPLES..MAX_RESAMPLES (or 0,
    no interval, where `allow_off`), confidence strictly between 0 and 1, seed an integer >= 0."""
    off = " (or 0: no interval)" if allow_off else ""
    if (
        isinstance(resamples, bool)
        or not isinstance(resamples, numbers.Integral)
        or not (MIN_RESAMPLES <= resamples <= MAX_RESAMPLES or (allow_off and resamples == 0))
    ):
        raise InvalidValueError(
            f"resamples must be an integer between {MIN_RESAMPLES} and {MAX_RESAMPLES:,}{off}; got {resamples!r}"
        )
    confidence = check_float("confidence", confidence)
    if not 0.0 < confidence < 1.0:
        raise InvalidValueError(f"confidence must be between 0 and 1, both excluded (0.95 for 95%); got {confidence}")
    return int(resamples), confidence, check_int("seed", seed, low=0)


def spearman_interval(
    gold: np.ndarray, model: np.ndarray, *, resamples: int = RESAMPLES, confidence: float = CONFIDENCE, seed: int = 0
) -> tuple[float, float]:
    """Bootstrap interval of Spearman's rho between human scores `gold` (P,) and model scores `model` (P,),
    the P pairs resampled with replacement.

    >>> gold, model = np.arange(50.0), np.arange(50.0) + np.random.default_rng(0).normal(0, 10, 50)
    >>> low, high = spearman_interval(gold, model)
    >>> low < spearman(gold, model) < high < 1
    True
    """
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed)
    gold, model = _items("pairs", gold, model)
    return percentile_interval(spearman_counts(gold, model, resample_counts(len(gold), resamples, seed)), confidence)


def accuracy_interval(
    correct: int, total: int, *, resamples: int = RESAMPLES, confidence: float = CONFIDENCE, seed: int = 0
) -> tuple[float, float]:
    """Bootstrap interval of the accuracy correct / total, the `total` questions resampled with replacement
    (drawn exactly as a Binomial(total, correct / total) count: see the module docstring).

    >>> accuracy_interval(90, 100)  # the normal approximation: 0.9 ± 1.96 · 0.03
    (0.84, 0.96)
    """
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed)
    total = check_int("total", total, low=1)
    correct = check_int("correct", correct, low=0, high=total)
    rng = np.random.default_rng(seed)
    return percentile_interval(rng.binomial(total, correct / total, size=resamples) / total, confidence)


def spearman_difference_interval(
    gold: np.ndarray,
    model_a: np.ndarray,
    model_b: np.ndarray,
    *,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float]:
    """Bootstrap interval of spearman(gold, model_b) − spearman(gold, model_a) over the same P pairs,
    each resample drawing the same pairs for both: (P,), (P,), (P,) -> (low, high)."""
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed)
    gold, model_a, model_b = _items("pairs", gold, model_a, model_b)
    counts = resample_counts(len(gold), resamples, seed)  # (R, P), shared by A and B
    difference = spearman_counts(gold, model_b, counts) - spearman_counts(gold, model_a, counts)
    return percentile_interval(difference, confidence)


def accuracy_difference_interval(
    right_a: np.ndarray,
    right_b: np.ndarray,
    *,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float]:
    """Bootstrap interval of accuracy(right_b) − accuracy(right_a) over the same Q questions: (Q,), (Q,)
    bool -> (low, high). Drawn as Multinomial(Q, shares) counts of the four outcomes (both right, only
    A, only B, neither), which is what resampling the questions draws; the difference is (only B −
    only A) / Q.

    >>> low, high = accuracy_difference_interval(np.ones(60, bool), np.arange(60) % 3 > 0)  # B misses a third
    >>> round(low, 2), round(high, 2)
    (-0.45, -0.22)
    """
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed)
    right_a, right_b = (np.asarray(r, dtype=bool) for r in _items("questions", right_a, right_b))
    outcomes = [np.sum(right_a & right_b), np.sum(right_a & ~right_b), np.sum(~right_a & right_b)]
    outcomes.append(len(right_a) - sum(outcomes))  # (4,): both right, only A, only B, neither
    drawn = np.random.default_rng(seed).multinomial(len(right_a), np.array(outcomes) / len(right_a), size=resamples)
    return percentile_interval((drawn[:, 2] - drawn[:, 1]) / len(right_a), confidence)  # (R,) only B − only A


def compare_benchmarks(
    a: Vectors,
    b: Vectors,
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    restrict_vocab: int = 300_000,
    case_insensitive: bool = True,
) -> tuple[Difference, ...]:
    """Tables A and B on the word-pair benchmarks (WordSim-353, SimLex-999, RW, MEN, SimVerb-3500,
    MTurk-771: Spearman) and the Google analogies (3CosAdd accuracy), each over the items both can
    score, with the paired bootstrap interval of B − A.

    The items are scored by vectors.scoring, as evaluate_word_pairs and evaluate_word_analogies score
    them (gensim's rules, the first `restrict_vocab` keys), and joined by their place in the file. A
    benchmark with fewer than 2 shared items is left out. A table compared with itself differs by 0.0
    on every resample: interval (0.0, 0.0), not significant.
    """
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed)
    restrict_vocab = check_int("restrict_vocab", restrict_vocab, low=1)
    options = {"restrict_vocab": restrict_vocab, "case_insensitive": case_insensitive}
    bootstrap = {"resamples": resamples, "confidence": confidence, "seed": seed}

    found = []  # (name, metric, A's score, B's score, interval of B − A, shared items)
    for name in PAIR_BENCHMARKS:
        records = read_benchmark_pairs(name)
        pa, pb = (pair_scores(t, records, **options) for t in (a, b))
        _, ia, ib = np.intersect1d(pa.line, pb.line, assume_unique=True, return_indices=True)
        if len(ia) >= 2:
            gold, model_a, model_b = pa.gold[ia], pa.model[ia], pb.model[ib]
            interval = spearman_difference_interval(gold, model_a, model_b, **bootstrap)
            found.append((name, "spearman", spearman(gold, model_a), spearman(gold, model_b), interval, len(ia)))
    qa, qb = (analogy_answers(t, benchmark_path("google"), **options) for t in (a, b))
    _, ia, ib = np.intersect1d(qa.line, qb.line, assume_unique=True, return_indices=True)
    if len(ia) >= 2:
        right_a, right_b = qa.correct[ia], qb.correct[ib]
        interval = accuracy_difference_interval(right_a, right_b, **bootstrap)
        found.append(("google", "accuracy", float(right_a.mean()), float(right_b.mean()), interval, len(ia)))
    return tuple(
        Difference(name, metric, sa, sb, sb - sa, (low, high), items, resamples, confidence, low > 0 or high < 0)
        for name, metric, sa, sb, (low, high), items in found
    )


def _items(what: str, *columns: np.ndarray) -> list[np.ndarray]:
    """Per-item columns as 1-D float64 arrays of one length >= 2 (a bootstrap of 1 item says nothing)."""
    arrays = [np.asarray(c, dtype=np.float64) for c in columns]
    if any(a.ndim != 1 or a.shape != arrays[0].shape for a in arrays) or len(arrays[0]) < 2:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise InvalidValueError(f"need one score per item for at least 2 {what}, as 1-D arrays; got shapes {shapes}")
    return arrays


def resample_counts(n: int, resamples: int, seed: int) -> np.ndarray:
    """(R, n) int64: how often each of n items is drawn in each of R resamples of n draws with replacement."""
    drawn = np.random.default_rng(seed).integers(0, n, size=(resamples, n))  # (R, n) item indices
    flat = (drawn + n * np.arange(resamples)[:, None]).ravel()  # item i of resample r -> r * n + i
    return np.bincount(flat, minlength=resamples * n).reshape(resamples, n)


def percentile_interval(scores: np.ndarray, confidence: float) -> tuple[float, float]:
    """(R,) scores of the resamples -> their central `confidence` interval. A resample whose score is
    undefined (nan: a constant column) is left out; (nan, nan) if none is defined."""
    scores = scores[~np.isnan(scores)]
    if scores.size == 0:
        return math.nan, math.nan
    tail = 50.0 * (1.0 - confidence)  # percent in each tail
    low, high = np.percentile(scores, [tail, 100.0 - tail])
    return float(low), float(high)
