"""Word-pair and analogy benchmarks: equal to gensim's evaluators on the same table."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import logging
import math

import numpy as np
import pytest
from gensim.models import KeyedVectors

from embedlab.data.benchmarks import BENCHMARKS, MORE_PAIR_BENCHMARKS, PAIR_BENCHMARKS, benchmark_path
from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, UnknownNameError
from embedlab.vectors import Vectors
from embedlab.vectors import evaluate as ev
from embedlab.vectors.io.benchmarks import read_benchmark_pairs
from embedlab.vectors.scoring import folded_vocab, pair_scores
from embedlab.vectors.table import ANALOGY_METHODS

# gensim's cosines are float32 (sdot of float32 unit vectors, summed in whatever order the CPU's BLAS
# kernel takes), ours float64 from the same rows: the two correlations differ by at most what that
# rounding can move them (float32_bounds in conftest, computed from the pairs scored), plus float64's own
FLOAT64_TOL = 1e-12
SHIPPED_PAIRS = {"rw": 2034, "men": 3000, "simverb3500": 3500, "mturk771": 771}  # their papers' counts
QUESTIONS_PER_SECTION = 40  # gensim answers ~100 questions a second, so compare on a subset of the Google set
# two seeds' 1000-resample percentiles differ by Monte Carlo noise alone: measured on MiniLM over 30 seeds,
# a standard deviation of 0.002-0.003 in rho and at most 0.011 apart; 0.03 apart would mean more than the draws changed
SEED_TOL = 0.03


def _rounding(vectors: Vectors, records, bounds, **options) -> tuple[float, float]:
    """(Spearman, Pearson) tolerances against gensim's float32 cosines of the pairs `vectors` scores."""
    scored = pair_scores(vectors, records, **options)
    error = bounds.cosine_error(vectors.vector_size)
    return bounds.spearman(scored.gold, scored.model, error) + FLOAT64_TOL, bounds.pearson(scored.model, error)


def _gensim(vectors: Vectors) -> KeyedVectors:
    kv = KeyedVectors(vectors.vector_size)
    kv.add_vectors(vectors.index_to_key, vectors.vectors)
    return kv


@pytest.fixture(scope="module")
def minilm(minilm_vectors) -> Vectors:
    """The 30522 × 384 WordPiece input table of all-MiniLM-L6-v2 (session fixture in conftest)."""
    return minilm_vectors


@pytest.fixture(scope="module")
def minilm_kv(minilm_keyed) -> KeyedVectors:
    return minilm_keyed


def _subset(path, out, per_section: int):
    """The first `per_section` questions of every section of an analogy file, headers kept."""
    lines, taken = [], 0
    for line in path.read_text(encoding="utf8").splitlines():
        if line.startswith(": "):
            lines.append(line)
            taken = 0
        elif taken < per_section:
            lines.append(line)
            taken += 1
    out.write_text("\n".join(lines) + "\n", encoding="utf8")
    return out


@pytest.fixture(scope="module")
def google_subset(tmp_path_factory):
    return _subset(benchmark_path("google"), tmp_path_factory.mktemp("google") / "q.txt", QUESTIONS_PER_SECTION)


def _gensim_sections(sections) -> list[tuple[str, int, int]]:
    return [(s["section"], len(s["correct"]), len(s["correct"]) + len(s["incorrect"])) for s in sections]


def _ours_sections(result: ev.AnalogyResult) -> list[tuple[str, int, int]]:
    return [(s.name, s.correct, s.total) for s in (*result.sections, result.total)]


def _gensim_oov_ratio(caplog) -> str:
    """gensim only logs the OOV ratio of an analogy run, to one decimal."""
    [message] = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Quadruplets with out-of")]
    return message.rsplit(" ", 1)[1]


# ---- word pairs ----------------------------------------------------------------------------------

PAIR_OPTIONS = [
    {},
    {"restrict_vocab": 5000},
    {"case_insensitive": False},
    {"dummy4unknown": True},
    {"restrict_vocab": 5000, "case_insensitive": False, "dummy4unknown": True},
]


