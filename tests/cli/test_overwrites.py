"""Every command that writes a path the user names keeps what is already there.

A file is replaced only with --force (tokenizer train, export: tests/cli/test_vectors_cli.py); a
run folder must be new or empty, or be resumed (train: tests/cli/test_train_cli.py; arena). A
refusal is one line naming the path, exit 2, before any work, and changes nothing. The rule holds
at the moment of creation too: of two commands writing one new output at once, exactly one wins.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.timeouts import margin

from embedlab.vectors import Vectors
from embedlab.vectors.io import EXTENSIONS, FORMATS, output_files

TEXT = "the cat sat on the mat\nthe dog sat on the log\n" * 50
OLD = b"an earlier file"
_EXTENSION = {format: ext for ext, format in reversed(EXTENSIONS.items())}  # format -> an extension it takes


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


def _files(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _refused(run_cli, args, path, *, names_force: bool = True) -> str:
    status, out, err = run_cli(*args)
    assert status == 2 and out == "", err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err and ("--force" in err) == names_force, err
    return err


@pytest.mark.parametrize(
    ("existing", "trainer"),
    [("tok.json", []), ("tok.counts.json", []), ("tok.json", ["--reference"])],
    ids=["fast", "fast-counts-file", "reference"],
)
def test_tokenizer_train_replaces_only_with_force(run_cli, corpus, tmp_path, existing, trainer):
    from embedlab.tokenizer import load_tokenizer

    out = tmp_path / "tok.json"
    (tmp_path / existing).write_bytes(OLD)
    before = _files(tmp_path)
    args = ("tokenizer", "train", str(corpus), "--vocab-size", "280", "--out", str(out), *trainer)
    err = _refused(run_cli, args, tmp_path / existing)
    assert err == f"error: {tmp_path / existing} already exists; add --force to replace it\n"
    assert _files(tmp_path) == before  # nothing written, nothing beside it
    status, stdout, err = run_cli(*args, "--force", "--json")
    assert status == 0, err
    summary = json.loads(stdout)
    assert summary["out"] == str(out) and load_tokenizer(out).vocab_size == summary["vocab_size"]  # read back
    written = {"tok.json"} if trainer else {"tok.json", "tok.counts.json"}  # the files refuse_existing guards
    assert set(_files(tmp_path)) == {"corpus.txt", existing} | written


def test_train_refuses_a_file_as_its_folder(run_cli, corpus, tmp_path):
    out = tmp_path / "run"
    out.write_bytes(OLD)
    _refused(run_cli, ("train", str(corpus), "--out", str(out), "--min-count", "1"), out, names_force=False)
    assert out.read_bytes() == OLD


def test_arena_refuses_a_file_and_another_race(run_cli, tmp_path):
    from embedlab.arena.runner import Race

    file = tmp_path / "race"
    file.write_bytes(OLD)
    err = _refused(run_cli, ("arena", "--quick", "--out", str(file)), file, names_force=False)
    assert "holds no race" in err and file.read_bytes() == OLD
    full = tmp_path / "full"
    Race.open(full, "full")  # a full race's folder, as a first `embedlab arena --out full` leaves it
    before = _files(full)
    err = _refused(run_cli, ("arena", "--quick", "--out", str(full)), full, names_force=False)
    assert "holds a full race" in err and "force" in err
    assert _files(full) == before


# --- two commands writing one new output at once: exactly one wins -----------------------------------

# Two processes importing torch and writing a small table at once: 11.9 s for the slowest pair (two `graph`
# commands, the whole test), measured in the suite.
RACE_TIMEOUT_S = margin(12.0)


def _at_once(*commands: list[str]) -> list[subprocess.CompletedProcess]:
    """Start `python -m embedlab ARGS` for each of `commands` together; -> their results, in order."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "embedlab", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )  # fmt: skip
        for args in commands
    ]
    return [subprocess.CompletedProcess(p.args, p.wait(RACE_TIMEOUT_S), *p.communicate()) for p in procs]


def _one_won(results: list[subprocess.CompletedProcess], path) -> subprocess.CompletedProcess:
    """Exactly one result succeeded; the other exited 2 with one line naming `path`. -> the winner."""
    codes = sorted(r.returncode for r in results)
    assert codes == [0, 2], [(r.returncode, r.stderr[-500:]) for r in results]
    loser = next(r for r in results if r.returncode == 2)
    assert str(path) in loser.stderr and loser.stderr.count("\n") == 1 and "Traceback" not in loser.stderr, loser.stderr
    return next(r for r in results if r.returncode == 0)


@pytest.fixture(scope="module")
def big_table(tmp_path_factory):
    """A word2vec text table big enough (20,000 × 64) that loading it outlasts two processes' start,
    so both pass the start's check before either writes: the race is then decided at creation."""
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("tables") / "big.txt"
    Vectors([f"w{i}" for i in range(20_000)], rng.standard_normal((20_000, 64)).astype(np.float32)).save(path)
    return path


@pytest.mark.parametrize("format", FORMATS)
def test_every_writer_refuses_an_output_that_appeared_since_the_command_began(tmp_path, format):
    """What decides two writers' race, format by format: creating without replace fails on a file that is
    there by the time the finished file is put in place, names it, and leaves it as it was."""
    from embedlab.errors import OutputExistsError
    from embedlab.vectors.io.formats import write_table
    from embedlab.vectors.io.table import Table

    out = tmp_path / f"out{_EXTENSION.get(format, '')}"
    first = output_files(out, format)[0]
    first.parent.mkdir(parents=True, exist_ok=True)
    first.write_text("another writer's")
    with pytest.raises(OutputExistsError, match=str(first)):
        write_table(Table(["a", "b"], np.eye(2, dtype=np.float32)), out, format, replace=False)
    assert first.read_text() == "another writer's"


def test_two_exports_to_one_new_path_at_once_one_wins(tmp_path, big_table):
    """Two real processes (the registry's formats all write through the same exclusive creation, above)."""
    out = tmp_path / "out.txt"
    command = ["export", str(big_table), "--format", "word2vec", "--out", str(out), "--json"]
    winner = _one_won(_at_once(command, command), out)
    written = [Path(p) for p in json.loads(winner.stdout)["files"]]
    assert set(written) == set(output_files(out, "word2vec"))
    assert len(Vectors.load(out)) == 20_000  # whole: one writer's files, read back


def test_two_graphs_to_one_new_path_at_once_one_wins(tmp_path):
    out = tmp_path / "karate.txt"
    command = ["graph", "karate", "--out", str(out), "--walks", "2", "--length", "10", "--threads", "1"]
    _one_won(_at_once(command, command), out)
    assert len(Vectors.load(out)) == 34


def test_two_trainings_into_one_new_folder_at_once_one_wins(tmp_path, corpus):
    out = tmp_path / "run"
    command = ["train", str(corpus), "--out", str(out), "--min-count", "1", "--dim", "8", "--epochs", "1",
               "--threads", "1", "--no-evaluate"]  # fmt: skip
    _one_won(_at_once(command, command), out)
    assert json.loads((out / "run.json").read_text())["status"] == "finished"
