"""Files that are not what they say, through every reader of the package.

- a file of the wrong kind (random bytes, gzip, a PNG, a safetensors file, a torch checkpoint, a
  fastText model) raises FileFormatError naming the file and what was expected, in plain words:
  never raw bytes, a repr of binary data or another library's many-line message;
- a header promising more than the file holds is refused before anything is allocated;
- a file embedlab wrote, cut short, is an error naming it and saying how to recover, also through
  the command line (exit 2, one line, no traceback).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import struct
import threading

import numpy as np
import pytest
import torch
from safetensors.numpy import save as safetensors_bytes
from tests.timeouts import margin

from embedlab.arena.runner import RACE_FILE, RESULTS_FILE, Race
from embedlab.data.corpora import open_corpus
from embedlab.data.fashion import read_idx
from embedlab.errors import EmbedlabError, FileFormatError
from embedlab.models.pretrained import load_input_embedding
from embedlab.sims.arena import ArenaLab
from embedlab.tokenizer import BPE, FastTokenizer, load_tokenizer
from embedlab.train.checkpoint import load_checkpoint
from embedlab.train.config import RunConfig
from embedlab.train.run import train
from embedlab.vectors.io import read_analogies, read_pairs, read_table
from embedlab.vectors.io.benchmarks import read_pair_table
from embedlab.vectors.io.run import read_update_counts

_rng = np.random.default_rng(0)
_torch_file = io.BytesIO()
torch.save({"weights": torch.zeros(3, 2)}, _torch_file)

# Files of the wrong kind: what a careless user hands a reader.
WRONG = {
    "random bytes": _rng.integers(0, 256, 3000, dtype=np.uint8).tobytes(),
    "gzip": gzip.compress(b"the cat sat on the mat\n" * 50),
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + _rng.integers(0, 256, 500, dtype=np.uint8).tobytes(),
    "safetensors": safetensors_bytes({"vectors": np.ones((3, 2), np.float32)}),
    "torch checkpoint": _torch_file.getvalue(),
    "fasttext model": b"\xba\x16\x4f\x2f" + struct.pack("<i", 12) + _rng.integers(0, 256, 800, np.uint8).tobytes(),
}
WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "far", "a", "king", "queen", "man", "woman"]
CORPUS_LINES = [" ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(12)) for i in range(300)]
CUT_RECOVER = {  # what a message must say to recover from each damaged file embedlab wrote
    "run": "remove the folder, or train again in another one",
    "race": "remove the folder, or force to start a new race there",
    "tokenizer": "train and save the tokenizer again",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "words.txt"
    path.write_text("\n".join(CORPUS_LINES) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def stopped_run(corpus, tmp_path_factory):
    """A word2vec run stopped after its first step: run.json, vocab.json, checkpoint.pt."""
    out = tmp_path_factory.mktemp("runs") / "stopped"
    config = RunConfig(corpus=str(corpus), dim=8, epochs=1, threads=1, min_count=1)
    assert train(config, out, evaluate=False, should_stop=lambda: True).status == "stopped"
    return out


@pytest.fixture(scope="module")
def finished_run(corpus, tmp_path_factory):
    """A finished word2vec run: vectors.safetensors with vectors.vocab.json, update_counts.npy, ..."""
    out = tmp_path_factory.mktemp("runs") / "finished"
    assert train(RunConfig(corpus=str(corpus), dim=8, epochs=1, min_count=1), out, evaluate=False).status == "finished"
    return out


@pytest.fixture(scope="module")
def saved_tokenizers(tmp_path_factory):
    """A FastTokenizer file with its piece counts beside it, and a reference BPE file."""
    folder = tmp_path_factory.mktemp("tokenizers")
    fast = FastTokenizer.train(CORPUS_LINES, vocab_size=300)
    fast.counts = [1] * fast.vocab_size
    fast.save(folder / "fast.json")
    bpe = BPE(mode="char", split="whitespace")
    bpe.train("\n".join(CORPUS_LINES), num_merges=20)
    bpe.save(folder / "bpe.json")
    return folder


def assert_plain(message: str, path) -> None:
    """The message names the file and what was expected, in printable words without byte escapes."""
    assert str(path) in message
    assert "expected" in message
    assert message.isprintable(), message  # no line breaks, no control characters
    assert "\\x" not in message and "\\u" not in message and "b'" not in message, message


# --- every reader, a file of the wrong kind --------------------------------------------------------

READERS = {}  # name -> (setup(folder, data, fixtures) -> (read, the bad file's path), kinds it reads rightly)


def reader(name: str, reads: tuple[str, ...] = ()):
    def register(setup):
        READERS[name] = (setup, reads)
        return setup

    return register


def _table_file(name):
    def setup(d, data, _):
        (d / name).write_bytes(data)
        (d / "t.vocab.json").write_text('{"keys": ["a", "b", "c"], "counts": null}')
        return lambda: read_table(d / name), d / name

    return setup


reader("word2vec text .txt")(_table_file("t.txt"))
reader("word2vec text .vec")(_table_file("t.vec"))
reader("word2vec binary .bin")(_table_file("t.bin"))
reader("npy table")(_table_file("t.npy"))
reader("safetensors table", reads=("safetensors",))(_table_file("t.safetensors"))
reader("table found by content", reads=("safetensors",))(_table_file("t"))


@reader("table key list .vocab.json")
def _(d, data, _):
    np.save(d / "t.npy", np.zeros((3, 2), np.float32))
    (d / "t.vocab.json").write_bytes(data)
    return lambda: read_table(d / "t.npy"), d / "t.vocab.json"


@reader("table key list .tokens.txt")
def _(d, data, _):
    np.save(d / "t.npy", np.zeros((3, 2), np.float32))
    (d / "t.tokens.txt").write_bytes(data)
    return lambda: read_table(d / "t.npy"), d / "t.tokens.txt"


@reader("projector vectors.tsv")
def _(d, data, _):
    (d / "vectors.tsv").write_bytes(data)
    (d / "metadata.tsv").write_text("a\nb\n")
    return lambda: read_table(d), d / "vectors.tsv"


@reader("projector metadata.tsv")
def _(d, data, _):
    (d / "vectors.tsv").write_text("1\t2\n3\t4\n")
    (d / "metadata.tsv").write_bytes(data)
    return lambda: read_table(d), d / "metadata.tsv"


def _hf_folder(d, fx, bad: str, data: bytes):
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(fx["minilm_dir"] / name, d / name)
    (d / "model.safetensors").symlink_to(fx["minilm_dir"] / "model.safetensors")
    (d / bad).unlink()
    (d / bad).write_bytes(data)
    return d / bad


@reader("HuggingFace config.json")
def _(d, data, fx):
    return lambda: read_table(d), _hf_folder(d, fx, "config.json", data)


@reader("HuggingFace model.safetensors", reads=("safetensors",))
def _(d, data, fx):
    return lambda: read_table(d), _hf_folder(d, fx, "model.safetensors", data)


@reader("HuggingFace tokenizer.json")
def _(d, data, fx):
    return lambda: read_table(d), _hf_folder(d, fx, "tokenizer.json", data)


@reader("HuggingFace encoder weights", reads=("safetensors",))
def _(d, data, fx):
    return lambda: load_input_embedding(d), _hf_folder(d, fx, "model.safetensors", data)


def _file(name, read):
    def setup(d, data, _):
        (d / name).write_bytes(data)
        return lambda: read(d / name), d / name

    return setup


reader("word pairs")(_file("pairs.txt", read_pairs))
reader("analogy questions")(_file("questions.txt", read_analogies))
reader("word pairs as CSV")(_file("pairs.csv", read_pair_table))
reader("reference BPE file")(_file("bpe.json", BPE.load))
reader("tokenizer file")(_file("tokenizer.json", FastTokenizer.load))
reader("any tokenizer file")(_file("tok.json", load_tokenizer))
reader("checkpoint")(_file("checkpoint.pt", load_checkpoint))
reader("corpus")(_file("corpus.txt", open_corpus))
reader("IDX images")(_file("images-idx3-ubyte", read_idx))


@reader("piece counts beside a tokenizer")
def _(d, data, fx):
    shutil.copy(fx["tokenizers"] / "fast.json", d / "fast.json")
    (d / "fast.counts.json").write_bytes(data)
    return lambda: FastTokenizer.load(d / "fast.json"), d / "fast.counts.json"


@reader("update counts")
def _(d, data, _):
    (d / "update_counts.npy").write_bytes(data)
    return lambda: read_update_counts(d), d / "update_counts.npy"


@reader("run.json of a new run's folder")
def _(d, data, fx):
    (d / "run.json").write_bytes(data)
    return lambda: train(RunConfig(corpus=str(fx["corpus"])), d), d / "run.json"


@reader("run.json of a resumed run")
def _(d, data, fx):
    (d / "run.json").write_bytes(data)
    return lambda: train(RunConfig(corpus=str(fx["corpus"])), d, resume=True), d / "run.json"


@reader("vocab.json of a resumed run")
def _(d, data, fx):
    shutil.copytree(fx["stopped_run"], d, dirs_exist_ok=True)
    (d / "vocab.json").write_bytes(data)
    return lambda: train(RunConfig(corpus=str(fx["corpus"])), d, resume=True), d / "vocab.json"


@reader("checkpoint.pt of a resumed run")
def _(d, data, fx):
    shutil.copytree(fx["stopped_run"], d, dirs_exist_ok=True)
    (d / "checkpoint.pt").write_bytes(data)
    return lambda: train(RunConfig(corpus=str(fx["corpus"])), d, resume=True), d / "checkpoint.pt"


@reader("race.json")
def _(d, data, _):
    (d / RACE_FILE).write_bytes(data)
    return lambda: Race.open(d, "quick"), d / RACE_FILE


@reader("a race's finished run")
def _(d, data, _):
    race = Race.open(d, "quick", strategies=["bytes"], tasks=["lm"])
    race.run_file("bytes", race.budget.seeds[0]).write_bytes(data)
    return race.finished, race.run_file("bytes", race.budget.seeds[0])


@reader("results.json")
def _(d, data, _):
    (d / RESULTS_FILE).write_bytes(data)
    return lambda: Race.read_results(d), d / RESULTS_FILE


@reader("the lab's arena results")
def _(d, data, _):
    (d / "quick").mkdir()
    (d / "quick" / RESULTS_FILE).write_bytes(data)
    return ArenaLab(d).state, d / "quick" / RESULTS_FILE


@pytest.fixture(scope="module")
def fixtures(minilm_dir, corpus, stopped_run, saved_tokenizers):
    return {"minilm_dir": minilm_dir, "corpus": corpus, "stopped_run": stopped_run, "tokenizers": saved_tokenizers}


@pytest.mark.parametrize(
    ("name", "wrong"), [(name, wrong) for name, (_, reads) in READERS.items() for wrong in WRONG if wrong not in reads]
)
def test_every_reader_names_a_file_of_the_wrong_kind(tmp_path, fixtures, name, wrong):
    setup, _ = READERS[name]
    folder = tmp_path / "in"
    folder.mkdir()
    read, bad = setup(folder, WRONG[wrong], fixtures)
    with pytest.raises(FileFormatError) as info:
        read()
    assert_plain(str(info.value), bad)


# --- headers that promise more than the file holds -------------------------------------------------

HUGE = 99_999_999_999  # rows a damaged header promises: 2.91 TiB of float32 at D = 8
FLOATS = np.arange(8, dtype="<f4").tobytes()  # one row of D = 8


def _npy(shape: tuple[int, ...], dtype: str, data: bytes) -> bytes:
    """A .npy file whose header says `shape`, followed by `data` (the first bytes np.save wrote)."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue() + data


