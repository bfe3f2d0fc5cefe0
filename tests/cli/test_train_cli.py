"""`embedlab train` end to end: the JSON report, a folder the other commands read, one-line
errors, and neighbours that real text must give for each word2vec method."""

from __future__ import annotations

import json
from pathlib import Path

import floret
import numpy as np
import pytest
from safetensors.numpy import load_file

from embedlab.train.config import RunConfig
from embedlab.train.run import train
from embedlab.vectors import SubwordVectors, Vectors, load


def _neighbours(run_cli, folder: Path, word: str, k: int) -> list[str]:
    status, out, err = run_cli("neighbors", str(folder), word, "-k", str(k), "--json")
    assert status == 0, err
    return [n["key"] for n in json.loads(out)["neighbors"]]


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def test_train_json_then_query_the_folder(run_cli, wiki_text, tmp_path):
    out_dir = tmp_path / "run"
    status, out, err = run_cli("train", str(wiki_text), "--out", str(out_dir), "--dim", "20", "--epochs", "1", "--json")
    assert status == 0 and err == "", err
    assert out.count("\n") == 1  # one JSON object on one line
    report = json.loads(out)
    assert report["out"] == str(out_dir) and report["status"] == "finished"
    metrics = report["metrics"]
    assert metrics == json.loads((out_dir / "metrics.json").read_text(encoding="utf-8"))
    vectors = Vectors.load(out_dir)
    assert (metrics["method"], metrics["dim"], metrics["vocabulary"]) == ("sgns", 20, len(vectors))
    assert metrics["words"] == vectors.counts.sum() and metrics["words_per_second"] > 0
    assert set(metrics["benchmarks"]) == {"wordsim353", "simlex999", "rw", "men", "simverb3500", "mturk771", "google"}
    expected = [key for key, _ in vectors.most_similar("january", topn=10)]
    assert _neighbours(run_cli, out_dir, "january", 10) == expected and "january" not in expected


def test_bad_input_is_one_line_and_exit_2(run_cli, small_text, tmp_path):
    finished, stopped = tmp_path / "finished", tmp_path / "stopped"
    status, _, err = run_cli(
        "train", str(small_text), "--out", str(finished), "--dim", "20", "--epochs", "1", "--no-evaluate", "--json"
    )
    assert status == 0, err
    config = RunConfig(corpus=str(small_text), dim=20, epochs=1, threads=1)
    assert train(config, stopped, evaluate=False, should_stop=lambda: True).status == "stopped"
    subwords, floret_run = tmp_path / "subwords", tmp_path / "floret"  # stopped runs in fastText's mode and floret's
    for folder, mode in ((subwords, {}), (floret_run, {"floret": True})):
        config = RunConfig(corpus=str(small_text), dim=20, epochs=1, threads=1, subwords=True, buckets=1000, **mode)
        assert train(config, folder, evaluate=False, should_stop=lambda: True).status == "stopped"
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    corpus, new = str(small_text), str(tmp_path / "new")
    folders = (finished, stopped, subwords, floret_run)
    before = {folder: _files(folder) for folder in folders}
    for args, message in [
        (("nowhere.txt", "--out", new), "error: corpus 'nowhere.txt' is neither a built-in name"),
        ((str(empty), "--out", new), f"error: corpus file {empty} is empty"),
        ((corpus, "--out", new, "--dim", "0"), "error: --dim must be >= 1; got 0"),
        ((corpus, "--out", new, "--method", "glove"), "error: --method must be one of sgns, cbow, lm; got 'glove'"),
        ((corpus, "--out", new, "--min-count", "10000000"), "error: min_count 10000000 leaves no vocabulary"),
        ((corpus, "--out", new, "--watch", "january", "--watch", "zzzqqq"), "error: watch: 'zzzqqq' not in"),
        ((corpus, "--out", new, "--checkpoint-every", "0"), "error: checkpoint_every must be > 0 seconds"),
        ((corpus, "--out", str(finished)), f"error: {finished} already holds a run (sgns on {corpus}, finished)"),
        ((corpus, "--out", str(finished), "--resume"), f"error: the run in {finished} is already finished"),
        ((corpus, "--out", str(stopped), "--resume", "--dim", "50"),
         f"error: {stopped} holds a different run: dim 50 (run has 20)"),
        ((corpus, "--out", new, "--resume"), f"error: nothing to resume: {new} holds no run.json"),
        ((corpus, "--out", new, "--subwords", "--min-n", "5", "--max-n", "4"),
         "error: --min-n must be between 1 and 4; got 5"),
        ((corpus, "--out", new, "--subwords", "--max-n", "0"), "error: --max-n must be >= 1; got 0"),
        ((corpus, "--out", new, "--subwords", "--buckets", "0"),
         "error: --buckets must be between 1 and 2147483647; got 0"),
        ((corpus, "--out", new, "--subwords", "--buckets", "2147483648"),
         "error: --buckets must be between 1 and 2147483647; got 2147483648"),
        ((corpus, "--out", new, "--min-n", "2"), "error: --min-n 2 needs subwords"),
        ((corpus, "--out", new, "--max-n", "5"), "error: --max-n 5 needs subwords"),
        ((corpus, "--out", new, "--buckets", "1000"), "error: --buckets 1000 needs subwords"),
        ((corpus, "--out", new, "--subwords", "--method", "lm"),
         "error: subwords train with sgns or cbow; got method lm"),
        ((corpus, "--out", new, "--subwords", "--buckets", "2147483647", "--dim", "100000"),
         "error: sgns with dim 100,000 and 2,147,483,647 n-gram buckets"),
        ((corpus, "--out", str(stopped), "--resume", "--subwords"),
         f"error: {stopped} holds a different run: subwords True (run has False)"),
        ((corpus, "--out", new, "--floret"), "error: --floret True needs subwords: only a subword run trains n-grams"),
        ((corpus, "--out", new, "--subwords", "--hash-count", "2"),
         "error: --hash-count 2 needs floret: only floret's mode hashes each word and n-gram into 1..4 rows"),
        ((corpus, "--out", new, "--hash-count", "3"), "error: --hash-count 3 needs floret"),
        ((corpus, "--out", new, "--subwords", "--floret", "--hash-count", "5"),
         "error: --hash-count must be between 1 and 4; got 5"),
        ((corpus, "--out", new, "--subwords", "--floret", "--hash-count", "0"),
         "error: --hash-count must be between 1 and 4; got 0"),
        ((corpus, "--out", str(subwords), "--resume", "--subwords", "--floret"),
         f"error: {subwords} holds a different run: floret True (run has False)"),
        ((corpus, "--out", str(floret_run), "--resume", "--subwords", "--floret", "--hash-count", "3"),
         f"error: {floret_run} holds a different run: hash_count 3 (run has 2)"),
    ]:  # fmt: skip
        status, out, err = run_cli("train", *args)
        assert status == 2, args
        assert out == "" and err.startswith(message), (args, err)
        assert err.count("\n") == 1 and "Traceback" not in err
        assert not Path(new).exists(), args  # nothing written
    assert {folder: _files(folder) for folder in folders} == before  # nothing overwritten