@pytest.mark.parametrize("options", PAIR_OPTIONS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("benchmark", ["wordsim353", "simlex999"])
def test_word_pairs_equal_gensim(minilm, minilm_kv, benchmark, options, float32_bounds):
    ours = ev.evaluate_word_pairs(minilm, benchmark, **options)
    pearson, spearman, oov_ratio = minilm_kv.evaluate_word_pairs(str(benchmark_path(benchmark)), **options)
    rho_tol, r_tol = _rounding(minilm, read_benchmark_pairs(benchmark), float32_bounds, **options)
    assert ours.name == benchmark and ours.pairs > 0
    assert ours.spearman == pytest.approx(spearman.statistic, abs=rho_tol)
    assert ours.pearson == pytest.approx(pearson.statistic, abs=r_tol)
    assert ours.oov_ratio == pytest.approx(oov_ratio, abs=FLOAT64_TOL)
    assert ours.oov > 0  # the real sets have words outside MiniLM's WordPiece vocabulary


@pytest.mark.parametrize("benchmark", ["rw", "men", "simverb3500", "mturk771"])
def test_shipped_pair_sets_equal_gensim(minilm, minilm_kv, benchmark, tmp_path, float32_bounds):
    # gensim reads "word1<TAB>word2<TAB>score" lines: give it the pairs as embedlab parsed them (MEN's
    # tags stripped, SimVerb's columns in order), so the oracle checks the scoring and the coverage
    records = read_benchmark_pairs(benchmark)
    converted = tmp_path / f"{benchmark}.tsv"
    converted.write_text("".join(f"{a}\t{b}\t{score!r}\n" for a, b, score in records), encoding="utf8")
    ours = ev.evaluate_word_pairs(minilm, benchmark)
    pearson, spearman, oov_ratio = minilm_kv.evaluate_word_pairs(str(converted))
    rho_tol, r_tol = _rounding(minilm, records, float32_bounds)
    assert ours.spearman == pytest.approx(spearman.statistic, abs=rho_tol)
    assert ours.pearson == pytest.approx(pearson.statistic, abs=r_tol)
    assert ours.oov_ratio == pytest.approx(oov_ratio, abs=FLOAT64_TOL)  # the same pairs skipped: equal coverage
    assert ours.total == len(records) == SHIPPED_PAIRS[benchmark] and ours.pairs + ours.oov == ours.total
    assert ours.own_rows == ours.covered == ours.pairs  # a plain table: no vector beyond its rows
    assert ours.spearman_null is None and ours.interval_null is None  # sisg− is sisg here: reported once
    assert dataclasses.replace(ev.evaluate_word_pairs(minilm, converted), name=benchmark) == ours


def test_word_pairs_first_case_variant_wins(tmp_path, float32_bounds):
    rng = np.random.default_rng(0)
    vectors = Vectors(["Apple", "apple", "pie", "tree", "CAR", "car", "bus"], rng.normal(size=(7, 5)))
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("# comment\napple\tpie\t8.0\napple\ttree\t6.5\ncar\tbus\t7.0\nbad line\nx\ty\tnot-a-number\n")
    kv = _gensim(vectors)
    for case_insensitive in (True, False):
        ours = ev.evaluate_word_pairs(vectors, pairs, case_insensitive=case_insensitive)
        pearson, spearman, oov_ratio = kv.evaluate_word_pairs(str(pairs), case_insensitive=case_insensitive)
        records = [("apple", "pie", 8.0), ("apple", "tree", 6.5), ("car", "bus", 7.0)]
        rho_tol, r_tol = _rounding(vectors, records, float32_bounds, case_insensitive=case_insensitive)
        assert ours.spearman == pytest.approx(spearman.statistic, abs=rho_tol)
        assert ours.pearson == pytest.approx(pearson.statistic, abs=r_tol)
        assert ours.oov_ratio == pytest.approx(oov_ratio, abs=FLOAT64_TOL)
    pairs.write_text(pairs.read_text().replace("\t", ","))
    ours = ev.evaluate_word_pairs(vectors, pairs, delimiter=",")
    pearson, _, _ = kv.evaluate_word_pairs(str(pairs), delimiter=",")
    assert ours.pairs == 3 and ours.pearson == pytest.approx(pearson.statistic, abs=r_tol)
    with pytest.raises(InvalidValueError, match="delimiter"):
        ev.evaluate_word_pairs(vectors, pairs, delimiter="")
    # "APPLE" is row 0 ("Apple"), not row 1: the first case variant stands for all
    assert folded_vocab(vectors.index_to_key, 100)["APPLE"] == 0
    assert folded_vocab(vectors.index_to_key, 100, case_insensitive=False)["apple"] == 1


# ---- analogies -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options", [{}, {"restrict_vocab": 10000}, {"case_insensitive": False}], ids=["defaults", "10000", "cased"]
)
def test_analogies_equal_gensim(minilm, minilm_kv, google_subset, options, caplog):
    ours = ev.evaluate_word_analogies(minilm, google_subset, **options)
    with caplog.at_level(logging.INFO, logger="gensim.models.keyedvectors"):
        score, sections = minilm_kv.evaluate_word_analogies(str(google_subset), **options)
    assert _ours_sections(ours) == _gensim_sections(sections)
    assert len(ours.sections) == 14 and ours.questions == 14 * QUESTIONS_PER_SECTION
    assert ours.accuracy == score
    assert f"{ours.oov_ratio:.1f}%" == _gensim_oov_ratio(caplog)


