"""Training runs (`embedlab.train.run`): the finished folder file by file, resume bit for bit after
a stop, a crash or kill -9, memory that does not grow with the corpus, and refusals that leave every
file as it was."""

from __future__ import annotations

import itertools
import json
import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors import safe_open
from safetensors.numpy import load_file
from scipy.stats import spearmanr

from embedlab.data.benchmarks import ANALOGY_BENCHMARKS, PAIR_BENCHMARKS
from embedlab.data.corpora import open_corpus
from embedlab.errors import DivergedError, FileFormatError, InvalidValueError, MissingDataError
from embedlab.hashing import ngram_buckets
from embedlab.train.checkpoint import load_checkpoint
from embedlab.train.config import RunConfig
from embedlab.train.corpus import WordVocab, words
from embedlab.train.run import DEFAULT_WATCH, train
from embedlab.train.tables import init_tables
from embedlab.train.word2vec import Word2VecJob
from embedlab.vectors import Vectors

# One thread and a seed make word2vec a pure function of its inputs: every resumed run below must
# end bit for bit where the uninterrupted reference run with these settings ends.
SETTINGS = {"dim": 20, "epochs": 3, "threads": 1, "seed": 3}
FINISHED_FILES = {"run.json", "vocab.json", "vectors.safetensors", "vectors.vocab.json", "vectors.txt",
                  "update_counts.npy", "snapshots.safetensors", "metrics.json"}  # fmt: skip
KILL_TIMEOUT = 180  # seconds to wait for a mid-epoch checkpoint (it comes ~10 s in on an idle machine)
MIN_RANK_CORRELATION = 0.9  # update counts vs word counts; measured 0.987
MEMORY_SHARE = 1 / 4  # at most this share of the extra corpus bytes may show up as extra peak RSS

BENCHMARKS = {*PAIR_BENCHMARKS, *ANALOGY_BENCHMARKS}  # what metrics.json scores


