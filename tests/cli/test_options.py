"""What every command shares (cli/options.py): options that do not apply to the chosen mode are refused,
naming each as typed; library errors are told with the option the user typed (-k/--topn, not topn)."""

from __future__ import annotations

import pytest

TABLE = "3 3\nking 0.1 0.2 0.3\nqueen 0.3 0.2 0.1\nman 1 0 0\n"


@pytest.fixture
def files(tmp_path):
    """A tiny word2vec text table and a tiny corpus: every command below stops before using them."""
    (tmp_path / "t.txt").write_text(TABLE, encoding="utf-8")
    (tmp_path / "c.txt").write_text("the cat sat on the mat\n" * 5, encoding="utf-8")
    return tmp_path


def _one_line_error(status: int, err: str, *named: str) -> None:
    assert status == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for text in named:
        assert text in err, err


# (arguments, the mode named, the options named as typed): each option changes nothing in that mode
INAPPLICABLE = [
    (("train", "{c}", "--out", "{out}", "--method", "lm", "--window", "3", "--min-count", "2"),
     "to --method lm", ("--window 3, --min-count 2",)),
    (("train", "{c}", "--out", "{out}", "--method", "lm", "--epoch-decay", "0.5"), "to --method lm",
     ("--epoch-decay 0.5",)),
    (("train", "{c}", "--out", "{out}", "--vocab-size", "500"), "to --method sgns", ("--vocab-size 500",)),
    (("train", "{c}", "--out", "{out}", "--method", "cbow", "--untied"), "to --method cbow", ("--untied",)),
    (("graph", "karate", "--groups", "3", "--evaluate"), "to graph karate", ("--groups 3",)),
    (("arena", "--sweep", "--clock", "wall", "--out", "{out}"), "to --sweep", ("--clock wall",)),
    (("arena", "--sweep", "--tasks", "lm", "--out", "{out}"), "to --sweep", ("--tasks lm",)),
    (("compare", "{t}", "{t}", "--seed", "3"), "to a comparison without --evaluate", ("--seed 3",)),
    (("compare", "{t}", "{t}", "--resamples", "200"), "to a comparison without --evaluate", ("--resamples 200",)),
    (("evaluate", "{t}", "--resamples", "0", "--seed", "4"), "to --resamples 0", ("--seed 4",)),
    (("advise", "--modality", "image", "--languages", "5", "--seq-len", "9"), "to --modality image",
     ("--languages 5, --seq-len 9",)),
    (("advise", "--detail", "speed"), "to --modality text", ("--detail speed",)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "mode", "named"), INAPPLICABLE, ids=lambda v: " ".join(v) if isinstance(v, tuple) else None
)
def test_an_option_that_does_not_apply_is_refused_naming_it(run_cli, files, args, mode, named):
    args = [a.format(c=files / "c.txt", t=files / "t.txt", out=files / "out") for a in args]
    status, _, err = run_cli(*args)
    _one_line_error(status, err, *named, "not apply " + mode, "drop")
    assert not (files / "out").exists()  # refused before any work


# (arguments, the option as typed at the start of the message): the library names its own parameter
LIBRARY_NAMES = [
    (("neighbors", "{t}", "king", "-k", "0"), "-k/--topn must be >= 1; got 0"),
    (("analogy", "{t}", "king - man + queen", "-k", "0"), "-k/--topn must be >= 1; got 0"),
    (("neighbors", "{t}", "king", "--metric", "cos"), "--metric must be one of"),
    (("train", "{c}", "--out", "{out}", "--dim", "0"), "--dim must be >= 1; got 0"),
    (("train", "{c}", "--out", "{out}", "--min-n", "2"), "--min-n 2 needs subwords"),
    (("train", "{c}", "--out", "{out}", "--pair-steps"), "--pair-steps True needs subwords"),
    (("train", "{c}", "--out", "{out}", "--epoch-decay", "2"), "--epoch-decay must be between 0.0 and 1.0; got 2.0"),
    (("graph", "karate", "--walks", "0", "--out", "{out}"), "--walks must be >= 1; got 0"),
    (("size", "--vocab", "0", "--dim", "3"), "--vocab must be >= 1"),
    (("tokenizer", "train", "{c}", "--vocab-size", "1", "--out", "{out}"), "--vocab-size 1 is below"),
]


@pytest.mark.parametrize(("args", "named"), LIBRARY_NAMES, ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_a_library_error_names_the_option_as_typed(run_cli, files, args, named):
    args = [a.format(c=files / "c.txt", t=files / "t.txt", out=files / "out") for a in args]
    status, _, err = run_cli(*args)
    _one_line_error(status, err, "error: " + named)