def test_help_names_the_options(run_cli):
    status, out, _ = run_cli("train", "--help")
    assert status == 0
    options = ("--resume", "--watch", "--method", "--out", "--checkpoint-every", "--tied", "--untied", "--subwords",
               "--min-n", "--max-n", "--buckets", "--floret", "--hash-count")  # fmt: skip
    assert all(option in out for option in options)


# Measured on enwiki-sample (dim 100, 3 epochs, 2 threads), seeds 1-5: sgns ranks "february" 1st-5th
# of january's neighbours, "three" 1st of two's and "she" first for "he". CBOW is undertrained here
# (its cosines bunch near 0.99, gensim's too): on 2026-11-24, seeds 1-2 on 1 and 2 threads, february
# ranked 0-15 of january's ~10,000 neighbours and "three" ranged from 1st to outside two's top 300
# (gensim's cbow on the same file: 1st-2nd at seeds 2-3, outside the top 5 at seed 1). So cbow is
# held only to january's top 50.
@pytest.mark.parametrize("method", ["sgns", "cbow"])
def test_real_text_gives_known_neighbours(method, run_cli, wiki_text, tmp_path):
    out_dir = tmp_path / method
    status, out, err = run_cli("train", str(wiki_text), "--out", str(out_dir), "--method", method,
                               "--epochs", "3", "--threads", "2", "--seed", "1", "--no-evaluate", "--json")  # fmt: skip
    assert status == 0, err
    assert json.loads(out)["metrics"]["dim"] == 100
    assert "february" in _neighbours(run_cli, out_dir, "january", 10 if method == "sgns" else 50)
    if method == "sgns":
        assert "three" in _neighbours(run_cli, out_dir, "two", 5)
        assert "she" in _neighbours(run_cli, out_dir, "he", 3)


NEAR_TIE = 1e-5  # cosines of a composed table against the stored one (float32 means, ~1e-6 apart)