def _safetensors(shape: list[int], data: bytes) -> bytes:
    header = json.dumps({"vectors": {"dtype": "F32", "shape": shape, "data_offsets": [0, len(data)]}}).encode()
    return struct.pack("<Q", len(header)) + header + data


BIG_HEADERS = {  # name -> (file name, content, what the message must say)
    "word2vec text: rows": (
        "t.txt",
        f"{HUGE} 8\ncat {' '.join(['0.5'] * 8)}\n".encode(),
        "its header promises 99,999,999,999",
    ),
    "word2vec text: dim": (
        "t.txt",
        f"1 {HUGE}\ncat 1 2\n".encode(),
        "1 rows of 99,999,999,999 numbers, but the 8 bytes",
    ),
    "word2vec binary: rows": (
        "t.bin",
        f"{HUGE} 8\n".encode() + b"cat " + FLOATS,
        "it holds 1 of the 99,999,999,999 rows",
    ),
    "word2vec binary: dim": (
        "t.bin",
        f"1 {HUGE}\n".encode() + b"cat " + FLOATS,
        "needs 399,999,999,996 bytes of floats",
    ),
    "npy": (
        "t.npy",
        _npy((HUGE, 8), "<f4", FLOATS),
        r"promises shape (99999999999, 8) of float32 (3,199,999,999,968 by",
    ),
    "safetensors": ("t.safetensors", _safetensors([HUGE, 8], FLOATS), "cut short or damaged"),
    "IDX": ("t-idx3-ubyte", b"\x00\x00\x08\x02" + struct.pack(">II", 2**32 - 1, 2**32 - 1) + bytes(8), "needs"),
}


