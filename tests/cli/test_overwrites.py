"""Every command that writes a path the user names keeps what is already there.

A file is replaced only with --force (tokenizer train, export: tests/cli/test_vectors_cli.py); a
run folder must be new or empty, or be resumed (train: tests/cli/test_train_cli.py; arena). A
refusal is one line naming the path, exit 2, before any work, and changes nothing.
"""

from __future__ import annotations

import json

import pytest

TEXT = "the cat sat on the mat\nthe dog sat on the log\n" * 50
OLD = b"an earlier file"


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
