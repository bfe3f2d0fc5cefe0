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


@pytest.mark.parametrize("split", ["gpt2", "whitespace"])
def test_both_trainers_write_the_same_merges(run_cli, corpus, tmp_path, split):
    from embedlab.tokenizer import load_tokenizer

    for name, extra in (("fast.json", []), ("ref.json", ["--reference"])):
        out = str(tmp_path / name)
        args = ("tokenizer", "train", str(corpus), "--vocab-size", "290", "--out", out, "--split", split, *extra)
        status, _, err = run_cli(*args)
        assert status == 0, err
    fast, ref = load_tokenizer(tmp_path / "fast.json"), load_tokenizer(tmp_path / "ref.json")
    assert [(m.left, m.right) for m in ref.history] == fast.merges()
    assert ref.counts == fast.counts  # the same corpus counts, however they were computed


LESSON = "the cat sat on the mat the cat"
LESSON_COMMAND = ("--reference", "--trace", "--tie", "first", "--split", "none", "--alphabet", "chars")
FIRST = "--tie first takes the pair seen first in the text"


@pytest.fixture
def lesson(tmp_path):
    path = tmp_path / "lesson.txt"
    path.write_text(LESSON, encoding="utf-8")  # no line break: 10 characters
    return path


def test_the_lessons_hand_calculation(run_cli, lesson, tmp_path):
    out = tmp_path / "lesson.json"
    status, stdout, stderr = run_cli(
        "tokenizer", "train", str(lesson), *LESSON_COMMAND, "--vocab-size", "13", "--out", str(out)
    )
    assert status == 0, stderr
    assert stderr.splitlines() == [
        "merge      1: 'a' + 't' -> 'at'  (count 4)",
        f"merge      2: 't' + 'h' -> 'th'  (count 3, tied with 'h' + 'e', 'e' + ' ', 'at' + ' '; {FIRST})",
        f"merge      3: 'th' + 'e' -> 'the'  (count 3, tied with 'e' + ' ', 'at' + ' '; {FIRST})",
    ]
    assert "13 tokens from lesson.txt" in stdout
    status, stdout, _ = run_cli("tokenize", "the mat", "--tokenizer", str(out), "--json")
    assert status == 0
    assert [p["piece"] for p in json.loads(stdout)["pieces"]] == ["the", " ", "m", "at"]


def test_other_tie_rules_and_json(run_cli, lesson, tmp_path):
    args = ("tokenizer", "train", str(lesson), *LESSON_COMMAND, "--vocab-size", "12", "--json")
    status, stdout, stderr = run_cli(*args, "--tie", "hf", "--out", str(tmp_path / "hf.json"))
    assert status == 0 and stderr == ""  # with --json the trace is in the object, not on stderr
    summary = json.loads(stdout)
    assert (summary["alphabet"], summary["split"], summary["tie"], summary["vocab_size"]) == ("chars", "none", "hf", 12)
    assert summary["merges"][1] == {  # the smallest ids: (e, ␣) = (3, 0)
        "left": "e", "right": " ", "token": "e ", "count": 3, "tied": 4,
        "passed_over": [["h", "e"], ["t", "h"], ["at", " "]],
    }  # fmt: skip
    status, stdout, _ = run_cli(*args, "--tie", "lexical", "--out", str(tmp_path / "lexical.json"))
    assert status == 0
    assert [(m["left"], m["right"]) for m in json.loads(stdout)["merges"]] == [("a", "t"), ("t", "h")]


def test_a_long_tie_names_five_pairs_and_counts_the_rest(run_cli, tmp_path):
    (tmp_path / "abc.txt").write_text("abcdefghij", encoding="utf-8")  # nine pairs, once each
    args = ("tokenizer", "train", str(tmp_path / "abc.txt"), *LESSON_COMMAND, "--tie", "hf", "--vocab-size", "11")
    status, _, stderr = run_cli(*args, "--out", str(tmp_path / "abc.json"))
    assert status == 0, stderr
    assert stderr.splitlines() == [
        "merge      1: 'a' + 'b' -> 'ab'  (count 1, tied with 'b' + 'c', 'c' + 'd', 'd' + 'e', 'e' + 'f', 'f' + 'g' "
        "and 3 more; --tie hf takes the pair of smallest ids, as HuggingFace tokenizers)"
    ]


