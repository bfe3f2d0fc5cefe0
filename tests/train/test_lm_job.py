"""The LM training path end to end: BPE on a real corpus, tied and untied heads, validation
against the unigram baseline, and a stopped run that resumes bit for bit."""

from __future__ import annotations

import json
from itertools import islice

import numpy as np
import pytest

from embedlab.data.corpora import open_corpus
from embedlab.tokenizer import FastTokenizer
from embedlab.train.config import RunConfig
from embedlab.train.run import train
from embedlab.vectors import Vectors

SETTINGS = dict(method="lm", dim=32, heads=2, context=32, vocab_size=300, batch_size=16, epochs=2, threads=2)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("lm") / "wiki.txt"
    path.write_text("\n".join(islice(iter(open_corpus("enwiki-sample")), 200)), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def tied_run(corpus, tmp_path_factory):
    return train(RunConfig(corpus=corpus, **SETTINGS), tmp_path_factory.mktemp("lm") / "tied", evaluate=False)


def test_tied_run_learns_beyond_piece_frequencies(tied_run):
    m = tied_run.metrics
    assert tied_run.status == "finished" and m["tied"] is True
    assert m["validation_loss"] < m["unigram_loss"] - 0.1  # context helps: the model is more than counts
    assert m["perplexity"] == pytest.approx(np.exp(m["validation_loss"]))
    assert [h["epoch"] for h in m["history"]] == [0, 1]
    assert m["history"][1]["validation_loss"] < m["history"][0]["validation_loss"]


def test_the_saved_table_is_the_token_table_keyed_by_pieces(tied_run):
    out = tied_run.path
    tokenizer = FastTokenizer.load(out / "tokenizer.json")
    vectors = Vectors.load(out)
    assert vectors.vectors.shape == (tokenizer.vocab_size, 32)
    assert vectors.index_to_key == [tokenizer.piece(i) for i in range(tokenizer.vocab_size)]
    counts = np.load(out / "update_counts.npy")  # lookups of each row as an input piece
    assert counts.sum() == tied_run.metrics["pieces"]
    assert json.loads((out / "run.json").read_text())["status"] == "finished"


def test_untied_adds_exactly_v_times_d_parameters(corpus, tied_run, tmp_path):
    untied = train(RunConfig(corpus=corpus, **{**SETTINGS, "tied": False, "epochs": 1}), tmp_path / "u", evaluate=False)
    V, D = 300, 32
    assert untied.metrics["tied"] is False
    assert untied.metrics["parameters"] - tied_run.metrics["parameters"] == V * D
    assert untied.metrics["embedding_parameters"] == tied_run.metrics["embedding_parameters"] == V * D


def test_a_stopped_run_resumes_bit_for_bit(corpus, tied_run, tmp_path):
    steps = iter(range(1000))
    stopped = train(RunConfig(corpus=corpus, **SETTINGS), tmp_path / "r", evaluate=False,
                    should_stop=lambda: next(steps) == 6)  # fmt: skip
    assert stopped.status == "stopped" and (tmp_path / "r" / "checkpoint.pt").is_file()
    resumed = train(RunConfig(corpus=corpus, **SETTINGS), tmp_path / "r", resume=True, evaluate=False)
    np.testing.assert_array_equal(Vectors.load(tmp_path / "r").vectors, Vectors.load(tied_run.path).vectors)
    assert resumed.metrics["validation_loss"] == tied_run.metrics["validation_loss"]
    np.testing.assert_array_equal(np.load(tmp_path / "r" / "update_counts.npy"),
                                  np.load(tied_run.path / "update_counts.npy"))  # fmt: skip