@pytest.mark.parametrize("case", BIG_HEADERS)
def test_a_header_promising_more_than_the_file_holds_is_refused_before_allocating(tmp_path, case):
    name, content, says = BIG_HEADERS[case]
    (tmp_path / name).write_bytes(content)
    (tmp_path / "t.vocab.json").write_text('{"keys": ["cat"], "counts": null}')
    read = read_idx if name.endswith("ubyte") else read_table
    with pytest.raises(FileFormatError) as info:  # a MemoryError ("Unable to allocate 2.91 TiB") fails here
        read(tmp_path / name)
    assert says in str(info.value) and str(tmp_path / name) in str(info.value)


def test_update_counts_whose_header_promises_too_many_rows(tmp_path):
    (tmp_path / "update_counts.npy").write_bytes(_npy((HUGE,), "<i8", bytes(16)))
    with pytest.raises(FileFormatError, match=r"promises shape \(99999999999,\) of int64 .* holds 16 bytes"):
        read_update_counts(tmp_path)


def test_files_at_the_smallest_size_their_header_allows_still_read(tmp_path):
    """The size checks are bounds, not guesses: one-byte keys and numbers, no final line break."""
    (tmp_path / "t.txt").write_bytes(b"2 1\na 1\nb 2")
    assert read_table(tmp_path / "t.txt").keys == ["a", "b"]
    (tmp_path / "t.bin").write_bytes(b"2 1\na " + FLOATS[:4] + b"b " + FLOATS[4:8])
    assert read_table(tmp_path / "t.bin").vectors.tolist() == [[0.0], [1.0]]


