"""The subword explorer's API: pieces under the 1K/8K/32K ladder trained once on enwiki-sample and
read back from the lab's cache folder, the vocabulary-size table measured on its held-out lines, and
bad input as 4xx JSON naming the limit."""

from __future__ import annotations

import threading

import pytest
from fastapi.testclient import TestClient
from tokenizers import decoders

import embedlab.data.corpora
from embedlab.data.corpora import open_corpus
from embedlab.files import json_safe
from embedlab.lab import create_app
from embedlab.sims.subword_table import measure
from embedlab.sims.subwords import SIZES, VocabularyLadder, cache_file
from embedlab.tokenizer import FastTokenizer


@pytest.fixture(scope="module")
def trained(client):
    """The cache folder's subword vocabularies, trained (if no test did it before) by one request."""
    assert client.get("/api/subwords/split", params={"text": "the"}).status_code == 200
    return client.app.state.lab.cache_dir / "subwords"


@pytest.mark.parametrize("text, leading_space", [("unhappiness", True), ("naïve café", False)])
def test_split_gives_each_vocabularys_pieces(client, trained, text, leading_space):
    r = client.get("/api/subwords/split", params={"text": text, "leading_space": leading_space}).json()
    assert (r["corpus"], r["text"], r["leading_space"]) == ("enwiki-sample", text, leading_space)
    assert [(v["size"], v["vocab_size"]) for v in r["vocabularies"]] == [(s, s) for s in SIZES]
    encoded = (" " if leading_space else "") + text
    for v in r["vocabularies"]:
        stored = FastTokenizer.load(cache_file(trained, "enwiki-sample", v["size"], "json"))
        assert decoders.ByteLevel().decode([p["piece"] for p in v["pieces"]]) == encoded
        assert [p["id"] for p in v["pieces"]] == stored.encode(encoded)
        assert [p["count"] for p in v["pieces"]] == [stored.counts[p["id"]] for p in v["pieces"]]
    lengths = [len(v["pieces"]) for v in r["vocabularies"]]
    assert lengths == sorted(lengths, reverse=True)


def test_vocabularies_say_what_is_trained_and_how_long_it_took(client, trained):
    r = client.get("/api/subwords/vocabularies").json()
    assert r["sizes"] == list(SIZES) and r["default"] == "enwiki-sample"
    assert client.get("/api/config").json()["limits"]["subwords"]["text"] == 100
    corpora = {c["name"]: c for c in r["corpora"]}
    assert set(corpora) == set(embedlab.data.corpora.CORPORA)
    assert corpora["gcide"]["available"] == embedlab.data.corpora.GCIDE_PATH.is_file()
    wiki = corpora["enwiki-sample"]
    assert wiki["available"] and wiki["missing"] is None
    for v in wiki["vocabularies"]:
        info = v["info"]
        assert v["trained"] and info["vocab_size"] == info["size"] == v["size"] and info["train_seconds"] > 0
        assert info["held_out"] == (info["lines"] + info["held_out"]) // 10 > 0  # every 10th line held out
        assert cache_file(trained, "enwiki-sample", v["size"], "meta.json").is_file()


def test_a_new_server_loads_the_cached_vocabularies(lab_run, trained, monkeypatch):
    times = {f.name: f.stat().st_mtime_ns for f in trained.iterdir()}

    def no_training(*args, **kwargs):
        raise AssertionError("a cached vocabulary was trained again")

    monkeypatch.setattr(FastTokenizer, "train", no_training)
    opened = []
    real_open = VocabularyLadder.open.__func__
    monkeypatch.setattr(VocabularyLadder, "open", classmethod(lambda cls, *a: opened.append(1) or real_open(cls, *a)))
    app = create_app([str(lab_run)], cache=trained.parent)
    with TestClient(app) as fresh:
        answers = []
        threads = [threading.Thread(target=lambda: answers.append(
            fresh.get("/api/subwords/split", params={"text": "embedding"}).status_code)) for _ in range(4)]  # fmt: skip
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert answers == [200] * 4
    assert opened == [1]  # four concurrent first requests, one ladder
    assert {f.name: f.stat().st_mtime_ns for f in trained.iterdir()} == times


def test_the_table_is_the_librarys_measure_of_the_cached_ladder(client, trained):
    r = client.get("/api/subwords/table")
    assert r.status_code == 200
    answer = r.json()
    library = measure(VocabularyLadder.open(open_corpus("enwiki-sample"), trained), open_corpus("enwiki-sample"))
    assert answer == json_safe(library)
    assert answer["corpus"] == "enwiki-sample" and [x["size"] for x in answer["rungs"]] == list(SIZES)
    assert [x["size"] for x in answer["left_out"]] == [100_000]  # enwiki-sample has too few distinct words
    per_word = [x["pieces_per_word"] for x in answer["rungs"]]
    oov = [x["word_oov_running"] for x in answer["rungs"]]
    assert per_word == sorted(per_word, reverse=True) and oov == sorted(oov, reverse=True) and oov[-1] > 0
    assert all(x["spelled_back"] for x in answer["rungs"])
    assert client.get("/api/subwords/table", params={"corpus": "enwiki-sample"}).json() == answer  # measured once


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"corpus": "nope"}, 404, "unknown corpus 'nope'; known: enwiki-sample, gcide"),
        ({"corpus": "x" * 51}, 422, "corpus: String should have at most 50 characters"),
    ],
)
def test_the_table_of_a_bad_corpus_is_a_4xx(client, params, status, message):
    r = client.get("/api/subwords/table", params=params)
    assert r.status_code == status and r.json()["error"].startswith(message)


def test_a_missing_corpus_is_a_400_naming_the_package(client, monkeypatch, tmp_path):
    monkeypatch.setattr(embedlab.data.corpora, "GCIDE_PATH", tmp_path / "gcide.dict.dz")
    r = client.get("/api/subwords/split", params={"text": "cat", "corpus": "gcide"})
    assert r.status_code == 400 and "apt-get install dict-gcide" in r.json()["error"]
    r = client.get("/api/subwords/table", params={"corpus": "gcide"})
    assert r.status_code == 400 and "apt-get install dict-gcide" in r.json()["error"]
    gcide = next(c for c in client.get("/api/subwords/vocabularies").json()["corpora"] if c["name"] == "gcide")
    assert not gcide["available"] and "dict-gcide" in gcide["missing"]


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({}, 422, "text: Field required"),
        ({"text": ""}, 422, "text: String should have at least 1 character"),
        ({"text": "x" * 101}, 422, "text: String should have at most 100 characters"),
        ({"text": "cat", "corpus": "nope"}, 404, "unknown corpus 'nope'; known: enwiki-sample, gcide"),
        ({"text": "cat", "corpus": "/etc/passwd"}, 404, "unknown corpus '/etc/passwd'; known: enwiki-sample, gcide"),
        ({"text": "cat", "corpus": "x" * 51}, 422, "corpus: String should have at most 50 characters"),
        ({"text": "cat", "leading_space": "maybe"}, 422, "leading_space: "),
    ],
)
def test_bad_input_is_a_4xx_naming_the_limit(client, params, status, message):
    r = client.get("/api/subwords/split", params=params)
    assert r.status_code == status
    assert r.json()["error"].startswith(message)
    assert "Traceback" not in r.text
