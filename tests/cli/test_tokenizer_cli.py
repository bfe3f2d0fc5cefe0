"""`embedlab tokenizer train` and `embedlab tokenize`, in-process through the real entry point."""

from __future__ import annotations

import json

import pytest

TEXT = "the cat sat on the mat\nthe dog sat on the log\n" * 50


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


@pytest.mark.parametrize("trainer", [[], ["--reference", "--trace"]])
def test_train_then_tokenize_with_counts(run_cli, corpus, tmp_path, trainer):
    out = tmp_path / "tok.json"
    args = ("tokenizer", "train", str(corpus), "--vocab-size", "280", "--out", str(out), *trainer)
    status, stdout, stderr = run_cli(*args)
    assert status == 0, stderr
    assert out.is_file() and str(out) in stdout
    if trainer:
        assert "merge      1:" in stderr  # the trace goes by as merges happen
    status, stdout, _ = run_cli("tokenize", "the cat", "--tokenizer", str(out), "--json")
    assert status == 0
    pieces = json.loads(stdout)["pieces"]
    assert "".join(p["piece"] for p in pieces).replace("Ġ", " ") == "the cat"
    assert all(p["count"] > 0 and p["band"] for p in pieces)
    the = next(p for p in pieces if p["piece"] == "the")
    assert the["count"] == 100  # "the" starts each of the 100 lines; " the" is another token


def test_both_trainers_write_the_same_merges(run_cli, corpus, tmp_path):
    from embedlab.tokenizer import load_tokenizer

    for name, extra in (("fast.json", []), ("ref.json", ["--reference"])):
        out = str(tmp_path / name)
        status, _, err = run_cli("tokenizer", "train", str(corpus), "--vocab-size", "290", "--out", out, *extra)
        assert status == 0, err
    fast, ref = load_tokenizer(tmp_path / "fast.json"), load_tokenizer(tmp_path / "ref.json")
    assert [(m.left, m.right) for m in ref.history] == fast.merges()
    assert ref.counts == fast.counts  # the same corpus counts, however they were computed


def test_tokenize_minilm_table(run_cli):
    status, stdout, _ = run_cli("tokenize", "unhappiness")
    assert status == 0
    assert "un" in stdout and "##iness" in stdout and "30,522" in stdout


def test_bad_input_is_one_line_and_exit_2(run_cli, corpus, tmp_path):
    (tmp_path / "corrupt.json").write_text("{oops")
    for args, message in [
        (("tokenizer", "train", "nope.txt", "--vocab-size", "300", "--out", str(tmp_path / "t.json")),
         "error: corpus 'nope.txt' is neither a built-in name"),
        (("tokenizer", "train", str(corpus), "--vocab-size", "100", "--out", str(tmp_path / "t.json")),
         "error: vocab_size 100 is below the alphabet size 256"),
        (("tokenizer", "train", str(corpus), "--vocab-size", "300", "--out", str(tmp_path / "no" / "t.json")),
         "error: --out: the folder"),
        (("tokenize", "x", "--tokenizer", "gpt-5"), "error: tokenizer 'gpt-5' is neither a built-in name"),
        (("tokenize", "x", "--tokenizer", str(tmp_path / "corrupt.json")), "error: "),
    ]:
        status, out, err = run_cli(*args)
        assert status == 2, (args, err)
        assert err.startswith(message), (args, err)
        assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "t.json").exists()  # nothing written on a failed run


def test_an_unwritable_out_path_is_one_line(run_cli, corpus, tmp_path):
    taken = tmp_path / "a-folder"
    taken.mkdir()
    status, out, err = run_cli("tokenizer", "train", str(corpus), "--vocab-size", "260", "--out", str(taken))
    assert status == 2
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert taken.is_dir() and list(taken.iterdir()) == []  # nothing clobbered, no temporary left
