"""Degenerate inputs (empty, single, edgeless, all-zero) are refused by every command in one line naming what is
missing, never a traceback and never a run that learns nothing."""

from __future__ import annotations

import pytest


@pytest.fixture
def files(tmp_path):
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "one.txt").write_text("word word word\n" * 10, encoding="utf-8")
    (tmp_path / "small.txt").write_text("the cat sat on the mat\n" * 20, encoding="utf-8")
    (tmp_path / "t1.txt").write_text("1 3\nking 0.1 0.2 0.3\n", encoding="utf-8")
    (tmp_path / "zero.txt").write_text("2 3\nking 0 0 0\nqueen 0 0 0\n", encoding="utf-8")
    (tmp_path / "zero-king.txt").write_text("3 3\nking 0 0 0\nqueen 0.1 0 0\nman 0 0.2 0\n", encoding="utf-8")
    (tmp_path / "letters.txt").write_text("a b\nc a\n", encoding="utf-8")  # no two symbols side by side
    return tmp_path


PLANTED = ("graph", "planted", "--dim", "4", "--walks", "1", "--threads", "1")
DEGENERATE = [
    (("train", "{d}/empty.txt", "--out", "{d}/out"), "corpus file {d}/empty.txt is empty"),
    (("train", "{d}/one.txt", "--out", "{d}/out", "--min-count", "1"), "the vocabulary holds one word, 'word'"),
    (("train", "{d}/small.txt", "--out", "{d}/out", "--min-count", "1", "--subwords"),
     "--buckets 2,000,000 dwarf the"),
    (("tokenizer", "train", "{d}/empty.txt", "--vocab-size", "300", "--out", "{d}/out"), "is empty"),
    ((*PLANTED, "--groups", "2", "--size", "5", "--p-in", "0", "--p-out", "0", "--out", "{d}/out"),
     "graph planted-2x5 has 10 nodes and no edge"),
    ((*PLANTED, "--groups", "1", "--size", "1", "--p-in", "1", "--p-out", "0", "--out", "{d}/out"),
     "graph planted-1x1 has 1 node and no edge"),
    ((*PLANTED, "--groups", "1", "--size", "3", "--p-in", "1", "--p-out", "0", "--evaluate"),
     "measuring it needs at least 3 nodes and 5 edges"),
    (("compare", "{d}/t1.txt", "{d}/t1.txt"), "share 1 key; a comparison needs at least 2"),
    (("embed", ""), "TEXT must be a non-empty string"),
    (("tokenize", ""), "TEXT must be a non-empty string"),
    (("tokenizer", "train", "{d}/one.txt", "--vocab-size", "300", "--out", "{d}/out"),
     "corpus one.txt holds one distinct word, 'word'"),
    (("tokenizer", "train", "{d}/one.txt", "--vocab-size", "300", "--out", "{d}/out", "--reference"),
     "corpus one.txt holds one distinct word, 'word'"),
    (("tokenizer", "train", "{d}/letters.txt", "--vocab-size", "300", "--out", "{d}/out", "--reference", "--split",
      "whitespace"), "corpus letters.txt has nothing to merge"),
    (("neighbors", "{d}/t1.txt", "king"), "{d}/t1.txt holds only the row of 'king': there is no other row to rank"),
    (("neighbors", "{d}/t1.txt", "king", "--metric", "euclidean"), "holds only the row of 'king'"),
    (("neighbors", "{d}/zero.txt", "king", "--metric", "dot"), "every row of {d}/zero.txt is all zero"),
    (("neighbors", "{d}/zero-king.txt", "king"), "'king' has an all-zero row in {d}/zero-king.txt: a zero row has no "
     "direction"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), DEGENERATE, ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_a_degenerate_input_is_refused_in_one_line(run_cli, files, args, message):
    status, stdout, err = run_cli(*(a.format(d=files) for a in args))
    assert status == 2 and stdout == "", err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert message.format(d=files) in err, err
    assert not (files / "out").exists()  # refused before anything is written
