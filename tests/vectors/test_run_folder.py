"""vectors/io/run.py, the run folder's one owner: a small real run of each kind read back file by
file through the module; the streaming safetensors writer against safetensors' own reader; every
writer of rows refusing NaN before its file is touched."""

from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors import safe_open

from embedlab.errors import DivergedError, FileFormatError, InvalidValueError
from embedlab.tokenizer import FastTokenizer
from embedlab.train.config import RunConfig
from embedlab.train.run import train
from embedlab.train.tables import init_tables
from embedlab.vectors.io import Table, read_table, write_tensors
from embedlab.vectors.io import run as run_files

WORDS = "the cat dog sat ran on a mat under tree river bank water stone light".split()
DIVERGED_ROWS = np.array([[0.1, 0.2, 0.3], [0.4, np.nan, 0.6], [np.inf, 0.0, 0.0]], dtype=np.float32)
# The tiny runs below: (extra settings, the files the finished folder holds besides the shared ones)
SHARED = {run_files.RUN_FILE, run_files.RUN_TABLE, "vectors.vocab.json", run_files.RUN_TEXT}
SHARED |= {run_files.UPDATE_COUNTS, run_files.RUN_SNAPSHOTS, run_files.RUN_METRICS}
RUNS = {
    "subwords": (
        {"subwords": True, "min_n": 2, "max_n": 4, "buckets": 500},
        {run_files.RUN_VOCAB, run_files.RUN_SUBWORDS},
    ),
    "lm": (
        {"method": "lm", "dim": 8, "vocab_size": 300, "context": 16, "layers": 1, "heads": 2, "batch_size": 64},
        {run_files.RUN_TOKENIZER, "tokenizer.counts.json"},
    ),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """300 lines of 12 words drawn from 15: every word far above min_count, a run of seconds."""
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("corpus") / "tiny.txt"
    path.write_text("".join(" ".join(rng.choice(WORDS, 12)) + "\n" for _ in range(300)), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", RUNS)
def test_every_file_of_a_small_run_reads_back_through_the_module(kind, corpus, tmp_path):
    settings, own = RUNS[kind]
    config = RunConfig(corpus=str(corpus), **{"dim": 8, "epochs": 1, "threads": 1, **settings})
    out = train(config, tmp_path / "run", evaluate=False, watch=["cat", "dog"]).path
    assert {p.name for p in out.iterdir()} == SHARED | own  # every file has its name in the module

    record = run_files.read_record(out)
    assert record["status"] == "finished" and record["config"] == config.to_dict() and "reason" not in record
    table = run_files.read_run_table(out)
    V, D = table.vectors.shape
    assert D == 8 and len(table.counts) == V
    text = read_table(out / run_files.RUN_TEXT)  # word2vec text, its shortest exact decimals
    assert text.keys == table.keys and np.array_equal(text.vectors, table.vectors)
    updates = run_files.read_update_counts(out)
    assert updates.shape == (V,) and updates.sum() > 0
    snaps = run_files.read_snapshots(out)
    assert snaps.unit == ("pieces" if kind == "lm" else "words") and snaps.done[0] == 0
    np.testing.assert_array_equal(snaps.vectors[-1], table.vectors[snaps.ids])  # the last one is the final table
    assert [table.keys[i] for i in snaps.ids] == snaps.tokens
    metrics = run_files.read_metrics(out)
    assert metrics["vocabulary"] == V and metrics[snaps.unit] == snaps.done[-1]
    if kind == "lm":
        assert FastTokenizer.load(out / run_files.RUN_TOKENIZER).vocab_size == V
        return
    vocab = run_files.read_vocab(out)
    assert vocab["index_to_key"] == table.keys and vocab["counts"] == table.counts
    rows = run_files.read_subwords(out)
    assert (rows.min_n, rows.max_n, rows.hash_count) == (2, 4, None)
    assert rows.word_rows.shape == (V, D) and rows.ngram_rows.shape == (500, D) and rows.bucket_counts.sum() > 0


def test_write_tensors_streams_what_safetensors_reads(tmp_path):
    tensors = {
        "f32": np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2],  # not contiguous: made so, then written
        "f64": np.array([0.5, -1.25]),
        "i64": np.array([[1, -2]], dtype=np.int64),
        "i32": np.array([7], dtype=np.int32),
        "f16": np.array([0.5, 65504.0], dtype=np.float16),  # a static model's rows (vectors/static.py)
        "empty": np.zeros((0, 5), dtype=np.float32),
    }
    path = write_tensors(tmp_path / "t.safetensors", tensors, {"unit": "words", "n": 3})
    with safe_open(path, framework="np") as f:  # the oracle: safetensors' own reader
        assert f.metadata() == {"unit": "words", "n": "3"}
        for name, want in tensors.items():
            got = f.get_tensor(name)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
    with pytest.raises(InvalidValueError, match=r"tensor 'b' is uint8; a safetensors file here holds float16, float32"):
        write_tensors(tmp_path / "u.safetensors", {"b": np.zeros(2, np.uint8)})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.safetensors"]  # no temporary file left


def test_subwords_file_reads_back_with_safetensors(tmp_path):
    w_in, _ = init_tables(6, 4, seed=0, buckets=10)
    counts = np.arange(10, dtype=np.int64)
    path = run_files.write_subwords(tmp_path, w_in[:6], w_in[6:], counts, min_n=2, max_n=5)
    assert path == tmp_path / run_files.RUN_SUBWORDS
    with safe_open(path, framework="np") as f:
        assert f.metadata() == {"min_n": "2", "max_n": "5", "buckets": "10"}
        np.testing.assert_array_equal(f.get_tensor("word_rows"), w_in[:6])
        np.testing.assert_array_equal(f.get_tensor("ngram_rows"), w_in[6:])
        np.testing.assert_array_equal(f.get_tensor("bucket_counts"), counts)
    assert [p.name for p in tmp_path.iterdir()] == [run_files.RUN_SUBWORDS]  # no temporary file left


def test_a_floret_subwords_file_has_no_word_rows_and_says_its_hash_count(tmp_path):
    rows, _ = init_tables(0, 4, seed=0, buckets=10, word_rows=False)
    counts = np.arange(10, dtype=np.int64)
    path = run_files.write_subwords(tmp_path, None, rows, counts, min_n=2, max_n=5, hash_count=3)
    with safe_open(path, framework="np") as f:
        assert f.metadata() == {"min_n": "2", "max_n": "5", "buckets": "10", "hash_count": "3"}
        assert set(f.keys()) == {"ngram_rows", "bucket_counts"}
    back = run_files.read_subwords(tmp_path)
    assert back.word_rows is None and back.hash_count == 3
    np.testing.assert_array_equal(back.ngram_rows, rows)


@pytest.mark.parametrize("floret", [False, True])
def test_diverged_subword_rows_are_refused_before_the_file_is_written(tmp_path, floret):
    finite, counts = np.ones((2, 3), dtype=np.float32), np.zeros(3, dtype=np.int64)
    word_rows, hash_count = (None, 2) if floret else (finite, None)
    with pytest.raises(DivergedError, match=r"n-gram bucket rows\): row 1 column 1 holds nan; the run diverged"):
        run_files.write_subwords(tmp_path, word_rows, DIVERGED_ROWS, counts, min_n=3, max_n=6, hash_count=hash_count)
    if not floret:
        with pytest.raises(DivergedError, match=r"\(word rows\): row 1 column 1 holds nan; the run diverged"):
            run_files.write_subwords(tmp_path, DIVERGED_ROWS, finite, counts[:2], min_n=3, max_n=6)
    assert list(tmp_path.iterdir()) == []


def test_a_diverged_table_is_refused_by_the_run_folders_writer(tmp_path):
    """A run whose rows went to NaN (a learning rate too high) writes no table that every reader would
    then refuse: the first bad row is named, with its key and column, and nothing is written."""
    table = Table(["cat", "dog", "eel"], DIVERGED_ROWS, [3, 2, 1])
    with pytest.raises(DivergedError, match=r"row 1 \('dog'\) column 1 holds nan; the run diverged .*lower"):
        run_files.write_run_table(tmp_path, table)
    assert list(tmp_path.iterdir()) == []


def test_snapshots_refuse_a_non_finite_row_naming_snapshot_and_token(tmp_path):
    vectors = np.stack([np.zeros((3, 3), np.float32), DIVERGED_ROWS])  # (S=2, W=3, D=3)
    snaps = run_files.Snapshots(vectors, np.array([0, 500]), np.array([4, 5, 6]), ["cat", "dog", "eel"], "words")
    with pytest.raises(DivergedError, match=r"snapshot 1 \(at 500 words\): row 1 \('dog'\) column 1 holds nan"):
        run_files.write_snapshots(tmp_path, snaps)
    assert list(tmp_path.iterdir()) == []
    # a finite series goes through, and a file damaged afterwards is refused on read, as every reader does
    run_files.write_snapshots(
        tmp_path, run_files.Snapshots(vectors[:1], snaps.done[:1], snaps.ids, snaps.tokens, "words")
    )
    assert run_files.read_snapshots(tmp_path).tokens == ["cat", "dog", "eel"]
    write_tensors(tmp_path / run_files.RUN_SNAPSHOTS, {"vectors": vectors, "words": snaps.done, "ids": snaps.ids},
                  {"tokens": json.dumps(snaps.tokens), "unit": "words"})  # fmt: skip
    with pytest.raises(FileFormatError, match=r"snapshot 1: row 1 \('dog'\) column 1 holds nan"):
        run_files.read_snapshots(tmp_path)


def test_a_record_with_an_unknown_status_is_a_damaged_run(tmp_path):
    run_files.write_record(tmp_path, "finished", {"corpus": "c.txt"}, "c.txt")
    assert run_files.read_record(tmp_path)["status"] == "finished"
    (tmp_path / run_files.RUN_FILE).write_text(json.dumps({"config": {}, "status": "exploded"}), encoding="utf-8")
    with pytest.raises(FileFormatError, match=r"run\.json: not a readable embedlab run"):
        run_files.read_record(tmp_path)
    with pytest.raises(InvalidValueError, match="status must be one of running, stopped, finished, diverged, failed"):
        run_files.write_record(tmp_path, "exploded", {}, "c.txt")
