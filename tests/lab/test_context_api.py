"""The static vs contextual route through TestClient: the encoder's own figures, and bad input as
4xx JSON naming the limit."""

from __future__ import annotations

import pytest
import torch

RIVER = "he sat on the river bank and watched the water"
MONEY = "she paid the cheque into the bank"


def test_word_through_every_layer(client, bert_oracle):
    r = client.get("/api/context", params={"text": [RIVER, MONEY], "word": "bank", "layer": 2, "head": 3})
    assert r.status_code == 200, r.text[:300]
    d = r.json()
    assert d["word_pieces"] == ["bank"] and d["n_layers"] == 6 and d["n_heads"] == 12
    assert [o["start"] for o in d["occurrences"]] == [6, 8]
    # every layer's vectors are transformers' hidden states: check the cosine at the last one
    with torch.no_grad():
        states = [bert_oracle(input_ids=torch.tensor([tok]), output_hidden_states=True).hidden_states
                  for tok in (_ids(client, RIVER), _ids(client, MONEY))]  # fmt: skip
    a, b = states[0][6][0, 6], states[1][6][0, 8]
    assert d["layers"][6]["cosines"][0][1] == pytest.approx(torch.cosine_similarity(a, b, dim=0).item(), abs=1e-5)
    assert d["layers"][0]["cosines"][0][1] > 0.95 > 0.85 > d["layers"][6]["cosines"][0][1]
    assert d["layers"][0]["nearest"][0][0]["piece"] == "bank"
    n = len(d["pieces"][0]) + len(d["pieces"][1])
    assert len(d["map"]["tokens"]) == n and len(d["map"]["frames"]) == 7
    assert all(len(frame) == n and len(frame[0]) == 2 for frame in d["map"]["frames"])
    rows = d["attention"]["rows"]
    assert d["attention"]["layer"] == 2 and [len(row) for row in rows] == [len(p) for p in d["pieces"]]
    assert sum(rows[1]) == pytest.approx(1.0, abs=1e-5)


def _ids(client, text: str) -> list[int]:
    return client.get("/api/attention", params={"text": text}).json()["ids"]


def test_the_layer_and_head_pick_the_attention_rows(client):
    base = {"text": [RIVER, MONEY], "word": "bank"}
    a = client.get("/api/context", params={**base, "layer": 0, "head": 0}).json()
    b = client.get("/api/context", params={**base, "layer": 5, "head": 0}).json()
    c = client.get("/api/context", params={**base, "layer": 0, "head": 7}).json()
    assert a["attention"]["rows"] != b["attention"]["rows"] != c["attention"]["rows"]
    assert a["layers"] == b["layers"]  # the figures per layer do not depend on the attention shown
    assert all(layer["vectors"] is None for layer in a["layers"])  # the page draws no vectors


def test_an_undecodable_byte_is_a_400_naming_the_word(client):
    r = client.get(f"/api/context?text={RIVER}&text={MONEY}&word=%FF")  # U+FFFD once decoded
    assert r.status_code == 400 and "the word '\ufffd' has no pieces in this tokenizer" in r.json()["error"]


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"text": [RIVER], "word": "bank"}, 400, "give 2 to 4 sentences; got 1"),
        ({"text": [RIVER] * 5, "word": "bank"}, 400, "give 2 to 4 sentences; got 5"),
        ({"text": [RIVER, "x" * 301], "word": "bank"}, 400, "text 1 is 301 characters long; the limit is 300"),
        ({"text": [RIVER, "a cat"], "word": "bank"}, 400, "the word 'bank' (pieces: bank) is not in text 1"),
        ({"text": [RIVER, "bank " + "! " * 70], "word": "bank"}, 400, "text 1 is 73 tokens long; the limit is 64"),
        ({"text": [RIVER, "bank " * 8], "word": "bank"}, 400, "'bank' occurs 9 times in these texts; the limit is 8"),
        ({"text": [RIVER, MONEY], "word": "\u0301"}, 400, "the word '\u0301' has no pieces in this tokenizer"),
        ({"text": ["I love \u2603 snow", "the \u265e knight"], "word": "\u2708"}, 400, "outside this tokenizer's"),
        ({"text": [RIVER, MONEY + "\x00"], "word": "bank"}, 400, "text 1 holds a control character, U+0000, at"),
        ({"text": [RIVER, MONEY], "word": "b" * 51}, 422, "word: String should have at most 50 characters"),
        ({"word": "bank", "layer": 6}, 400, "layer must be between 0 and 5; got 6"),
        ({"word": "bank", "head": 12}, 400, "head must be between 0 and 11; got 12"),
        ({"word": "bank", "pooling": "max"}, 422, "pooling: String should match pattern"),
        ({"word": ""}, 422, "word: String should have at least 1 character"),
    ],
)
def test_bad_input_is_a_json_4xx_naming_the_limit(client, params, status, message):
    r = client.get("/api/context", params=params)
    assert r.status_code == status, r.text[:300]
    assert message in r.json()["error"] and "Traceback" not in r.text