@pytest.fixture(scope="module")
def reference(wiki_text, tmp_path_factory):
    """An uninterrupted, evaluated run -> (its RunResult, the on_progress reports, the on_snapshot calls)."""
    reports, snapshots = [], []
    result = train(
        RunConfig(corpus=str(wiki_text), **SETTINGS),
        tmp_path_factory.mktemp("reference") / "run",
        on_progress=reports.append,
        on_snapshot=lambda tokens, rows, done: snapshots.append((tokens, rows.copy(), done)),
    )
    return result, reports, snapshots


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    """name -> (bytes, mtime in ns) of every file in `folder`: what "nothing changed" compares."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def _status(folder: Path) -> str:
    return json.loads((folder / "run.json").read_text(encoding="utf-8"))["status"]


def assert_same_run(folder: Path, expected: Path) -> None:
    """Two finished run folders hold bit-identical tables, update counts and snapshots."""
    got, want = Vectors.load(folder), Vectors.load(expected)
    assert got.index_to_key == want.index_to_key
    np.testing.assert_array_equal(got.vectors, want.vectors)
    np.testing.assert_array_equal(np.load(folder / "update_counts.npy"), np.load(expected / "update_counts.npy"))
    got_snaps, want_snaps = load_file(folder / "snapshots.safetensors"), load_file(expected / "snapshots.safetensors")
    for name in ("vectors", "words", "ids"):
        np.testing.assert_array_equal(got_snaps[name], want_snaps[name])


# ----- a finished run's folder ---------------------------------------------------------------


def test_a_finished_run_holds_its_files_and_settings(reference, wiki_text):
    result, _, _ = reference
    assert result.status == "finished"
    assert {p.name for p in result.path.iterdir()} == FINISHED_FILES  # no checkpoint.pt, no temporary files
    record = json.loads((result.path / "run.json").read_text(encoding="utf-8"))
    assert record["status"] == "finished"
    assert record["config"] == RunConfig(corpus=str(wiki_text), **SETTINGS).to_dict()
    assert record["corpus_file"] == str(wiki_text)


def test_the_table_holds_the_vocabulary_with_its_counts(reference, wiki_text):
    folder = reference[0].path
    counter = Counter(w for line in open_corpus(wiki_text) for w in words(line))  # the oracle: a plain count
    vectors = Vectors.load(folder)
    assert vectors.vectors.shape == (len(vectors), SETTINGS["dim"]) and vectors.vectors.dtype == np.float32
    assert set(vectors.index_to_key) == {w for w, n in counter.items() if n >= 5}
    assert vectors.counts.tolist() == [counter[k] for k in vectors.index_to_key]
    assert (np.diff(vectors.counts) <= 0).all()  # most frequent first
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    assert vocab == {"index_to_key": vectors.index_to_key, "counts": vectors.counts.tolist()}
    text = Vectors.load(folder / "vectors.txt")  # word2vec text: the shortest decimals, so exact
    assert text.index_to_key == vectors.index_to_key
    np.testing.assert_array_equal(text.vectors, vectors.vectors)


def test_update_counts_follow_word_frequency(reference):
    folder = reference[0].path
    counts = Vectors.load(folder).counts
    updates = np.load(folder / "update_counts.npy")
    assert updates.dtype == np.int64 and updates.shape == counts.shape
    assert spearmanr(updates, counts).statistic > MIN_RANK_CORRELATION
    assert updates[counts == counts.min()].max() < updates[:100].min()  # the rarest words vs the 100 commonest
    # each occurrence is the context of at most 2 × window centre words per epoch
    assert (updates <= 2 * 5 * counts * SETTINGS["epochs"]).all() and (updates > 0).all()


def test_snapshots_run_from_the_init_to_the_final_rows(reference):
    result, _, calls = reference
    path = result.path / "snapshots.safetensors"
    snaps = load_file(path)
    with safe_open(path, framework="np") as f:
        tokens = json.loads(f.metadata()["tokens"])
    vectors = Vectors.load(result.path)
    S, W, D = snaps["vectors"].shape
    assert tokens == [w for w in DEFAULT_WATCH if w in vectors] and W == len(tokens) and D == SETTINGS["dim"]
    assert snaps["ids"].tolist() == [vectors.index_of(w) for w in tokens]
    assert snaps["words"].shape == (S,) and snaps["words"][0] == 0 and (np.diff(snaps["words"]) > 0).all()
    assert 50 < S <= 102  # about 100 over the run, plus the one before training
    first, last = snaps["vectors"][0], snaps["vectors"][-1]
    assert first.min() >= -1 / D and first.max() < 1 / D
    np.testing.assert_array_equal(first, init_tables(len(vectors), D, SETTINGS["seed"])[0][snaps["ids"]])
    assert snaps["words"][-1] == result.metrics["words"]
    np.testing.assert_array_equal(last, vectors[tokens])
    # on_snapshot saw what the file keeps
    assert [done for _, _, done in calls] == snaps["words"].tolist() and calls[0][0] == tokens
    np.testing.assert_array_equal(np.stack([rows for _, rows, _ in calls]), snaps["vectors"])


def test_metrics_are_strict_json_with_speed_and_benchmarks(reference):
    result, reports, _ = reference
    total = 3 * Vectors.load(result.path).counts.sum()  # every in-vocabulary word, each epoch

    def refuse(constant):
        raise ValueError(f"{constant} in metrics.json")

    metrics = json.loads((result.path / "metrics.json").read_text(encoding="utf-8"), parse_constant=refuse)
    assert metrics == result.metrics
    assert metrics["words"] == total and metrics["words_per_second"] > 0 and metrics["vocabulary"] == 9206
    assert 0 < metrics["final_loss"] < math.log(2)  # below an untrained table's: σ(0) = 1/2 for every target
    assert set(metrics["benchmarks"]) == BENCHMARKS
    assert -1 <= metrics["benchmarks"]["wordsim353"]["spearman"] <= 1
    # on_progress: one report a step, words rising to the total over the three epochs
    assert [r.done for r in reports] == sorted({r.done for r in reports}) and reports[-1].done == total
    assert {r.epoch for r in reports} == {0, 1, 2} and all(r.total == total and r.unit == "words" for r in reports)


@pytest.mark.parametrize("method", ["sgns", "cbow"])
def test_a_run_trains_what_its_job_trains(method, small_text, tmp_path):
    # the run adds files, checkpoints and snapshots around the job's steps; the table must not change
    config = RunConfig(corpus=str(small_text), method=method, **SETTINGS)
    result = train(config, tmp_path / "run", evaluate=False)
    lines = list(open_corpus(small_text))
    vocab = WordVocab.build(lines, min_count=5)
    job = Word2VecJob(lines, vocab, config)
    for epoch in range(config.epochs):
        for _ in job.steps(epoch, skip=0):
            pass
    job.close()
    vectors = Vectors.load(result.path)
    assert vectors.index_to_key == vocab.index_to_key
    np.testing.assert_array_equal(vectors.vectors, job.table())
    np.testing.assert_array_equal(np.load(result.path / "update_counts.npy"), job.state.update_counts.sum(axis=0))


def test_the_last_snapshot_is_the_final_table_even_after_a_short_last_step(tmp_path):
    # 100 lines of 100 words fill one 10,000-word step; the 99 words of the last line are a second,
    # short step that ends the run between two snapshot marks (every 10,099 // 100 = 100 words)
    rng = np.random.default_rng(0)
    vocabulary = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()
    lines = [" ".join(rng.choice(vocabulary, 100)) for _ in range(100)] + [" ".join(rng.choice(vocabulary, 99))]
    corpus = tmp_path / "short-last-step.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = RunConfig(corpus=str(corpus), dim=8, epochs=1, threads=1, min_count=1)
    result = train(config, tmp_path / "run", watch=["alpha", "beta"], evaluate=False)
    snaps = load_file(result.path / "snapshots.safetensors")
    assert snaps["words"][-1] == result.metrics["words"] == 10_099
    np.testing.assert_array_equal(snaps["vectors"][-1], Vectors.load(result.path)[["alpha", "beta"]])


# ----- resume --------------------------------------------------------------------------------


def test_a_stopped_run_resumes_bit_for_bit(reference, wiki_text, tmp_path):
    config, out = RunConfig(corpus=str(wiki_text), **SETTINGS), tmp_path / "run"
    steps = itertools.count(1)
    stopped = train(config, out, evaluate=False, should_stop=lambda: next(steps) == 5)  # after the 5th step
    assert stopped.status == "stopped" and _status(out) == "stopped"
    assert not (out / "vectors.safetensors").exists()
    _, meta = load_checkpoint(out / "checkpoint.pt")
    assert (meta["epoch"], meta["step"]) == (0, 5)
    resumed = train(config, out, resume=True, evaluate=False)
    assert resumed.status == "finished" and resumed.metrics["words"] == reference[0].metrics["words"]
    assert not (out / "checkpoint.pt").exists() and _status(out) == "finished"
    assert_same_run(out, reference[0].path)


def test_a_crash_after_an_epoch_resumes_from_its_checkpoint_bit_for_bit(reference, wiki_text, tmp_path):
    class Crash(Exception):
        pass

    def crash_in_the_second_epoch(progress):
        if progress.epoch == 1:
            raise Crash  # after epoch 1's first step, before its checkpoint: the last is at epoch 0's end

    config, out = RunConfig(corpus=str(wiki_text), **SETTINGS), tmp_path / "run"
    with pytest.raises(Crash):  # a checkpoint after every step
        train(config, out, evaluate=False, on_progress=crash_in_the_second_epoch, checkpoint_every=1e-9)
    assert _status(out) == "failed"  # an exception is recorded (a kill -9 leaves "running": _kill_mid_epoch)
    _, meta = load_checkpoint(out / "checkpoint.pt")
    assert meta["epoch"] == 0 and meta["step"] > 0  # the cursor after epoch 0's last step
    train(config, out, resume=True, evaluate=False)
    assert_same_run(out, reference[0].path)


def _kill_mid_epoch(args: list[str], cwd: Path, out: Path) -> None:
    """Run `embedlab ARGS` in a process and kill -9 it once it has checkpointed mid-epoch."""
    checkpoint = out / "checkpoint.pt"
    embedlab = Path(sys.executable).parent / "embedlab"
    proc = subprocess.Popen([str(embedlab), *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + KILL_TIMEOUT
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"the run ended (exit {proc.returncode}) before it could be killed mid-epoch: "
                    f"{proc.stderr.read().decode()}"
                )
            if time.monotonic() > deadline:
                pytest.fail(f"no mid-epoch checkpoint within {KILL_TIMEOUT} s")
            if checkpoint.is_file() and load_checkpoint(checkpoint)[1]["step"] > 0:
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    assert _status(out) == "running" and not (out / "vectors.safetensors").exists()


@pytest.mark.slow
def test_kill_9_mid_epoch_then_resume_ends_bit_for_bit(reference, tmp_path, run_cli):
    """The CLI on the built-in corpus, killed while it trains; the resumed run equals the reference,
    trained on the same lines from a text file (so this also checks the two corpora train alike)."""
    out = tmp_path / "run"
    # epoch 0 waits on parsing the XML dump (~5 s of 0.2 s checkpoints): a wide window to kill in
    _kill_mid_epoch(["train", "enwiki-sample", "--out", str(out), "--threads", "1", "--seed", "3", "--dim", "20",
                     "--epochs", "3", "--checkpoint-every", "0.2", "--no-evaluate"], tmp_path, out)  # fmt: skip
    status, _, err = run_cli("train", "enwiki-sample", "--out", str(out), "--resume", "--no-evaluate")
    assert status == 0, err
    assert _status(out) == "finished" and not (out / "checkpoint.pt").exists()
    assert_same_run(out, reference[0].path)


# ----- subwords --------------------------------------------------------------------------------

# Small buckets and dim keep a subword run to seconds; one thread makes it a pure function of its seed.
SUBWORD_SETTINGS = {"dim": 16, "epochs": 3, "threads": 1, "seed": 3, "subwords": True, "buckets": 5000}
MODES = {"fasttext": {}, "floret": {"floret": True}}  # floret's mode: its default hash_count 2
MODE_OPTIONS = {"fasttext": [], "floret": ["--floret"]}


@pytest.fixture(scope="module")
def subword_references(wiki_text, tmp_path_factory):
    """mode -> an uninterrupted subword run (sgns) on enwiki-sample in that mode, trained when first asked for."""
    runs = {}

    def reference(mode: str):
        if mode not in runs:
            config = RunConfig(corpus=str(wiki_text), **SUBWORD_SETTINGS, **MODES[mode])
            runs[mode] = train(config, tmp_path_factory.mktemp(mode) / "run")
        return runs[mode]

    return reference


def assert_same_subword_run(folder: Path, expected: Path) -> None:
    """assert_same_run, and bit-identical word rows (fastText's mode), bucket rows and bucket counts."""
    assert_same_run(folder, expected)
    got, want = load_file(folder / "subwords.safetensors"), load_file(expected / "subwords.safetensors")
    assert got.keys() == want.keys() and {"ngram_rows", "bucket_counts"} <= got.keys()
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])


