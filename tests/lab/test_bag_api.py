"""Bag of embeddings through FastAPI's TestClient: a small classifier trained from the page's route and
followed to its end, its answers against the library's, and bad input as 4xx JSON naming the value and
the range."""

from __future__ import annotations

import time

import numpy as np
import pytest
from fastapi.testclient import TestClient
from tests.timeouts import margin

from embedlab.lab import create_app
from embedlab.sims.bag import LIMITS

SMALL = {"lines": 1_500, "dim": 16, "epochs": 3, "word_ngrams": 2, "bucket": 10_000, "lr": 0.5}
RUN_S = margin(15.0)  # gcide's domains read (~10 s, once a process), then 1 + 2 + 3 epochs of 1,500 lines
SCORE_TOLERANCE = 1e-4  # float32 contributions summed against the float32 score


@pytest.fixture(scope="module")
def bag(tmp_path_factory):
    """An app of its own (its cache apart), with one small run finished: -> (client, the run's state)."""
    with TestClient(create_app(["minilm"], cache=tmp_path_factory.mktemp("bag-cache")),
                    raise_server_exceptions=False) as client:  # fmt: skip
        started = client.post("/api/bag/start", json=SMALL)
        assert started.status_code == 200 and started.json()["status"] == "running", started.text[:300]
        yield client, _finished(client)


def _finished(client, seconds: float = RUN_S) -> dict:
    deadline = time.monotonic() + seconds
    while (state := client.get("/api/bag").json())["status"] == "running":
        assert time.monotonic() < deadline, f"still running after {seconds} s"
        time.sleep(0.05)
    return state


def test_a_run_from_the_page_trains_scores_and_confuses(bag):
    _, state = bag
    assert state["status"] == "finished" and state["settings"] == SMALL and state["run"] == 1
    assert [p["epochs"] for p in state["curve"]] == [1, 2, 3] and state["done"] == state["total"] == 6
    assert state["curve"][-1]["test_p1"] > state["majority"]
    counts = np.array(state["confusion"])
    assert counts.shape == (len(state["labels"]),) * 2 and counts.sum() == state["test_lines"]
    assert len(state["per_label"]) == len(state["labels"]) == 15


def test_a_text_is_taken_apart_row_by_row(bag):
    client, _ = bag
    r = client.get("/api/bag/predict", params={"text": "a small fish of the family qqqq", "k": 2})
    assert r.status_code == 200, r.text[:300]
    body = r.json()
    assert body["run"] == 1 and len(body["labels"]) == 2 and body["probs"][0] >= body["probs"][1]
    assert body["tokens"][-1] == "</s>" and "fish" in body["rows"] and "small fish" in body["rows"]
    assert body["unknown"] == ["qqqq"] and "family qqqq" in body["rows"]  # an unknown word is in n-grams
    np.testing.assert_allclose(np.sum(body["contributions"], axis=1), body["scores"], atol=SCORE_TOLERANCE)
    assert sum(body["counts"]) == body["n"] and set(body["kinds"]) == {"word", "ngram"}


def test_the_defaults_answer_and_show_what_they_were(bag):
    client, _ = bag
    r = client.get("/api/bag/predict").json()  # the page's first call: the example text, k = 3
    assert r["text"] and len(r["labels"]) == 3
    q = client.get("/api/bag/quantize").json()
    assert q["settings"] == {"cutoff": 10_000, "dsub": 2, "qnorm": False, "retrain": False}


def test_quantizing_shrinks_the_file(bag):
    client, _ = bag
    r = client.get("/api/bag/quantize", params={"cutoff": 1_000, "dsub": 4, "qnorm": True})
    assert r.status_code == 200, r.text[:300]
    q = r.json()
    assert q["pruned"] and q["after"]["rows"] == 1_000 and q["after"]["format"] == ".ftz"
    assert q["after"]["bytes"] < q["before"]["bytes"] / 10 and 0 < q["after"]["p1"] <= 1
    again = client.get("/api/bag/quantize", params={"cutoff": 1_000, "dsub": 4, "qnorm": True}).json()
    assert again == q  # measured once, kept


def test_a_second_run_while_one_trains_is_a_409(bag):
    client, _ = bag
    assert client.post("/api/bag/start", json={**SMALL, "lines": 6_000, "epochs": 8}).status_code == 200  # seconds
    r = client.post("/api/bag/start", json=SMALL)
    assert r.status_code == 409 and "a classifier is training already" in r.json()["error"]
    assert client.get("/api/bag/predict", params={"text": "a fish"}).json()["run"] == 1  # meanwhile: run 1 answers
    assert _finished(client)["run"] == 2
    assert client.get("/api/bag/predict", params={"text": "a fish"}).json()["run"] == 2


def test_the_limits_are_the_pages(bag):
    client, _ = bag
    limits = client.get("/api/config").json()["limits"]["bag"]
    assert limits == LIMITS and limits["dim"] == [2, 100] and limits["dsubs"] == [1, 2, 4, 8]


@pytest.mark.parametrize(
    "body, status, message",
    [({"dim": 1_000}, 400, "dim must be between 2 and 100; got 1000"),
     ({"epochs": 0}, 400, "epochs must be between 1 and 15; got 0"),
     ({"lines": 100_000}, 400, "lines must be between 500 and 18000; got 100000"),
     ({"word_ngrams": 9}, 400, "word_ngrams must be between 1 and 3; got 9"),
     ({"bucket": 10}, 400, "bucket must be between 1000 and 200000; got 10"),
     ({"lr": 50}, 400, "lr must be between 0.01 and 2.0; got 50.0"),
     ({"threads": 8}, 422, "threads: Extra inputs are not permitted"),
     ({"dim": 2.5}, 422, "dim: Input should be a valid integer")],
)  # fmt: skip
def test_a_bad_run_is_refused_naming_the_value_and_range(bag, body, status, message):
    client, _ = bag
    r = client.post("/api/bag/start", json=body)
    assert r.status_code == status and message in r.json()["error"], r.text[:300]


@pytest.mark.parametrize(
    "path, params, message",
    [("/api/bag/predict", {"text": "x" * 301}, "text is 301 characters long; the limit is 300"),
     ("/api/bag/predict", {"text": " "}, "text is empty"),
     ("/api/bag/predict", {"k": 6}, "k must be between 1 and 5; got 6"),
     ("/api/bag/quantize", {"cutoff": 10}, "cutoff must be 0 (keep every row) or 256..250000"),
     ("/api/bag/quantize", {"cutoff": 10**7}, "cutoff must be between 0 and 250000; got 10000000"),
     ("/api/bag/quantize", {"dsub": 5}, "dsub must be one of 1, 2, 4, 8; got 5")],
)  # fmt: skip
def test_a_bad_question_is_a_400_naming_the_value_and_range(bag, path, params, message):
    client, _ = bag
    r = client.get(path, params=params)
    assert r.status_code == 400 and message in r.json()["error"], r.text[:300]