@pytest.mark.filterwarnings("ignore:Call to deprecated `init_sims`:DeprecationWarning")  # inside gensim
def test_3cosmul_equals_gensim_cosmul_with_the_same_rule(minilm, minilm_kv, tmp_path):
    # gensim's evaluate_word_analogies has no 3CosMul (it always calls most_similar), so the oracle
    # is its loop with most_similar_cosmul in place of most_similar
    path = _subset(benchmark_path("google"), tmp_path / "q.txt", per_section=8)
    ours = ev.evaluate_word_analogies(minilm, path, method="3cosmul")
    vocab = folded_vocab(minilm.index_to_key, 300_000)
    expected, section = [], None
    original, minilm_kv.key_to_index = minilm_kv.key_to_index, vocab
    try:
        for line in path.read_text().splitlines():
            if line.startswith(": "):
                section = [line[2:], 0, 0]
                expected.append(section)
                continue
            a, b, c, d = line.upper().split()
            if not all(w in vocab for w in (a, b, c, d)):
                continue
            predicted = None
            for key, _ in minilm_kv.most_similar_cosmul(positive=[b, c], negative=[a], topn=5):
                predicted = key.upper()
                if predicted not in (a, b, c):
                    break
            section[1] += predicted == d
            section[2] += 1
    finally:
        minilm_kv.key_to_index = original
    assert [(s.name, s.correct, s.total) for s in ours.sections] == [tuple(s) for s in expected]
    assert ours.method == "3cosmul"


def _case_variant_table():
    """king, man, woman and queen, plus case variants of the inputs that sit on the 3CosAdd query."""
    rng = np.random.default_rng(1)
    base = {k: rng.normal(size=8) for k in ("king", "man", "woman", "queen", "apple")}
    unit = {k: v / np.linalg.norm(v) for k, v in base.items()}
    query = unit["king"] + unit["woman"] - unit["man"]
    rows = dict(base)
    rows["queen"] = query + 0.3 * rng.normal(size=8)
    for i, variant in enumerate(["KING", "King", "WOMAN", "Woman", "MAN"]):
        rows[variant] = query + (0.01 + 0.01 * i) * rng.normal(size=8)  # closer to the query than queen
    return Vectors(list(rows), np.stack(list(rows.values())))


@pytest.mark.parametrize("case_insensitive", [True, False])
@pytest.mark.parametrize("expected", ["queen", "woman", "King"])
def test_top5_skip_rule_equals_gensim(tmp_path, case_insensitive, expected):
    # the five case variants of the inputs outrank queen: case-insensitively all five are skipped and
    # gensim keeps the last of them (so "man king woman woman" counts as correct); case-sensitively
    # the first variant is the answer
    vectors = _case_variant_table()
    path = tmp_path / "q.txt"
    path.write_text(f": royal\nman king woman {expected}\n")
    ours = ev.evaluate_word_analogies(vectors, path, case_insensitive=case_insensitive)
    _, sections = _gensim(vectors).evaluate_word_analogies(str(path), case_insensitive=case_insensitive)
    assert _ours_sections(ours) == _gensim_sections(sections)


def test_synthetic_analogies_all_correct(tmp_path):
    # x(i, j) = (e_i + f_j) / √2 are unit vectors, so u_b + u_c − u_a = x(k, 1) exactly for
    # x(i, 0) : x(i, 1) :: x(k, 0) : x(k, 1); every other row has cosine <= 1/2 with it
    entities, roles = 6, 3
    table = np.zeros((entities * roles, entities + roles))
    keys = []
    for i in range(entities):
        for j in range(roles):
            table[len(keys), [i, entities + j]] = 1 / math.sqrt(2)
            keys.append(f"w{i}_{j}")
    lines = []
    for j, m in [(0, 1), (1, 2), (2, 0)]:
        lines.append(f": role{j}-role{m}")
        lines += [f"w{i}_{j} w{i}_{m} w{k}_{j} w{k}_{m}" for i in range(entities) for k in range(entities) if i != k]
    path = tmp_path / "synthetic.txt"
    path.write_text("\n".join(lines) + "\n")
    vectors = Vectors(keys, table)
    for method in ANALOGY_METHODS:
        result = ev.evaluate_word_analogies(vectors, path, method=method, batch_size=7)
        assert result.accuracy == 1.0 and result.total.total == result.questions == 3 * entities * (entities - 1)
        assert result.oov == 0 and [s.accuracy for s in result.sections] == [1.0, 1.0, 1.0]