def test_a_subword_run_holds_composed_vectors_and_its_rows(subword_references):
    result = subword_references("fasttext")
    folder = result.path
    assert {p.name for p in folder.iterdir()} == FINISHED_FILES | {"subwords.safetensors"}
    config = json.loads((folder / "run.json").read_text(encoding="utf-8"))["config"]
    assert (config["subwords"], config["min_n"], config["max_n"], config["buckets"]) == (True, 3, 6, 5000)
    vectors = Vectors.load(folder)  # every reader of run folders gets the composed whole-word table
    V, D = vectors.vectors.shape
    with safe_open(folder / "subwords.safetensors", framework="np") as f:
        assert f.metadata() == {"min_n": "3", "max_n": "6", "buckets": "5000"}
    sub = load_file(folder / "subwords.safetensors")
    assert sub["word_rows"].shape == (V, D) and sub["ngram_rows"].shape == (5000, D)
    for word in ["the", "january", "france", vectors.index_to_key[-1]]:  # the oracle: hashing word by word
        rows = np.vstack([sub["word_rows"][vectors.index_of(word)], sub["ngram_rows"][ngram_buckets(word, 3, 6, 5000)]])
        np.testing.assert_allclose(vectors[word], rows.astype(np.float64).mean(0), atol=1e-6, err_msg=word)
    # bucket counts: every n-gram of every word whose row was updated counts; buckets no word hashes to stay 0
    updates = np.load(folder / "update_counts.npy")
    expected = np.zeros(5000, np.int64)
    for word, n in zip(vectors.index_to_key, updates, strict=True):
        np.add.at(expected, ngram_buckets(word, 3, 6, 5000), n)
    np.testing.assert_array_equal(sub["bucket_counts"], expected)
    assert set(result.metrics["benchmarks"]) == BENCHMARKS


