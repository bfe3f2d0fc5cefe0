"""/api/advise: the chart's answer is the library's (embedlab.advise) for the same inputs, sizes typed as
text the way the CLI takes them; bad input is a 4xx JSON naming the value."""

from __future__ import annotations

import dataclasses
import json

import pytest
from fastapi.testclient import TestClient

from embedlab.advise import advise
from embedlab.lab import create_app


@pytest.fixture(scope="module")
def advise_client(tmp_path_factory):
    # The page needs no table: a lab serving only minilm (loaded on first use, so never here).
    with TestClient(create_app(["minilm"], cache=tmp_path_factory.mktemp("lab")), raise_server_exceptions=False) as c:
        yield c


def _plain(advice) -> dict:
    return json.loads(json.dumps(dataclasses.asdict(advice)))


def test_default_is_the_librarys_answer(advise_client):
    r = advise_client.get("/api/advise")
    assert r.status_code == 200, r.text
    assert r.json() == _plain(advise("text", params=125e6))


def test_image_in_a_tight_budget(advise_client):
    query = {"modality": "image", "detail": "detail", "memory": "300MiB", "batch": 256, "params": "86M"}
    r = advise_client.get("/api/advise", params=query).json()
    expected = advise("image", params=86e6, detail="detail", memory_budget=300 * 2**20, batch=256)
    assert r == _plain(expected) and r["recipe"]["patch_size"] == 16 and r["fits"]


def test_multilingual_large(advise_client):
    r = advise_client.get("/api/advise", params={"languages": 12, "params": "70B", "seq_len": 4096}).json()
    assert (r["recipe"]["vocab_size"], r["recipe"]["tied"]) == (128_000, False)
    assert [b["verdict"] for b in r["path"]] == [b.verdict for b in advise("text", languages=12, params=70e9).path]


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"params": "seven"}, "parameter count"),
        ({"memory": "lots"}, "memory size"),
        ({"modality": "image", "image_size": 100}, "image_size"),
        ({"modality": "audio"}, "modality"),
        ({"languages": 0}, "languages"),
        ({"params": "1e400B"}, "parameter count '1e400B' is infinite"),  # not "must be at least 1"
        ({"memory": "1e300TB"}, "memory size '1e300TB' is infinite"),
    ],
)
def test_bad_input_is_a_4xx_naming_it(advise_client, query, named):
    r = advise_client.get("/api/advise", params=query)
    assert 400 <= r.status_code < 500 and named in r.json()["error"]