def test_batch_size_and_dummy4unknown(minilm, google_subset):
    one = ev.evaluate_word_analogies(minilm, google_subset, restrict_vocab=10000)
    batched = ev.evaluate_word_analogies(minilm, google_subset, restrict_vocab=10000, batch_size=13)
    assert one == batched
    dummy = ev.evaluate_word_analogies(minilm, google_subset, restrict_vocab=10000, dummy4unknown=True)
    assert dummy.total.correct == one.total.correct and dummy.total.total == one.total.total + one.oov
    assert dummy.total.total == dummy.questions


def test_evaluate_all_and_json(minilm):
    results = ev.evaluate_all(minilm, restrict_vocab=3000)  # a small vocabulary keeps the analogy run fast
    assert list(results) == [*PAIR_BENCHMARKS, "google"]
    assert set(BENCHMARKS) - set(results) == set(MORE_PAIR_BENCHMARKS)  # scored by name, for WordSim-7
    assert results["simlex999"] == ev.evaluate_word_pairs(minilm, "simlex999", restrict_vocab=3000)
    google = results["google"]
    assert google.restrict_vocab == 3000 and google.questions == 19544 and google.method == "3cosadd"
    assert 0 < google.total.total < google.questions
    assert results["rw"] is None  # no RW pair has both words among the first 3000 WordPiece keys
    decoded = json.loads(json.dumps({name: r and r.to_dict() for name, r in results.items()}))
    assert decoded["rw"] is None and decoded["men"]["total"] == 3000
    assert decoded["google"]["total"]["name"] == "Total accuracy"
    assert decoded["google"]["accuracy"] == google.accuracy
    assert decoded["wordsim353"]["spearman"] == results["wordsim353"].spearman


# ---- bootstrap intervals -------------------------------------------------------------------------


@pytest.mark.parametrize("benchmark", ["wordsim353", "simlex999"])
def test_pair_interval_holds_the_score_and_follows_the_seed(minilm, benchmark):
    result = ev.evaluate_word_pairs(minilm, benchmark, seed=7)
    low, high = result.interval
    assert low < result.spearman < high and high - low < 0.2  # measured widths: 0.09, 0.11
    assert (result.resamples, result.confidence, result.seed) == (1000, 0.95, 7)
    assert ev.evaluate_word_pairs(minilm, benchmark, seed=7).interval == result.interval
    other = ev.evaluate_word_pairs(minilm, benchmark, seed=8).interval
    assert other != result.interval and other == pytest.approx(result.interval, abs=SEED_TOL)
    off = ev.evaluate_word_pairs(minilm, benchmark, resamples=0)
    assert off.interval is None and off.resamples == 0 and (off.spearman, off.pairs) == (result.spearman, result.pairs)


def test_analogy_interval_holds_the_accuracy_and_follows_the_seed(minilm, google_subset):
    result = ev.evaluate_word_analogies(minilm, google_subset, restrict_vocab=10000, seed=1)
    low, high = result.interval
    assert low < result.accuracy < high and result.resamples == 1000
    again = ev.evaluate_word_analogies(minilm, google_subset, restrict_vocab=10000, seed=1, batch_size=13)
    assert again == result  # same seed, same interval (and the batch size changes nothing)
    # another seed: the right counts are whole numbers, so with ~100 questions the percentiles often land
    # on the same counts (the same interval) and otherwise a count or two away
    other = ev.evaluate_word_analogies(minilm, google_subset, restrict_vocab=10000, seed=2, resamples=2000)
    assert other.interval == pytest.approx(result.interval, abs=2 / result.total.total)
    assert ev.evaluate_word_analogies(minilm, google_subset, restrict_vocab=10000, resamples=0).interval is None