def test_split_none_keeps_the_line_breaks_between_lines(run_cli, tmp_path):
    from embedlab.tokenizer import load_tokenizer

    (tmp_path / "two.txt").write_text("the cat\nthe cat\n", encoding="utf-8")
    out = tmp_path / "two.json"
    args = ("tokenizer", "train", str(tmp_path / "two.txt"), *LESSON_COMMAND, "--vocab-size", "12", "--out", str(out))
    status, _, stderr = run_cli(*args)
    assert status == 0, stderr
    bpe = load_tokenizer(out)
    assert bpe.vocab[:7] == ["\n", " ", "a", "c", "e", "h", "t"]  # the break is a character of the text
    assert bpe.counts[0] == 1  # once between the lines; the file's final break ends the text
    assert "'t' + 't'" not in stderr  # "cat" and the next "the" never run together
    assert bpe.decode(bpe.encode("the cat\nthe cat")) == "the cat\nthe cat"


def test_tokenize_minilm_table(run_cli):
    status, stdout, _ = run_cli("tokenize", "unhappiness")
    assert status == 0
    assert "un" in stdout and "##iness" in stdout and "30,522" in stdout


def test_bad_input_is_one_line_and_exit_2(run_cli, corpus, tmp_path):
    (tmp_path / "corrupt.json").write_text("{oops")
    reference = ("tokenizer", "train", str(corpus), "--reference", "--out", str(tmp_path / "t.json"))
    for args, message in [
        (
            ("tokenizer", "train", "nope.txt", "--vocab-size", "300", "--out", str(tmp_path / "t.json")),
            "error: corpus 'nope.txt' is neither a built-in name",
        ),
        (
            ("tokenizer", "train", str(corpus), "--vocab-size", "100", "--out", str(tmp_path / "t.json")),
            "error: --vocab-size 100 is below the alphabet size 256",
        ),
        (
            ("tokenizer", "train", str(corpus), "--vocab-size", "300", "--out", str(tmp_path / "no" / "t.json")),
            "error: --out: the folder",
        ),
        (("tokenize", "x", "--tokenizer", "gpt-5"), "error: tokenizer 'gpt-5' is neither a built-in name"),
        (
            (*reference, "--alphabet", "chars", "--vocab-size", "5"),
            "error: --vocab-size 5 is below the alphabet size 13 (0 specials + 13 distinct characters of the text)",
        ),  # t h e ␣ c a s o n m d g l
        (
            (*reference, "--tie", "random", "--vocab-size", "300"),
            "error: --tie must be one of first, hf, lexical; got 'random'",
        ),
        (
            (*reference, "--alphabet", "char", "--vocab-size", "300"),
            "error: --alphabet must be one of bytes, chars; got 'char'",
        ),
        (
            (*reference, "--split", "words", "--vocab-size", "300"),
            "error: --split must be one of gpt2, whitespace, none; got 'words'",
        ),
        (("tokenize", "x", "--tokenizer", str(tmp_path / "corrupt.json")), "error: "),
    ]:
        status, out, err = run_cli(*args)
        assert status == 2, (args, err)
        assert err.startswith(message), (args, err)
        assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "t.json").exists()  # nothing written on a failed run


@pytest.mark.parametrize(
    "option, message",
    [
        (
            ["--tie", "first"],
            "error: --tie first needs --reference: HuggingFace's trainer breaks ties only its own way",
        ),
        (["--tie", "lexical"], "error: --tie lexical needs --reference"),
        (["--split", "none"], "error: --split none needs --reference: HuggingFace's trainer cuts lines apart"),
        (["--alphabet", "chars"], "error: --alphabet chars needs --reference: HuggingFace's byte alphabet is fixed"),
        (["--trace"], "error: --trace needs --reference: HuggingFace's trainer does not report its merges"),
    ],
)
def test_reference_only_options_are_refused_without_reference(run_cli, corpus, tmp_path, option, message):
    out = tmp_path / "t.json"
    status, stdout, err = run_cli("tokenizer", "train", str(corpus), "--vocab-size", "300", "--out", str(out), *option)
    assert status == 2 and stdout == ""
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_a_character_outside_the_alphabet_is_one_line(run_cli, lesson, tmp_path):
    out = tmp_path / "lesson.json"
    status, _, _ = run_cli("tokenizer", "train", str(lesson), *LESSON_COMMAND, "--vocab-size", "13", "--out", str(out))
    assert status == 0
    status, stdout, err = run_cli("tokenize", "the zebra", "--tokenizer", str(out))
    assert status == 2 and stdout == ""
    assert err.startswith("error: character 'z' is not in this tokenizer's alphabet of 10 characters")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_an_unwritable_out_path_is_one_line(run_cli, corpus, tmp_path):
    taken = tmp_path / "a-folder"
    taken.mkdir()
    status, out, err = run_cli("tokenizer", "train", str(corpus), "--vocab-size", "260", "--out", str(taken))
    assert status == 2
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert taken.is_dir() and list(taken.iterdir()) == []  # nothing clobbered, no temporary left