def test_a_floret_run_holds_composed_vectors_and_its_bucket_rows_alone(subword_references):
    folder = subword_references("floret").path
    assert {p.name for p in folder.iterdir()} == FINISHED_FILES | {"subwords.safetensors"}
    config = json.loads((folder / "run.json").read_text(encoding="utf-8"))["config"]
    assert (config["subwords"], config["floret"], config["hash_count"], config["buckets"]) == (True, True, 2, 5000)
    vectors = Vectors.load(folder)
    with safe_open(folder / "subwords.safetensors", framework="np") as f:
        assert f.metadata() == {"min_n": "3", "max_n": "6", "buckets": "5000", "hash_count": "2"}
        assert set(f.keys()) == {"ngram_rows", "bucket_counts"}  # floret keeps no word rows
    sub = load_file(folder / "subwords.safetensors")
    for word in ["the", "january", "france", vectors.index_to_key[-1]]:  # the oracle: floret's ids word by word
        rows = sub["ngram_rows"][ngram_buckets(word, 3, 6, 5000, hash_count=2)]
        np.testing.assert_allclose(vectors[word], rows.astype(np.float64).mean(0), atol=1e-6, err_msg=word)
    updates = np.load(folder / "update_counts.npy")  # each word's rows' steps: its floret ids' buckets take them
    expected = np.zeros(5000, np.int64)
    for word, n in zip(vectors.index_to_key, updates, strict=True):
        np.add.at(expected, ngram_buckets(word, 3, 6, 5000, hash_count=2), n)
    np.testing.assert_array_equal(sub["bucket_counts"], expected)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("method", ["sgns", "cbow"])
