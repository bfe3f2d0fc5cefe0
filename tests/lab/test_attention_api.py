"""The attention-bridge route through TestClient: equal to transformers' BertModel attention in
the layer asked for, on the same ids, and bad input as 4xx JSON naming the limit."""

from __future__ import annotations

import math

import pytest
import torch

MATCH = 1e-5  # the bar for max abs difference against transformers


@pytest.mark.parametrize("layer", [0, 4])
def test_head_is_bert_attention(client, bert_oracle, layer):
    r = client.get("/api/attention", params={"text": "a dog chased the ball", "head": 7, "layer": layer}).json()
    assert r["pieces"] == ["[CLS]", "a", "dog", "chased", "the", "ball", "[SEP]"] and r["head"] == 7
    assert r["layer"] == layer and r["n_layers"] == 6
    before = bert_oracle.config._attn_implementation
    bert_oracle.set_attn_implementation("eager")  # the implementation that returns its probabilities
    try:
        with torch.no_grad():
            out = bert_oracle(input_ids=torch.tensor([r["ids"]]), output_attentions=True)
            theirs = out.attentions[layer][0, 7]
    finally:
        bert_oracle.set_attn_implementation(before)
    assert (torch.tensor(r["weights"]) - theirs).abs().max().item() <= MATCH
    raw = torch.softmax(torch.tensor(r["scores"], dtype=torch.float64) * math.sqrt(32), -1)
    assert (torch.tensor(r["raw_weights"], dtype=torch.float64) - raw).abs().max().item() <= MATCH
    assert r["scale"] == math.sqrt(32) and len(r["heads"]["mean_entropy"]) == 12


def test_another_head_or_sentence_changes_the_answer(client):
    a = client.get("/api/attention", params={"text": "the cat sat", "head": 0}).json()
    b = client.get("/api/attention", params={"text": "the cat sat", "head": 1}).json()
    c = client.get("/api/attention", params={"text": "the dog sat", "head": 0}).json()
    assert a["weights"] != b["weights"] and a["weights"] != c["weights"]
    assert a["heads"] == b["heads"]  # the per-head summary does not depend on the head shown


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"head": 12}, 400, "head must be between 0 and 11; got 12"),
        ({"head": 64}, 422, "head: Input should be less than or equal to 63"),
        ({"head": -1}, 422, "head: Input should be greater than or equal to 0"),
        ({"layer": 6}, 400, "layer must be between 0 and 5; got 6"),
        ({"layer": 64}, 422, "layer: Input should be less than or equal to 63"),
        ({"text": "x" * 301}, 422, "text: String should have at most 300 characters"),
        ({"text": "!" * 70}, 400, "the text is 72 tokens long; the limit is 64"),  # one piece each
        ({"text": "  "}, 400, "text must be a non-empty string"),
    ],
)
def test_bad_input_is_a_json_4xx_naming_the_limit(client, params, status, message):
    r = client.get("/api/attention", params=params)
    assert r.status_code == status, r.text[:300]
    assert message in r.json()["error"] and "Traceback" not in r.text