def test_interval_narrows_as_pairs_are_added(minilm, tmp_path):
    lines = [line for line in benchmark_path("wordsim353").read_text().splitlines() if not line.startswith("#")]
    first = tmp_path / "wordsim-first-60.tsv"
    first.write_text("\n".join(lines[:60]) + "\n")
    few, all_pairs = ev.evaluate_word_pairs(minilm, first), ev.evaluate_word_pairs(minilm, "wordsim353")
    assert few.name == "wordsim-first-60.tsv" and few.pairs < 60 < all_pairs.pairs
    # a width shrinks about as 1/sqrt(pairs): (329 / ~57)^0.5 ≈ 2.4 here; 1.5 leaves room for the sample
    assert few.interval[1] - few.interval[0] > 1.5 * (all_pairs.interval[1] - all_pairs.interval[0])


def test_evaluate_all_passes_the_bootstrap_settings(minilm):
    results = ev.evaluate_all(minilm, restrict_vocab=3000, resamples=500, seed=4)
    assert {(r.resamples, r.seed) for r in results.values() if r is not None} == {(500, 4)}
    assert results["wordsim353"] == ev.evaluate_word_pairs(
        minilm, "wordsim353", restrict_vocab=3000, resamples=500, seed=4
    )
    decoded = json.loads(json.dumps(results["google"].to_dict(), allow_nan=False))
    assert decoded["interval"] == list(results["google"].interval) and decoded["confidence"] == 0.95
    off = ev.evaluate_all(minilm, restrict_vocab=3000, resamples=0).values()
    assert all(r.interval is None for r in off if r is not None)
    with pytest.raises(InvalidValueError, match="resamples must be an integer between 100 and 100,000"):
        ev.evaluate_all(minilm, resamples=10)  # not swallowed as "no usable pair"


# ---- errors --------------------------------------------------------------------------------------


def test_unknown_benchmark_and_missing_file(minilm, tmp_path):
    with pytest.raises(UnknownNameError, match="unknown benchmark 'wordsim'; known: card660, google, men, mturk771"):
        benchmark_path("wordsim")
    missing = tmp_path / "nope.tsv"
    with pytest.raises(MissingDataError, match="nope.tsv"):
        ev.evaluate_word_pairs(minilm, missing)
    with pytest.raises(MissingDataError, match="'wordsim'.*built-in benchmark"):
        ev.evaluate_word_analogies(minilm, "wordsim")
    with pytest.raises(MissingDataError, match="'rw'.*built-in benchmark: google"):  # a word-pair set is no analogy set
        ev.evaluate_word_analogies(minilm, "rw")
    with pytest.raises(MissingDataError, match="'google'.*built-in benchmark: wordsim353, simlex999, rw"):
        ev.evaluate_word_pairs(minilm, "google")


def test_gensim_missing(monkeypatch):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "gensim" else find_spec(name, *a))
    with pytest.raises(MissingDataError, match="pip install gensim"):
        benchmark_path("google")


def test_nothing_usable_names_the_file(minilm, tmp_path):
    pairs = tmp_path / "oov.tsv"
    pairs.write_text("qwxzzy\tzzyqx\t5.0\nonly two\tfields\n")
    with pytest.raises(InvalidValueError, match="oov.tsv"):
        ev.evaluate_word_pairs(minilm, pairs)
    analogies = tmp_path / "oov.txt"
    analogies.write_text(": section\nqwxzzy man king woman\nthree words only\n")
    result = ev.evaluate_word_analogies(minilm, analogies)  # all out of vocabulary: 0 of 0, as gensim
    assert (result.questions, result.oov, result.total.total, result.accuracy) == (1, 1, 0, 0.0)
    assert ev.evaluate_word_analogies(minilm, analogies, dummy4unknown=True).total.total == 1
    analogies.write_text(": section\nthree words only\n")
    with pytest.raises(InvalidValueError, match="no question in .*oov.txt"):
        ev.evaluate_word_analogies(minilm, analogies)


def test_question_before_header(minilm, tmp_path):
    path = tmp_path / "headless.txt"
    path.write_text("\nman king woman queen\n: section\n")
    with pytest.raises(FileFormatError, match=r"headless.txt, line 2"):
        ev.evaluate_word_analogies(minilm, path)


@pytest.mark.parametrize("value", [0, -1, 2.5, True])
def test_restrict_vocab_checked(minilm, value):
    with pytest.raises(InvalidValueError, match="restrict_vocab"):
        ev.evaluate_word_pairs(minilm, "wordsim353", restrict_vocab=value)
    with pytest.raises(InvalidValueError, match="restrict_vocab"):
        ev.evaluate_word_analogies(minilm, "google", restrict_vocab=value)