# --- files embedlab wrote, cut short ------------------------------------------------------------------


def _cut(path) -> None:
    """Keep the first half of the file: what a full disk or a copy stopped midway leaves."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


CUT = {}  # name -> (setup(folder, fixtures) -> (read, the file cut short), what recovering takes)


def cut(name: str, recover: str):
    def register(setup):
        CUT[name] = (setup, recover)
        return setup

    return register


@cut("race.json", CUT_RECOVER["race"])
def _(d, _):
    Race.open(d, "quick", strategies=["bytes"], tasks=["lm"])
    return lambda: Race.open(d, "quick", strategies=["bytes"], tasks=["lm"]), d / RACE_FILE


@cut("a race's finished run", "remove it, and the race trains that run again")
def _(d, _):
    race = Race.open(d, "quick", strategies=["bytes"], tasks=["lm"])
    path = race.run_file("bytes", race.budget.seeds[0])
    record = {"strategy": "bytes", "seed": race.budget.seeds[0], "budget": "quick", "bits_per_byte": 2.25}
    path.write_text(json.dumps(record))
    return race.finished, path


@cut("results.json", "run the race again to write it")
def _(d, _):
    summary = {"budget": {"name": "quick"}, "device": "cpu", "strategies": [], "tasks": ["lm"], "results": []}
    (d / RESULTS_FILE).write_text(json.dumps({**summary, "runs": []}, indent=1))
    return lambda: Race.read_results(d), d / RESULTS_FILE


@cut("the lab's arena results", "run the race again to write it")
def _(d, _):
    (d / "full").mkdir()
    (d / "full" / RESULTS_FILE).write_text(json.dumps({"strategies": [], "tasks": [], "results": [], "runs": []}))
    return ArenaLab(d).state, d / "full" / RESULTS_FILE


def _run_file(name):
    def setup(d, fx):
        shutil.copytree(fx["stopped_run"], d, dirs_exist_ok=True)
        return lambda: train(RunConfig(corpus=str(fx["corpus"])), d, resume=True), d / name

    return setup


cut("run.json", CUT_RECOVER["run"])(_run_file("run.json"))
cut("vocab.json", CUT_RECOVER["run"])(_run_file("vocab.json"))
cut("checkpoint.pt", CUT_RECOVER["run"])(_run_file("checkpoint.pt"))


@cut("run.json of a folder a new run is asked to use", CUT_RECOVER["run"])
def _(d, fx):
    shutil.copytree(fx["stopped_run"], d, dirs_exist_ok=True)
    return lambda: train(RunConfig(corpus=str(fx["corpus"])), d), d / "run.json"


@cut("a trained table's key list", "write the table again")
def _(d, fx):
    shutil.copytree(fx["finished_run"], d, dirs_exist_ok=True)
    return lambda: read_table(d), d / "vectors.vocab.json"


@cut("reference BPE file", CUT_RECOVER["tokenizer"])
def _(d, fx):
    shutil.copy(fx["tokenizers"] / "bpe.json", d / "bpe.json")
    return lambda: load_tokenizer(d / "bpe.json"), d / "bpe.json"


@cut("tokenizer file", CUT_RECOVER["tokenizer"])
def _(d, fx):
    shutil.copy(fx["tokenizers"] / "fast.json", d / "fast.json")
    return lambda: load_tokenizer(d / "fast.json"), d / "fast.json"


@cut("piece counts", "remove it (the tokenizer then loads without counts)")
def _(d, fx):
    for name in ("fast.json", "fast.counts.json"):
        shutil.copy(fx["tokenizers"] / name, d / name)
    return lambda: FastTokenizer.load(d / "fast.json"), d / "fast.counts.json"


@pytest.fixture(scope="module")
def run_fixtures(fixtures, finished_run):
    return {**fixtures, "finished_run": finished_run}


@pytest.mark.parametrize("name", CUT)
def test_a_file_embedlab_wrote_cut_short_says_how_to_recover(tmp_path, run_fixtures, name):
    setup, recover = CUT[name]
    folder = tmp_path / "in"
    folder.mkdir()
    read, path = setup(folder, run_fixtures)
    _cut(path)
    with pytest.raises(FileFormatError) as info:
        read()
    message = str(info.value)
    assert str(path) in message and ("cut short" in message) and recover in message, message
    assert message.isprintable()


# --- the same through the command line: exit 2, one line, no traceback -----------------------------


def _one_line_error(run_cli, *args) -> str:
    status, out, err = run_cli(*args)
    assert status == 2 and out == "", (status, out, err)
    assert err.startswith("error: ") and err.strip().count("\n") == 0 and "Traceback" not in err, err
    return err.strip()


def test_commands_name_a_damaged_file_and_how_to_recover(tmp_path, run_cli, stopped_run, finished_run, corpus):
    race = tmp_path / "race"
    Race.open(race, "full", strategies=["bytes"], tasks=["lm"])
    _cut(race / RACE_FILE)
    err = _one_line_error(run_cli, "arena", "--out", str(race), "--strategies", "bytes", "--tasks", "lm")
    assert str(race / RACE_FILE) in err and "cut short" in err and CUT_RECOVER["race"] in err

    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    _cut(run / "vectors.vocab.json")
    err = _one_line_error(run_cli, "evaluate", str(run), "--resamples", "0")
    assert str(run / "vectors.vocab.json") in err and "cut short" in err

    for name in ("run.json", "vocab.json"):
        stopped = tmp_path / f"stopped-{name}"
        shutil.copytree(stopped_run, stopped)
        _cut(stopped / name)
        err = _one_line_error(run_cli, "train", str(corpus), "--out", str(stopped), "--resume")
        assert str(stopped / name) in err and CUT_RECOVER["run"] in err
    err = _one_line_error(run_cli, "train", str(corpus), "--out", str(tmp_path / "stopped-run.json"))
    assert "run.json" in err and CUT_RECOVER["run"] in err  # a new run into a folder holding a damaged one


def test_tokenize_names_a_tokenizer_file_cut_short(tmp_path, run_cli, saved_tokenizers):
    for name in ("bpe.json", "fast.json"):
        shutil.copy(saved_tokenizers / name, tmp_path / name)
        _cut(tmp_path / name)
        err = _one_line_error(run_cli, "tokenize", "the cat", "--tokenizer", str(tmp_path / name))
        assert str(tmp_path / name) in err and "cut short" in err and CUT_RECOVER["tokenizer"] in err


@pytest.mark.parametrize("wrong", ["fasttext model", "gzip", "safetensors"])
def test_a_query_on_a_file_of_the_wrong_kind_is_one_plain_line(tmp_path, run_cli, wrong):
    (tmp_path / "table.bin").write_bytes(WRONG[wrong])
    err = _one_line_error(run_cli, "neighbors", str(tmp_path / "table.bin"), "king")
    assert_plain(err, tmp_path / "table.bin")


# --- a path that is there but is no regular file: what it is, never "missing", never a hang ---------

NOT_FILES = {  # name -> (make(path) in place of the file, words the message must hold)
    "fifo": (os.mkfifo, "a FIFO (named pipe)"),
    "device": (lambda p: p.symlink_to("/dev/null"), "a character device"),
    "folder": (lambda p: p.mkdir(), "folder"),
}
# A reader that opens a FIFO waits for a writer forever; one that checks by stat first answers at once:
# 0.14 s at the slowest of the 34 FIFO cases (the reader's imports included), measured in the suite.
FIFO_WAIT_S = margin(0.2)


def _unblock(fifo) -> None:
    """Open the FIFO for writing and close it, so a reader stuck in open() goes on (and the thread ends)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # no reader waiting: nothing to unblock
        pass