def test_a_stopped_subword_run_resumes_bit_for_bit(method, mode, small_text, tmp_path):
    config = RunConfig(corpus=str(small_text), method=method, **SUBWORD_SETTINGS, **MODES[mode])
    reference = train(config, tmp_path / "reference", evaluate=False)
    steps = itertools.count(1)
    out = tmp_path / "run"
    assert train(config, out, evaluate=False, should_stop=lambda: next(steps) == 4).status == "stopped"
    _, meta = load_checkpoint(out / "checkpoint.pt")
    assert (meta["epoch"], meta["step"]) == (0, 4)
    assert train(config, out, resume=True, evaluate=False).status == "finished"
    assert_same_subword_run(out, reference.path)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_kill_9_mid_epoch_then_resume_a_subword_run_bit_for_bit(mode, subword_references, wiki_text, tmp_path, run_cli):
    out = tmp_path / "run"
    args = ["train", str(wiki_text), "--out", str(out), "--subwords", *MODE_OPTIONS[mode], "--buckets", "5000",
            "--threads", "1", "--seed", "3", "--dim", "16", "--epochs", "3", "--checkpoint-every", "0.1",
            "--no-evaluate"]  # fmt: skip
    _kill_mid_epoch(args, tmp_path, out)
    status, _, err = run_cli("train", str(wiki_text), "--out", str(out), "--resume")
    assert status == 0, err
    assert _status(out) == "finished" and not (out / "checkpoint.pt").exists()
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["config"].get("floret") is (mode == "floret")
    assert_same_subword_run(out, subword_references(mode).path)


# ----- memory --------------------------------------------------------------------------------

_PEAK_RSS = """
import resource, sys
from embedlab.train.config import RunConfig
from embedlab.train.run import train
config = RunConfig(corpus=sys.argv[1], dim=16, epochs=1, threads=1, window=2, negative=2)
train(config, sys.argv[2], evaluate=False)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KiB on Linux
"""


