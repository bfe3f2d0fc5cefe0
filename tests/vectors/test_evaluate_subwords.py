"""Word-pair benchmarks of a table that composes vectors for unseen words: fastText's sisg and sisg−.

The evaluation relies only on what SubwordVectors shares with gensim's FastTextKeyedVectors:
`has_index_for(w)` when w has its own row, `w in table` when a vector can be made (its own row, or
at least one n-gram bucket that training updated), `table[w]` that vector.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from gensim.models import KeyedVectors
from scipy import stats

from embedlab.hashing import ngram_buckets, vocab_ngram_buckets
from embedlab.vectors import SubwordVectors, Vectors, load
from embedlab.vectors import evaluate as ev
from embedlab.vectors.io.benchmarks import read_benchmark_pairs
from embedlab.vectors.scoring import pair_scores

OWN = 5000  # whole words given their own rows: MiniLM's first 5000 (most RW words fall outside)
BUCKETS = 2**16
# gensim's cosines are float32, ours float64 of the same float32 rows: the correlations differ by at most
# what that rounding can move them (float32_bounds in conftest), plus float64's own rounding
FLOAT64_TOL = 1e-12
COLUMNS = 80


@pytest.fixture(scope="module")
def table(minilm_vectors) -> SubwordVectors:
    """MiniLM's first OWN whole words as rows; each bucket row the mean of the rows of all MiniLM whole
    words whose n-grams hash there (a table "trained" on 20,000 words that kept 5,000 rows)."""
    words = [w for w in minilm_vectors.index_to_key if w.isalpha() and w.islower()]  # no [CLS], ##ing, ...
    offsets, ids = vocab_ngram_buckets(words, 3, 6, BUCKETS)
    owner = np.repeat(np.arange(len(words)), np.diff(offsets))  # (N,) the word of each n-gram
    rows = minilm_vectors[words].astype(np.float64)  # (V, d)
    sums = np.zeros((BUCKETS, rows.shape[1]))
    np.add.at(sums, ids, rows[owner])
    counts = np.bincount(ids, minlength=BUCKETS)
    ngram_rows = (sums / np.maximum(counts, 1)[:, None]).astype(np.float32)
    return SubwordVectors(words[:OWN], minilm_vectors[words[:OWN]], ngram_rows, bucket_counts=counts, name="sub")


def _kv(keys, rows) -> KeyedVectors:
    kv = KeyedVectors(rows.shape[1])
    kv.add_vectors(list(keys), np.asarray(rows, dtype=np.float32))
    return kv


def _tsv(path, records):
    path.write_text("".join(f"{a}\t{b}\t{s!r}\n" for a, b, s in records), encoding="utf8")
    return str(path)


@pytest.mark.parametrize("name", ["rw", "men", "simverb3500"])
def test_sisg_and_sisg_minus_equal_gensim(table, name, tmp_path, float32_bounds):
    records = read_benchmark_pairs(name)  # lower-case words: composed as they are written
    ours = ev.evaluate_word_pairs(table, name)
    scored, error = pair_scores(table, records), float32_bounds.cosine_error(table.vector_size)
    rho_tol = float32_bounds.spearman(scored.gold, scored.model, error) + FLOAT64_TOL
    null_tol = float32_bounds.spearman(scored.gold, scored.null, error) + FLOAT64_TOL
    words = {w for a, b, _ in records for w in (a, b)}
    made = sorted(w for w in words if not table.has_index_for(w) and w in table)
    own_kv = _kv(table.index_to_key, table.vectors)
    # sisg: gensim on the own rows plus a row for each composed word scores every pair that can be made
    sisg_kv = _kv([*table.index_to_key, *made], np.vstack([table.vectors, [table[w] for w in made]]))
    pearson, spearman, oov_ratio = sisg_kv.evaluate_word_pairs(_tsv(tmp_path / "all.tsv", records))
    assert ours.spearman == pytest.approx(spearman.statistic, abs=rho_tol)
    assert ours.pearson == pytest.approx(pearson.statistic, abs=float32_bounds.pearson(scored.model, error))
    assert ours.oov_ratio == pytest.approx(oov_ratio, abs=FLOAT64_TOL)
    # sisg−: over the same pairs, a composed word is a null vector, as gensim's dummy4unknown scores it (0.0)
    coverable = [(a, b, s) for a, b, s in records if a in table and b in table]
    _, null, _ = own_kv.evaluate_word_pairs(_tsv(tmp_path / "coverable.tsv", coverable), dummy4unknown=True)
    assert ours.spearman_null == pytest.approx(null.statistic, abs=null_tol)
    # coverage: own rows as gensim finds them on the rows alone, n-grams as the contract's `in`
    _, _, own_oov = own_kv.evaluate_word_pairs(_tsv(tmp_path / "all.tsv", records))
    assert ours.own_rows == round(len(records) * (1 - own_oov / 100))
    assert (ours.total, ours.covered, ours.pairs) == (len(records), len(coverable), len(coverable))
    assert ours.own_rows < ours.covered  # the n-grams reach pairs the rows do not
    low, high = ours.interval_null
    assert low < ours.spearman_null < high and ours.interval_null != ours.interval


def test_rare_words_gain_from_ngrams(table):
    # RW has most words outside the first 5000: null vectors tie a third of its pairs at 0, n-grams rank them
    rw = ev.evaluate_word_pairs(table, "rw")
    assert rw.covered / rw.total > 0.9 > 0.5 > rw.own_rows / rw.total
    assert rw.spearman > rw.spearman_null + 0.1, (rw.spearman, rw.spearman_null)


def test_a_plain_table_reports_one_score(table):
    plain = Vectors(table.index_to_key, table.vectors)
    whole, sub = ev.evaluate_word_pairs(plain, "rw"), ev.evaluate_word_pairs(table, "rw")
    assert whole.spearman_null is None and whole.interval_null is None
    assert whole.own_rows == whole.covered == whole.pairs == sub.own_rows
    json.loads(json.dumps(whole.to_dict(), allow_nan=False))


def _tiny(tmp_path):
    """cat, dog, car with rows; "cats", "dogs" made of n-grams; "zzz", "CATS" of none that training updated."""
    rng = np.random.default_rng(0)
    buckets = 1000
    counts = np.zeros(buckets, dtype=np.int64)
    for word in ("cats", "dogs"):
        counts[ngram_buckets(word, 3, 6, buckets)] += 1
    for unseen in ("zzz", "CATS"):  # no bucket shared with them
        assert not counts[ngram_buckets(unseen, 3, 6, buckets)].any()
    rows, ngram_rows = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=(buckets, 4)).astype(np.float32)
    table = SubwordVectors(["cat", "dog", "car"], rows, ngram_rows, bucket_counts=counts)
    path = tmp_path / "tiny.tsv"
    path.write_text("cat\tdog\t9\ncat\tCATS\t8\ndog\tdogs\t7\ncar\tcats\t3\nzzz\tcat\t1\ncar\tdog\t2\n")
    return table, path


def _cos(u, v) -> float:
    u, v = np.asarray(u, np.float64), np.asarray(v, np.float64)
    return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))


def test_sisg_by_hand(tmp_path):
    table, path = _tiny(tmp_path)
    cat, dog, car, cats, dogs = (table[w] for w in ("cat", "dog", "car", "cats", "dogs"))
    gold = [9, 8, 7, 3, 2]  # the zzz pair is skipped: no vector can be made for zzz
    sisg = [_cos(cat, dog), _cos(cat, cats), _cos(dog, dogs), _cos(car, cats), _cos(car, dog)]
    null = [_cos(cat, dog), 0.0, 0.0, 0.0, _cos(car, dog)]
    result = ev.evaluate_word_pairs(table, path, resamples=0)
    assert result.spearman == pytest.approx(stats.spearmanr(gold, sisg).statistic, abs=FLOAT64_TOL)
    assert result.spearman_null == pytest.approx(stats.spearmanr(gold, null).statistic, abs=FLOAT64_TOL)
    assert (result.total, result.own_rows, result.covered, result.pairs, result.oov) == (6, 2, 5, 5, 1)
    dummy = ev.evaluate_word_pairs(table, path, resamples=0, dummy4unknown=True)
    assert dummy.pairs == 6 and dummy.spearman == pytest.approx(
        stats.spearmanr([*gold[:4], 1, 2], [*sisg[:4], 0.0, sisg[4]]).statistic, abs=FLOAT64_TOL
    )
    # case-insensitive, "CATS" was composed as "cats"; case-sensitive as written: its n-grams were never updated
    cased = ev.evaluate_word_pairs(table, path, resamples=0, case_insensitive=False)
    assert (cased.covered, cased.oov) == (4, 2)


def test_cli_shows_both_scores_and_coverage(table, run_cli, monkeypatch, tmp_path):
    path = tmp_path / "sub.bin"
    table.save(path)  # fastText's .bin: no bucket counts, so a never-updated bucket reads as its zero row
    monkeypatch.setenv("COLUMNS", str(COLUMNS))
    status, out, err = run_cli("evaluate", str(path), "--resamples", "200", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    rw = ev.evaluate_word_pairs(load(path), "rw", resamples=200)
    assert data["rw"] == json.loads(json.dumps(rw.to_dict()))
    assert data["rw"]["spearman_null"] < data["rw"]["spearman"]
    assert data["rw"]["covered"] == data["rw"]["total"] > data["rw"]["own_rows"]  # every RW word has a trained n-gram
    status, out, _ = run_cli("evaluate", str(path), "--resamples", "200")
    assert status == 0
    assert all(len(line) <= COLUMNS for line in out.splitlines()), max(out.splitlines(), key=len)
    assert "ρ sisg−" in out and "own rows" in out and "n-grams" in out
    [row] = [line for line in out.splitlines() if line.startswith("│ rw ") and "%" in line]
    share = 100 * rw.own_rows / rw.total
    assert f"│ {rw.total:,} │" in row and f"{rw.own_rows:,} ({share:.1f}%)" in row and f"{rw.covered:,} (100%)" in row
    [row] = [line for line in out.splitlines() if line.startswith("│ rw ") and "[" in line]
    assert f"{rw.spearman:.4f}" in row and f"{rw.spearman_null:.4f}" in row