@pytest.mark.parametrize(("name", "not_file"), [(name, kind) for name in READERS for kind in NOT_FILES])
def test_every_reader_names_a_path_that_is_not_a_regular_file(tmp_path, fixtures, name, not_file):
    """A FIFO, a device or a folder where a reader expects a file is named for what it is, through
    every reader, and a FIFO is never opened (open() on it would wait for a writer)."""
    setup, _ = READERS[name]
    folder = tmp_path / "in"
    folder.mkdir()
    read, bad = setup(folder, WRONG["gzip"], fixtures)
    bad.unlink()
    make, says = NOT_FILES[not_file]
    make(bad)
    outcome: list[BaseException | None] = []

    def attempt():
        try:
            read()
            outcome.append(None)
        except BaseException as err:
            outcome.append(err)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(FIFO_WAIT_S)
    if thread.is_alive():
        _unblock(bad)
        thread.join(FIFO_WAIT_S)
        pytest.fail(f"{name} blocked on a {not_file} at {bad}")
    (err,) = outcome
    assert isinstance(err, EmbedlabError), f"{name}: {err!r}"
    message = str(err)
    assert str(bad) in message and says in message, message
    assert "no such" not in message.lower() and message.isprintable(), message


@pytest.mark.parametrize("not_file", NOT_FILES)
def test_a_query_on_a_path_that_is_not_a_file_is_one_line(tmp_path, run_cli, not_file):
    make, says = NOT_FILES[not_file]
    make(tmp_path / "table.txt")
    err = _one_line_error(run_cli, "neighbors", str(tmp_path / "table.txt"), "king")
    assert str(tmp_path / "table.txt") in err and says in err, err