def _zipf_text(vocab: WordVocab, n_bytes: int, rng: np.random.Generator, words_per_line: int = 25) -> bytes:
    """About `n_bytes` of lines of words drawn with the vocabulary's own frequencies."""
    encoded = [key.encode() + b" " for key in vocab.index_to_key]
    table = np.frombuffer(b"".join(encoded), dtype=np.uint8)  # every word and its space, end to end
    lengths = np.array([len(e) for e in encoded])  # (V,)
    starts = np.cumsum(lengths) - lengths
    p = vocab.counts / vocab.counts.sum()
    ids = rng.choice(len(lengths), size=int(n_bytes / (lengths @ p)), p=p)  # (N,)
    ends = np.cumsum(lengths[ids])  # (N,) where each drawn word's space ends in the text
    text = table[np.arange(ends[-1]) - np.repeat(ends - lengths[ids] - starts[ids], lengths[ids])]
    text[ends[words_per_line - 1 :: words_per_line] - 1] = ord("\n")
    text[-1] = ord("\n")
    return text.tobytes()


def test_peak_memory_does_not_grow_with_the_corpus(small_text, tmp_path):
    vocab = WordVocab.build(open_corpus(small_text), min_count=5)  # ~3,500 real words with real frequencies
    rng = np.random.default_rng(0)
    blocks = [_zipf_text(vocab, 2_000_000, rng) for _ in range(5)]
    small, large = tmp_path / "small.txt", tmp_path / "large.txt"
    small.write_bytes(blocks[0])
    large.write_bytes(b"".join(blocks))  # 5× the words, none repeated
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # the run's encoded corpus cache goes here
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _PEAK_RSS, str(corpus), str(tmp_path / corpus.stem)],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for corpus in (small, large)
    ]
    results = [proc.communicate() for proc in procs]
    for proc, (_, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
    peak_small, peak_large = (int(out.split()[-1]) * 1024 for out, _ in results)
    trained = [json.loads((tmp_path / name / "metrics.json").read_text())["words"] for name in ("small", "large")]
    assert trained[1] > 4.5 * trained[0] > 300_000  # both runs really read their corpora
    # The large corpus has 8 MB (~1.4M words, ~5.9 bytes each) more. Holding its lines as str would
    # cost more than those 8 MB, holding its ids as int32 ~5.5 MB: both far above the 2 MB allowed.
    # A streamed run holds a Counter, the tables and a few chunks of ~10,000 words, whatever the size.
    extra_bytes = large.stat().st_size - small.stat().st_size
    assert peak_large - peak_small < MEMORY_SHARE * extra_bytes, (peak_small, peak_large)


# ----- refusals ------------------------------------------------------------------------------


def test_a_new_run_never_overwrites_a_run(reference, wiki_text):
    folder = reference[0].path
    before = _files(folder)
    with pytest.raises(InvalidValueError, match=r"already holds a run \(sgns on .*, finished\); resume it, or"):
        train(RunConfig(corpus=str(wiki_text), **SETTINGS), folder)
    with pytest.raises(InvalidValueError, match="is already finished; choose another folder"):
        train(RunConfig(corpus=str(wiki_text), **SETTINGS), folder, resume=True)
    assert _files(folder) == before


def test_a_new_run_refuses_a_folder_that_holds_other_files(small_text, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    before = _files(tmp_path)
    with pytest.raises(InvalidValueError, match="is not empty and holds no embedlab run; choose another folder"):
        train(RunConfig(corpus=str(small_text)), tmp_path)
    with pytest.raises(InvalidValueError, match="notes.txt is a file; a run needs a folder"):
        train(RunConfig(corpus=str(small_text)), tmp_path / "notes.txt")
    assert _files(tmp_path) == before


def test_resume_refuses_different_settings_and_missing_state(small_text, tmp_path):
    config, out = RunConfig(corpus=str(small_text), dim=20, epochs=1, threads=1), tmp_path / "run"
    assert train(config, out, evaluate=False, should_stop=lambda: True).status == "stopped"
    before = _files(out)
    with pytest.raises(InvalidValueError, match=r"holds a different run: dim 50 \(run has 20\)$"):
        train(RunConfig(corpus=str(small_text), dim=50), out, resume=True)
    assert _files(out) == before
    with pytest.raises(MissingDataError, match="holds no run.json"):
        train(config, tmp_path / "empty", resume=True)
    (tmp_path / "empty").mkdir()
    with pytest.raises(MissingDataError, match="holds no run.json"):
        train(config, tmp_path / "empty", resume=True)

    def crash(progress):
        raise KeyboardInterrupt  # before the first checkpoint

    with pytest.raises(KeyboardInterrupt):
        train(config, tmp_path / "early", evaluate=False, on_progress=crash)
    with pytest.raises(MissingDataError, match="stopped before its first checkpoint"):
        train(config, tmp_path / "early", resume=True)


@pytest.mark.parametrize(
    "settings, options, message",
    [
        ({"min_count": 10_000_000}, {}, r"min_count 10000000 leaves no vocabulary: the most frequent word of "
                                        r"wiki-3k.txt occurs \d+ times$"),
        ({}, {"watch": ["january", "zzzqqq"]}, r"watch: 'zzzqqq' not in the vocabulary of \d+ tokens"),
        ({}, {"checkpoint_every": 0.0}, "checkpoint_every must be > 0 seconds; got 0.0"),
        ({}, {"checkpoint_every": -5}, "checkpoint_every must be > 0 seconds; got -5"),
        ({}, {"checkpoint_every": math.nan}, "checkpoint_every must be > 0 seconds; got nan"),
    ],
)  # fmt: skip
def test_bad_settings_write_nothing(settings, options, message, small_text, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(InvalidValueError, match=message):
        train(RunConfig(corpus=str(small_text), **settings), out, evaluate=False, **options)
    assert not out.exists()


def test_a_corpus_without_words_is_refused(tmp_path):
    corpus = tmp_path / "punctuation.txt"
    corpus.write_text("... !!! ,,,\n--- ??? ___\n", encoding="utf-8")
    with pytest.raises(InvalidValueError, match="corpus punctuation.txt has no words"):
        train(RunConfig(corpus=str(corpus)), tmp_path / "run")
    assert not (tmp_path / "run").exists()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_cuda_run_trains_with_the_batched_engine(small_text, tmp_path):
    result = train(RunConfig(corpus=str(small_text), dim=20, epochs=1, device="cuda"), tmp_path / "gpu", evaluate=False)
    vectors = Vectors.load(result.path)
    assert result.status == "finished" and np.isfinite(vectors.vectors).all()
    assert np.load(result.path / "update_counts.npy").sum() > 0


def test_a_damaged_run_json_is_named_not_a_traceback(small_text, tmp_path):
    out = tmp_path / "damaged"
    out.mkdir()
    (out / "run.json").write_text("{not json", encoding="utf-8")
    config = RunConfig(corpus=str(small_text), dim=20, epochs=1)
    for resume in (False, True):
        with pytest.raises(FileFormatError, match=r"run\.json: not a readable embedlab run"):
            train(config, out, resume=resume, evaluate=False)
    assert (out / "run.json").read_text(encoding="utf-8") == "{not json"  # untouched


def test_a_diverged_run_says_so_in_its_folder_and_keeps_nothing_else(small_text, tmp_path):
    """A learning rate of 1e30 sends the rows to NaN within the first snapshot interval: the run stops
    there (not at its end), run.json says why, and nothing that holds NaN, or could resume it, stays."""
    config, out = RunConfig(corpus=str(small_text), dim=8, epochs=1, threads=1, lr=1e30), tmp_path / "run"
    with pytest.raises(DivergedError, match=r"the watched rows at [\d,]+ words: row \d+ \('\w+'\) column \d+ holds"):
        train(config, out, evaluate=False)
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert record["status"] == "diverged" and "lower learning rate" in record["reason"]
    assert [p.name for p in out.iterdir()] == ["run.json"]
    with pytest.raises(InvalidValueError, match=r"cannot resume: the watched rows at .* lower learning rate"):
        train(config, out, resume=True, evaluate=False)
    with pytest.raises(
        InvalidValueError, match=r"already holds a run \(sgns on .*, diverged\); choose another folder$"
    ):
        train(config, out, evaluate=False)


def test_a_run_that_fails_records_the_error_and_stays_resumable(small_text, tmp_path):
    config, out = RunConfig(corpus=str(small_text), dim=8, epochs=1, threads=1), tmp_path / "run"

    def fail(progress):
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        train(config, out, evaluate=False, on_progress=fail)
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert record["status"] == "failed" and record["reason"] == "RuntimeError: disk on fire"
    assert (out / "vocab.json").exists()  # unlike a diverged run's, its files stay for a resume
    with pytest.raises(MissingDataError, match="stopped before its first checkpoint"):
        train(config, out, resume=True, evaluate=False)  # the one thing missing here: a checkpoint
