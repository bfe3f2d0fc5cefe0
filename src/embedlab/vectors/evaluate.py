"""Word-pair and analogy benchmarks of a table E (V, d), with gensim's rules and a batched search.

    evaluate_word_pairs(vectors, "wordsim353")    -> PairResult: Spearman and Pearson vs human scores
    evaluate_word_analogies(vectors, "google")    -> AnalogyResult: accuracy per section and in total
    evaluate_all(vectors)                         -> the three built-in benchmarks (`embedlab evaluate`)

The rules are those of gensim's KeyedVectors.evaluate_word_pairs and evaluate_word_analogies, so the
numbers equal gensim's on the same table. Words are looked up in the first `restrict_vocab` keys;
with `case_insensitive` both the keys and the words are upper-cased and, of several case variants
of a key, the first (lowest row, the most frequent in a frequency-sorted table) stands for all.
An analogy a : b :: c : ? is answered with 3CosAdd, the row closest to u_b + u_c − u_a (unit
vectors), or with 3CosMul; all questions go through one matrix product per batch, not one search
per question, so the 19,544 Google questions take seconds where gensim's loop takes about a minute.

The benchmark files ship in gensim's package test data (pip install gensim); they are parsed by
`vectors.io.benchmarks`, and the correlations are `vectors.stats`'.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from embedlab.data.benchmarks import BENCHMARKS, benchmark_path
from embedlab.errors import InvalidValueError, MissingDataError, check_choice, check_int
from embedlab.vectors import similarity as sim
from embedlab.vectors.io.benchmarks import read_analogies, read_pairs
from embedlab.vectors.stats import pearson, spearman
from embedlab.vectors.table import ANALOGY_METHODS, Vectors

# gensim looks at this many answers of each analogy and takes the first that is no case variant of an input
ANALOGY_TOPN = 5


@dataclass(frozen=True)
class PairResult:
    """Correlation of cosine similarities with human scores over `pairs` scored pairs; `oov` pairs had
    an unknown word (scored 0.0 and counted in `pairs` with dummy4unknown, else skipped)."""

    name: str
    spearman: float
    pearson: float
    pairs: int
    oov: int
    oov_ratio: float  # percent: oov / pairs with dummy4unknown, else oov / (pairs + oov), as gensim

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


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

    @property
    def accuracy(self) -> float:
        return self.total.accuracy

    def to_dict(self) -> dict:
        sections = [s.to_dict() for s in self.sections]
        return {
            **dataclasses.asdict(self),
            "sections": sections,
            "total": self.total.to_dict(),
            "accuracy": self.accuracy,
        }


def evaluate_word_pairs(
    vectors: Vectors,
    pairs: str | Path = "wordsim353",
    *,
    delimiter: str = "\t",
    restrict_vocab: int = 300_000,
    case_insensitive: bool = True,
    dummy4unknown: bool = False,
) -> PairResult:
    """Spearman and Pearson correlation between cos(a, b) and the human score of each pair.

    `pairs` is a benchmark name or a file of "word1<delimiter>word2<delimiter>score" lines; as in
    gensim's evaluate_word_pairs, lines starting with "#", without exactly 3 fields or whose score is
    no number are skipped, and a pair with a word outside the first `restrict_vocab` keys is skipped
    (or scored 0.0 with `dummy4unknown`). Cosines are computed in float64 from the float32 rows.
    """
    restrict_vocab = check_int("restrict_vocab", restrict_vocab, low=1)
    if not isinstance(delimiter, str) or not delimiter:
        raise InvalidValueError(f"delimiter must be a non-empty string; got {delimiter!r}")
    path, name = _resolve(pairs, "pairs")
    vocab = folded_vocab(vectors.index_to_key, restrict_vocab, case_insensitive)
    fold = str.upper if case_insensitive else str
    gold, rows, oov = [], [], 0  # rows: (row of a, row of b), or None for a dummy pair
    for a, b, score in read_pairs(path, delimiter):
        a, b = fold(a), fold(b)
        known = a in vocab and b in vocab
        oov += not known
        if known or dummy4unknown:
            gold.append(score)
            rows.append((vocab[a], vocab[b]) if known else None)
    if not gold:
        raise InvalidValueError(
            f"no usable pair in {path}: every line is malformed or has a word outside the first "
            f"{restrict_vocab} keys of {vectors.name}"
        )
    known = [i for i, r in enumerate(rows) if r is not None]
    model = np.zeros(len(gold))  # (P,) float64; dummy pairs keep 0.0
    if known:
        index = torch.tensor([rows[i] for i in known], device=vectors.table.device)  # (P', 2)
        pair_rows = vectors.table[index].double()  # (P', 2, d)
        model[known] = sim.pair_score(pair_rows[:, 0], pair_rows[:, 1], "cosine").cpu().numpy()
    ratio = 100.0 * oov / (len(gold) if dummy4unknown else len(gold) + oov)
    return PairResult(name, spearman(gold, model), pearson(gold, model), len(gold), oov, ratio)


def evaluate_word_analogies(
    vectors: Vectors,
    analogies: str | Path = "google",
    *,
    restrict_vocab: int = 300_000,
    case_insensitive: bool = True,
    dummy4unknown: bool = False,
    method: str = "3cosadd",
    batch_size: int = 1024,
) -> AnalogyResult:
    """Accuracy on "a b c d" questions (a is to b as c is to d) grouped under ": section" lines.

    As gensim's evaluate_word_analogies: lines that are not 4 words are skipped; a question with a
    word outside the first `restrict_vocab` keys is skipped (counted wrong with `dummy4unknown`);
    the candidates are the first `restrict_vocab` rows minus the three input rows, and of the best
    ANALOGY_TOPN of them the answer is the first that is no case variant of an input word (the
    last of them if all are). 3cosadd ranks by cosine with (u_b + u_c − u_a) / 3, 3cosmul by
    similarity.cos_mul_scores. `batch_size` questions (B, d) are scored per (B, restrict_vocab)
    matrix product.
    """
    restrict_vocab = check_int("restrict_vocab", restrict_vocab, low=1)
    batch_size = check_int("batch_size", batch_size, low=1)
    check_choice("method", method, ANALOGY_METHODS)
    path, name = _resolve(analogies, "analogies")
    vocab = folded_vocab(vectors.index_to_key, restrict_vocab, case_insensitive)
    fold = str.upper if case_insensitive else str
    names, counts, asked = [], [], []  # counts: [correct, total] per section; asked: (section, words)
    questions = oov = 0
    for title, lines in read_analogies(path):
        names.append(title)
        counts.append([0, 0])
        for words in lines:
            questions += 1
            words = tuple(fold(w) for w in words)
            if all(w in vocab for w in words):
                asked.append((len(names) - 1, words))
            else:
                oov += 1
                counts[-1][1] += dummy4unknown
    answers = _answer(vectors, [[vocab[w] for w in q[:3]] for _, q in asked], restrict_vocab, method, batch_size)
    for (section, words), top in zip(asked, answers, strict=True):
        predicted = None
        for row in top:
            predicted = fold(vectors.index_to_key[row])
            if predicted not in words[:3]:
                break
        counts[section][0] += predicted == words[3]
        counts[section][1] += 1
    sections = tuple(SectionResult(n, c, t) for n, (c, t) in zip(names, counts, strict=True))
    total = SectionResult("Total accuracy", sum(s.correct for s in sections), sum(s.total for s in sections))
    if questions == 0:
        raise InvalidValueError(f"no question in {path}: every line is malformed")
    # every question out of vocabulary is not an error: accuracy 0 of 0 answered, as in gensim
    return AnalogyResult(name, sections, total, questions, oov, 100.0 * oov / questions, restrict_vocab, method)


def evaluate_all(
    vectors: Vectors, *, restrict_vocab: int = 300_000, case_insensitive: bool = True, method: str = "3cosadd"
) -> dict[str, PairResult | AnalogyResult | None]:
    """The built-in benchmarks with gensim's defaults: {"wordsim353": ..., "simlex999": ..., "google": ...}.

    A word-pair benchmark with no pair inside the vocabulary (a small table) gives None rather
    than an error, so the others are still reported.
    """
    restrict_vocab = check_int("restrict_vocab", restrict_vocab, low=1)
    results: dict[str, PairResult | AnalogyResult | None] = {}
    for name in ("wordsim353", "simlex999"):
        try:
            results[name] = evaluate_word_pairs(
                vectors, name, restrict_vocab=restrict_vocab, case_insensitive=case_insensitive
            )
        except InvalidValueError:  # raised only when no pair is usable: the arguments were checked above
            results[name] = None
    results["google"] = evaluate_word_analogies(
        vectors, "google", restrict_vocab=restrict_vocab, case_insensitive=case_insensitive, method=method
    )
    return results


def folded_vocab(keys: Sequence[str], restrict_vocab: int, case_insensitive: bool = True) -> dict[str, int]:
    """Key (upper-cased if case_insensitive) -> row, over the first `restrict_vocab` keys; the first
    of several case variants wins, as in gensim.

    >>> folded_vocab(["the", "The", "cat"], 3)
    {'CAT': 2, 'THE': 0}
    """
    fold = str.upper if case_insensitive else str
    vocab: dict[str, int] = {}
    for row in range(min(restrict_vocab, len(keys)) - 1, -1, -1):  # backwards: lower rows overwrite
        vocab[fold(keys[row])] = row
    return vocab


def _answer(vectors: Vectors, inputs: list[list[int]], restrict_vocab: int, method: str, batch_size: int):
    """Rows (a, b, c) of B questions -> the ANALOGY_TOPN best candidate rows of each, inputs excluded."""
    n = min(restrict_vocab, len(vectors))
    unit = vectors.unit  # (V, d)
    rows = torch.tensor(inputs, dtype=torch.int64, device=unit.device).reshape(-1, 3)  # (B, 3)
    exclude = [list(dict.fromkeys(q)) for q in inputs]
    answers = []
    for start in range(0, rows.shape[0], batch_size):
        batch = rows[start : start + batch_size]  # (b, 3)
        if method == "3cosadd":
            queries = (unit[batch[:, 1]] + unit[batch[:, 2]] - unit[batch[:, 0]]) / 3.0  # (b, d)

            def scorer(c, queries=queries):
                return sim.score_matrix(queries[c], unit[:n], "cosine", unit_table=unit[:n])

        else:
            queries = batch

            def scorer(c, batch=batch):
                return sim.cos_mul_scores(unit, batch[c, 1:], batch[c, :1], n)

        _, top = sim.search(queries, ANALOGY_TOPN, scorer, n_rows=n, exclude=exclude[start : start + len(batch)])
        for found, banned in zip(top.tolist(), exclude[start : start + len(batch)], strict=True):
            answers.append([row for row in found if row not in banned][:ANALOGY_TOPN])
    return answers


def _resolve(source: str | Path, what: str) -> tuple[Path, str]:
    """A benchmark name or a file path -> (path, name to report)."""
    if isinstance(source, str) and source in BENCHMARKS:
        return benchmark_path(source), source
    path = Path(source)
    if not path.is_file():
        known = ", ".join(BENCHMARKS)
        raise MissingDataError(f"{what} file {str(source)!r} not found (nor is it a built-in benchmark: {known})")
    return path, path.name