@pytest.mark.parametrize("method", ["sgns", "cbow"])
def test_subwords_train_a_table_the_other_commands_read(method, run_cli, small_text, tmp_path):
    out_dir = tmp_path / method
    status, out, err = run_cli("train", str(small_text), "--out", str(out_dir), "--method", method, "--subwords",
                               "--min-n", "2", "--max-n", "5", "--buckets", "20000", "--dim", "20", "--epochs", "1",
                               "--no-evaluate", "--json")  # fmt: skip
    assert status == 0, err
    assert json.loads(out)["status"] == "finished"
    config = json.loads((out_dir / "run.json").read_text(encoding="utf-8"))["config"]
    assert (config["method"], config["subwords"], config["min_n"], config["max_n"], config["buckets"]) == (
        method, True, 2, 5, 20000)  # fmt: skip
    sub = load_file(out_dir / "subwords.safetensors")
    vectors = Vectors.load(out_dir)
    assert sub["word_rows"].shape == vectors.vectors.shape and sub["ngram_rows"].shape == (20000, 20)
    assert sub["bucket_counts"].sum() > 0
    # the command reads the same table; an undertrained table's near-ties may swap (composed x/n
    # against stored x·(1/n)), so the scores are compared, and each key at its own score
    status, out, err = run_cli("neighbors", str(out_dir), "january", "-k", "5", "--json")
    assert status == 0, err
    got = [(n["key"], n["score"]) for n in json.loads(out)["neighbors"]]
    want = vectors.most_similar("january", topn=5)
    np.testing.assert_allclose([s for _, s in got], [s for _, s in want], rtol=0, atol=NEAR_TIE)
    for key, score in got:
        assert vectors.similarity("january", key) == pytest.approx(score, abs=NEAR_TIE), key
    # the run folder loads as a table that answers any word, its stored table the composed vectors
    table = load(out_dir)
    assert isinstance(table, SubwordVectors) and (table.min_n, table.max_n, table.buckets) == (2, 5, 20000)
    np.testing.assert_allclose(table.vectors, vectors.vectors, rtol=0, atol=1e-6)  # x/n against x·(1/n)
    np.testing.assert_array_equal(table.bucket_counts, sub["bucket_counts"])
    assert "januaryy" not in vectors and table.source("januaryy") == "ngrams"
    status, out, err = run_cli("neighbors", str(out_dir), "januaryy", "-k", "3", "--json")
    assert status == 0, err
    assert json.loads(out)["from"] == {"januaryy": "ngrams"}


FLORET_SAME = 1e-5  # floret's C++ mean (float32, row by row) against ours, on rows of size ~1/D


@pytest.mark.parametrize("method", ["sgns", "cbow"])
def test_floret_trains_a_table_that_floret_reads(method, run_cli, small_text, tmp_path):
    out_dir = tmp_path / method
    status, out, err = run_cli("train", str(small_text), "--out", str(out_dir), "--method", method, "--subwords",
                               "--floret", "--hash-count", "3", "--buckets", "20000", "--dim", "20", "--epochs", "1",
                               "--no-evaluate", "--json")  # fmt: skip
    assert status == 0, err
    config = json.loads((out_dir / "run.json").read_text(encoding="utf-8"))["config"]
    assert (config["floret"], config["hash_count"], config["buckets"]) == (True, 3, 20000)
    sub = load_file(out_dir / "subwords.safetensors")
    assert set(sub) == {"ngram_rows", "bucket_counts"} and sub["ngram_rows"].shape == (20000, 20)
    # the run folder loads as a floret table; its stored table is the composed vectors
    vectors, table = Vectors.load(out_dir), load(out_dir)
    assert isinstance(table, SubwordVectors) and table.word_rows is None
    assert (table.hash_count, table.min_n, table.max_n, table.buckets) == (3, 3, 6, 20000)
    assert table.index_to_key == vectors.index_to_key
    np.testing.assert_allclose(table.vectors, vectors.vectors, rtol=0, atol=1e-6)  # x/n against x·(1/n)
    np.testing.assert_array_equal(table.bucket_counts, sub["bucket_counts"])
    unseen = ["januaryy", "unhappinesses", "naïveté", "zürich", "fráncé"]
    assert not any(word in vectors for word in unseen) and {table.source(word) for word in unseen} == {"ngrams"}
    status, out, err = run_cli("neighbors", str(out_dir), "januaryy", "-k", "3", "--json")
    assert status == 0, err
    assert json.loads(out)["from"] == {"januaryy": "ngrams"}
    # saved as a .bin, floret itself reads the same vectors, seen words and unseen ones
    path = tmp_path / f"{method}.bin"
    assert table.save(path) == [path]
    theirs = floret.load_model(str(path))
    assert theirs.words == table.index_to_key
    words = table.index_to_key[:25] + table.index_to_key[-25:] + unseen
    got = np.array([theirs.get_word_vector(word) for word in words])
    np.testing.assert_allclose(got, np.array([table[word] for word in words]), rtol=0, atol=FLORET_SAME)
