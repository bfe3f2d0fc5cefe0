"""Word-pair and analogy benchmarks of a table E (V, d), with gensim's rules and a batched search.

    evaluate_word_pairs(vectors, "wordsim353")    -> PairResult: Spearman and Pearson vs human scores
    evaluate_word_analogies(vectors, "google")    -> AnalogyResult: accuracy per section and in total
    evaluate_all(vectors)                         -> every built-in benchmark (`embedlab evaluate`)

The rules are those of gensim's KeyedVectors.evaluate_word_pairs and evaluate_word_analogies, so the
numbers equal gensim's on the same table. Words are looked up in the first `restrict_vocab` keys;
with `case_insensitive` both the keys and the words are upper-cased and, of several case variants
of a key, the first (lowest row, the most frequent in a frequency-sorted table) stands for all.
Each item is scored by `vectors.scoring` (analogies answered in batches, 3CosAdd or 3CosMul); this
module sums the items up. Each result also carries a seeded 95% percentile bootstrap interval of
its Spearman or total accuracy from `vectors.intervals` (none with `resamples=0`).

Coverage is part of every result: a word-pair result counts the file's pairs (`total`), those both of
whose words have rows of their own (`own_rows`) and those it could not score (`oov`); an analogy
result, the questions and those skipped. A table that makes vectors for unseen words from character
n-grams (`table.composes`, a SubwordVectors, as gensim's FastText) is scored both ways of the
fastText paper (Bojanowski et al. 2017, Table 3): "sisg", an unseen word's vector built from its
n-grams, and "sisg−", an unseen word given a null vector. A null vector has no direction, so the
cosine of its pair is taken as 0 (as gensim's dummy4unknown scores a pair with an unknown word);
fastText's own eval.py instead drops a pair with a word missing from the vectors file, which is the
score over the `own_rows` pairs. Analogy questions are answered from own rows only.

WordSim-353, SimLex-999 and the Google analogies ship in gensim's package test data (pip install
gensim); RW, MEN, SimVerb-3500 and MTurk-771 ship in embedlab (data/benchmark_files/). The files are
parsed by `vectors.io.benchmarks`, and the correlations are `vectors.stats`'.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from embedlab.data.benchmarks import ALL_PAIR_BENCHMARKS, ANALOGY_BENCHMARKS, PAIR_BENCHMARKS, benchmark_path
from embedlab.errors import InvalidValueError, MissingDataError, check_int
from embedlab.files import json_safe
from embedlab.vectors.intervals import CONFIDENCE, RESAMPLES, accuracy_interval, check_bootstrap, spearman_interval
from embedlab.vectors.io.benchmarks import read_benchmark_pairs, read_pairs
from embedlab.vectors.scoring import analogy_answers, pair_scores
from embedlab.vectors.stats import pearson, spearman
from embedlab.vectors.table import Vectors


@dataclass(frozen=True)
class PairResult:
    """Correlation of cosine similarities with human scores over `pairs` scored pairs of the file's
    `total`; `oov` pairs had a word the table can make no vector for (scored 0.0 and counted in `pairs`
    with dummy4unknown, else skipped), and `own_rows` pairs had both words in rows of their own.

    For a table that composes vectors of unseen words from n-grams (a subword table), `spearman` is
    fastText's "sisg" (every word the table can make a vector for scored with it) and `spearman_null`
    its "sisg−" over the same pairs (a word without its own row gets a null vector, its pair cosine 0):
    Bojanowski et al. 2017, Table 3. A plain table makes no vector beyond its rows, so the two are one
    number and `spearman_null` is None.
    """

    name: str
    spearman: float
    pearson: float
    pairs: int
    oov: int
    oov_ratio: float  # percent: oov / pairs with dummy4unknown, else oov / (pairs + oov), as gensim
    total: int  # pairs in the file
    own_rows: int  # pairs whose two words have their own rows: what a whole-word table covers
    spearman_null: float | None = None  # sisg−: only for a table that composes vectors
    interval: tuple[float, float] | None = None  # bootstrap interval of spearman; None with resamples=0
    interval_null: tuple[float, float] | None = None  # the same of spearman_null (the same resamples)
    resamples: int = 0
    confidence: float = CONFIDENCE
    seed: int = 0

    @property
    def covered(self) -> int:
        """Pairs whose two words the table can make vectors for (own rows or n-grams)."""
        return self.total - self.oov

    def to_dict(self) -> dict:
        return json_safe({**dataclasses.asdict(self), "covered": self.covered})


@dataclass(frozen=True)
class SectionResult:
    """`correct` of the `total` questions of one section answered (or counted wrong, dummy4unknown)."""

    name: str
    correct: int
    total: int

    @property
    def accuracy(self) -> float:
        """correct / total; 0.0 for a section with no question answered, as gensim."""
        return self.correct / self.total if self.total else 0.0

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "accuracy": self.accuracy}


@dataclass(frozen=True)
class AnalogyResult:
    """Accuracy per section (file order) and in total; `questions` counts every 4-word line,
    `oov` those with a word outside the first `restrict_vocab` keys."""

    name: str
    sections: tuple[SectionResult, ...]
    total: SectionResult  # named "Total accuracy", as gensim's last section
    questions: int
    oov: int
    oov_ratio: float  # percent of `questions`
    restrict_vocab: int
    method: str  # "3cosadd" or "3cosmul"
    interval: tuple[float, float] | None = None  # of the total accuracy; None with resamples=0 or none answered
    resamples: int = 0
    confidence: float = CONFIDENCE
    seed: int = 0

    @property
    def accuracy(self) -> float:
        return self.total.accuracy

    def to_dict(self) -> dict:
        sections = [s.to_dict() for s in self.sections]
        return json_safe(
            {**dataclasses.asdict(self), "sections": sections, "total": self.total.to_dict(), "accuracy": self.accuracy}
        )


def evaluate_word_pairs(
    vectors: Vectors,
    pairs: str | Path = "wordsim353",
    *,
    delimiter: str = "\t",
    restrict_vocab: int = 300_000,
    case_insensitive: bool = True,
    dummy4unknown: bool = False,
    resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> PairResult:
    """Spearman and Pearson correlation between cos(a, b) and the human score of each pair, and the
    bootstrap interval of Spearman's rho over `resamples` resamples of the pairs (none with 0).

    `pairs` is a benchmark name (data.benchmarks.ALL_PAIR_BENCHMARKS, read in its own format) or a file of
    "word1<delimiter>word2<delimiter>score" lines; as in gensim's evaluate_word_pairs, lines starting
    with "#", without exactly 3 fields or whose score is no number are skipped, and a pair with a word
    outside the first `restrict_vocab` keys is skipped (or scored 0.0 with `dummy4unknown`). A table
    that composes vectors from n-grams also scores the words it has no row for (see PairResult and
    scoring.pair_scores). Cosines are computed in float64 from the float32 rows.
    """
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed, allow_off=True)
    if not isinstance(delimiter, str) or not delimiter:
        raise InvalidValueError(f"delimiter must be a non-empty string; got {delimiter!r}")
    path, name = _resolve(pairs, "pairs", ALL_PAIR_BENCHMARKS)
    built_in = isinstance(pairs, str) and pairs in ALL_PAIR_BENCHMARKS  # read in its own format: no delimiter
    records = read_benchmark_pairs(pairs) if built_in else read_pairs(path, delimiter)
    scored = pair_scores(
        vectors, records, restrict_vocab=restrict_vocab, case_insensitive=case_insensitive, dummy4unknown=dummy4unknown
    )
    gold, model, oov = scored.gold, scored.model, scored.oov
    if not len(gold):
        raise InvalidValueError(
            f"no usable pair in {path}: every line is malformed or has a word outside the first "
            f"{restrict_vocab} keys of {vectors.name}"
        )
    ratio = 100.0 * oov / (len(gold) if dummy4unknown else len(gold) + oov)
    bootstrap = {"resamples": resamples, "confidence": confidence, "seed": seed}
    composes = vectors.composes  # the table can give a word without a row a vector
    return PairResult(
        name,
        spearman(gold, model),
        pearson(gold, model),
        len(gold),
        oov,
        ratio,
        total=scored.total,
        own_rows=scored.own_rows,
        spearman_null=spearman(gold, scored.null) if composes else None,
        interval=spearman_interval(gold, model, **bootstrap) if resamples else None,
        interval_null=spearman_interval(gold, scored.null, **bootstrap) if resamples and composes else None,
        resamples=resamples,
        confidence=confidence,
        seed=seed,
    )


def evaluate_word_analogies(
    vectors: Vectors,
    analogies: str | Path = "google",
    *,
    restrict_vocab: int = 300_000,
    case_insensitive: bool = True,
    dummy4unknown: bool = False,
    method: str = "3cosadd",
    batch_size: int = 1024,
    resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> AnalogyResult:
    """Accuracy on "a b c d" questions (a is to b as c is to d) grouped under ": section" lines, and the
    bootstrap interval of the total accuracy over `resamples` resamples of the questions (none with 0).

    As gensim's evaluate_word_analogies: lines that are not 4 words are skipped; a question with a
    word outside the first `restrict_vocab` keys is skipped (counted wrong with `dummy4unknown`);
    the candidates are the first `restrict_vocab` rows minus the three input rows, and of the best
    scoring.ANALOGY_TOPN of them the answer is the first that is no case variant of an input word (the
    last of them if all are). 3cosadd ranks by cosine with (u_b + u_c − u_a) / 3, 3cosmul by
    similarity.cos_mul_scores. `batch_size` questions (B, d) are scored per (B, restrict_vocab)
    matrix product.
    """
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed, allow_off=True)
    path, name = _resolve(analogies, "analogies", ANALOGY_BENCHMARKS)
    answered = analogy_answers(
        vectors,
        path,
        restrict_vocab=restrict_vocab,
        case_insensitive=case_insensitive,
        dummy4unknown=dummy4unknown,
        method=method,
        batch_size=batch_size,
    )
    if answered.questions == 0:
        raise InvalidValueError(f"no question in {path}: every line is malformed")
    per_section = len(answered.sections)
    correct = np.bincount(answered.section, weights=answered.correct, minlength=per_section).astype(int).tolist()
    asked = np.bincount(answered.section, minlength=per_section).tolist()
    sections = tuple(SectionResult(*s) for s in zip(answered.sections, correct, asked, strict=True))
    total = SectionResult("Total accuracy", sum(correct), sum(asked))
    # every question out of vocabulary is not an error: accuracy 0 of 0 answered, as in gensim (and no interval)
    interval = None
    if resamples and total.total:
        interval = accuracy_interval(total.correct, total.total, resamples=resamples, confidence=confidence, seed=seed)
    ratio = 100.0 * answered.oov / answered.questions
    return AnalogyResult(
        name,
        sections,
        total,
        answered.questions,
        answered.oov,
        ratio,
        restrict_vocab,
        method,
        interval,
        resamples,
        confidence,
        seed,
    )


def evaluate_all(
    vectors: Vectors,
    *,
    restrict_vocab: int = 300_000,
    case_insensitive: bool = True,
    method: str = "3cosadd",
    resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> dict[str, PairResult | AnalogyResult | None]:
    """The built-in benchmarks with gensim's defaults: {"wordsim353": ..., "simlex999": ..., "rw": ...,
    "men": ..., "simverb3500": ..., "mturk771": ..., "google": ...} (data.benchmarks' order), each with
    its bootstrap interval (the same `seed` for each; none with resamples=0).

    A word-pair benchmark with no pair inside the vocabulary (a small table) gives None rather
    than an error, so the others are still reported.
    """
    restrict_vocab = check_int("restrict_vocab", restrict_vocab, low=1)
    resamples, confidence, seed = check_bootstrap(resamples, confidence, seed, allow_off=True)
    options = {"restrict_vocab": restrict_vocab, "case_insensitive": case_insensitive}
    bootstrap = {"resamples": resamples, "seed": seed, "confidence": confidence}
    results: dict[str, PairResult | AnalogyResult | None] = {}
    for name in PAIR_BENCHMARKS:
        try:
            results[name] = evaluate_word_pairs(vectors, name, **options, **bootstrap)
        except InvalidValueError:  # raised only when no pair is usable: the arguments were checked above
            results[name] = None
    results["google"] = evaluate_word_analogies(vectors, "google", **options, method=method, **bootstrap)
    return results


def _resolve(source: str | Path, what: str, names: tuple[str, ...]) -> tuple[Path, str]:
    """A benchmark name among `names` or a file path -> (path, name to report)."""
    if isinstance(source, str) and source in names:
        return benchmark_path(source), source
    path = Path(source)
    if not path.is_file():
        known = ", ".join(names)
        raise MissingDataError(f"{what} file {str(source)!r} not found (nor is it a built-in benchmark: {known})")
    return path, path.name
