"""An empty path ("" is Path("."), the current folder) is refused at every option and argument that
takes a path, in one line (exit 2), and at every library entry point that takes one."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.errors import InvalidValueError

# every command line argument or option that takes a path (or a built-in name), with "" in its place
EMPTY_PATHS = {
    "neighbors VECTORS": ["neighbors", "", "king"],
    "analogy VECTORS": ["analogy", "", "king - man + woman"],
    "evaluate VECTORS": ["evaluate", ""],
    "compare VECTORS": ["compare", "minilm", ""],
    "export VECTORS": ["export", "", "--out", "x.txt"],
    "export --out": ["export", "minilm", "--out", ""],
    "graph --out": ["graph", "karate", "--out", ""],
    "train CORPUS": ["train", "", "--out", "run"],
    "train --out": ["train", "enwiki-sample", "--out", ""],
    "train --init-from": ["train", "enwiki-sample", "--out", "run", "--init-from", ""],
    "tokenizer train CORPUS": ["tokenizer", "train", "", "--vocab-size", "300", "--out", "t.json"],
    "tokenizer train --out": ["tokenizer", "train", "enwiki-sample", "--vocab-size", "300", "--out", ""],
    "tokenize --tokenizer": ["tokenize", "the cat", "--tokenizer", ""],
    "embed --model": ["embed", "the cat", "--model", ""],
    "context --model": ["context", "a bank", "the bank", "--word", "bank", "--model", ""],
    "arena --out": ["arena", "--quick", "--out", ""],
    "lab --vectors": ["lab", "--vectors", ""],
    "distill MODEL": ["distill", "", "--out", "m"],
    "distill --out": ["distill", "minilm", "--out", ""],
    "distill --words-from": ["distill", "minilm", "--out", "m", "--add-words", "5", "--words-from", ""],
    "encode MODEL": ["encode", "", "the cat"],
    "classify train DATA": ["classify", "train", "", "--out", "m.bin"],
    "classify train --out": ["classify", "train", "gcide-domains", "--out", ""],
    "classify test MODEL": ["classify", "test", "", "gcide-domains-test"],
    "classify test DATA": ["classify", "test", "m.bin", ""],
    "classify predict MODEL": ["classify", "predict", "", "gcide-domains-test"],
    "classify predict DATA": ["classify", "predict", "m.bin", ""],
}


@pytest.mark.parametrize("case", EMPTY_PATHS)
def test_an_empty_path_is_refused_in_one_line(run_cli, tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)  # what a command would wrongly read or write is here, and must stay empty
    status, out, err = run_cli(*EMPTY_PATHS[case])
    assert status == 2 and out == "", (status, out, err)
    assert err.strip().count("\n") == 0 and "Traceback" not in err, err
    assert "empty path" in err, err
    assert list(tmp_path.iterdir()) == []


def _entry_points():
    """Every library entry point that takes a path, called with ""."""
    from embedlab.arena.runner import Race
    from embedlab.data.corpora import open_corpus
    from embedlab.data.models import resolve_model
    from embedlab.files import atomic_write_text, make_new_folder
    from embedlab.files.reading import readable_file
    from embedlab.tokenizer import load_tokenizer
    from embedlab.train import RunConfig, train
    from embedlab.train.distill import distill
    from embedlab.vectors import Vectors
    from embedlab.vectors.io import Table, read_table, write_table
    from embedlab.vectors.static import StaticModel
    from embedlab.vectors.subword import load

    table = Table(["a"], np.ones((1, 2), np.float32))
    return {
        "read_table": lambda: read_table(""),
        "write_table": lambda: write_table(table, ""),
        "Vectors.load": lambda: Vectors.load(""),
        "load": lambda: load(""),
        "Vectors.save": lambda: Vectors(["a"], np.ones((1, 2), np.float32)).save(""),
        "open_corpus": lambda: open_corpus(""),
        "load_tokenizer": lambda: load_tokenizer(""),
        "resolve_model": lambda: resolve_model(""),
        "train": lambda: train(RunConfig(corpus="enwiki-sample"), ""),
        "Race.open": lambda: Race.open("", "quick"),
        "atomic_write_text": lambda: atomic_write_text("", "x"),
        "make_new_folder": lambda: make_new_folder("", "run.json"),
        "readable_file": lambda: readable_file("", "a table"),
        "StaticModel.load": lambda: StaticModel.load(""),
        "distill": lambda: distill(""),
    }


@pytest.mark.parametrize("name", list(_entry_points()))
def test_an_empty_path_is_refused_by_every_library_entry_point(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidValueError, match="is empty"):
        _entry_points()[name]()
    assert list(tmp_path.iterdir()) == []
