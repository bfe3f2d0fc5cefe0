"""/api/recipe: one piece of a sentence through bert (MiniLM's real weights), gpt2 and transformer
(fresh layers of MiniLM's size), checked against transformers and the formulas; addends left out of
the sum, its LayerNorm and X; bad input as 4xx."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from embedlab.models.pipeline import Pipeline

FP32 = 1e-5  # float32 LayerNorm against transformers


def _get(client, **params) -> dict:
    r = client.get("/api/recipe", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_bert_is_minilm_as_transformers_computes_it(client, bert_oracle):
    r = _get(client, recipe="bert", text="the cat sat on the mat", index=2)
    assert r["pieces"] == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]"]
    assert (r["piece"], r["position"], r["segment"], r["pretrained"]) == ("cat", 2, 0, True)
    assert r["config"]["max_len"] == 512 and r["config"]["layer_norm"] is True
    rows = {name: np.array(row) for name, row in r["rows"].items()}
    np.testing.assert_allclose(rows["total"], rows["token"] + rows["position"] + rows["segment"], atol=1e-6)
    for name, row in rows.items():
        assert r["norms"][name] == pytest.approx(np.linalg.norm(row), rel=1e-5)
    with torch.no_grad():
        expected = bert_oracle.embeddings(input_ids=torch.tensor([[r["id"]]]), position_ids=torch.tensor([[2]]))[0, 0]
    np.testing.assert_allclose(rows["output"], expected.numpy(), atol=FP32, rtol=0)


def test_the_position_slider_moves_the_same_token(client, bert_oracle):
    here = _get(client, recipe="bert", index=2)
    there = _get(client, recipe="bert", index=2, position=300, segment=1)
    assert there["rows"]["token"] == here["rows"]["token"] and there["norms"]["token"] == here["norms"]["token"]
    weights = bert_oracle.embeddings
    np.testing.assert_allclose(there["rows"]["position"], weights.position_embeddings.weight[300].detach(), atol=1e-7)
    np.testing.assert_allclose(there["rows"]["segment"], weights.token_type_embeddings.weight[1].detach(), atol=1e-7)
    with torch.no_grad():
        expected = weights(input_ids=torch.tensor([[here["id"]]]), token_type_ids=torch.tensor([[1]]),
                           position_ids=torch.tensor([[300]]))[0, 0]  # fmt: skip
    np.testing.assert_allclose(there["rows"]["output"], expected.numpy(), atol=FP32, rtol=0)


def test_fresh_recipes_are_the_seeded_layers(client):
    gpt2 = _get(client, recipe="gpt2", text="the cat sat", index=2, position=1000)
    assert gpt2["pretrained"] is False and gpt2["segment"] is None
    assert set(gpt2["rows"]) == {"token", "position", "total"}  # no segment table, no LayerNorm
    layers = Pipeline.fresh("gpt2", seed=0).embedding  # the route's seed, built apart from the app
    np.testing.assert_allclose(gpt2["rows"]["token"], layers.token.weight[gpt2["id"]].detach(), atol=0)
    np.testing.assert_allclose(gpt2["rows"]["position"], layers.position.weight[1000].detach(), atol=0)

    tr = _get(client, recipe="transformer", text="the cat sat", index=2, position=4999)
    assert tr["config"]["max_len"] == 5000 and tr["config"]["scale"] == "sqrt_d"
    i = np.arange(384)
    angle = 4999 / 10000.0 ** ((i - i % 2) / 384)
    np.testing.assert_allclose(tr["rows"]["position"], np.where(i % 2 == 0, np.sin(angle), np.cos(angle)), atol=1e-6)
    assert tr["norms"]["position"] == pytest.approx(np.sqrt(384 / 2), rel=1e-6)  # a sinusoid row: √(D/2)


def test_unticked_position_leaves_it_out_of_the_sum_and_of_x(client, bert_oracle):
    on = _get(client, recipe="bert", index=1)
    off = _get(client, recipe="bert", index=1, addends=["token", "segment"])
    assert on["addends"] == on["available"] == ["token", "position", "segment"] and on["identical"] == []
    assert off["addends"] == ["token", "segment"] and set(off["rows"]) == set(off["norms"]) == {
        "token", "segment", "total", "output"}  # fmt: skip
    rows = {name: np.array(row, dtype=np.float32) for name, row in off["rows"].items()}  # JSON holds float32 exactly
    np.testing.assert_array_equal(rows["total"], rows["token"] + rows["segment"])  # the same float32 sum
    weights = bert_oracle.embeddings
    with torch.no_grad():  # transformers' own LayerNorm on the sum without a position row
        total = weights.word_embeddings.weight[off["id"]] + weights.token_type_embeddings.weight[0]
        expected = weights.LayerNorm(total)
    np.testing.assert_allclose(rows["output"], expected.numpy(), atol=FP32, rtol=0)
    assert off["norms"]["total"] != on["norms"]["total"] and off["norms"]["token"] == on["norms"]["token"]
    # the sentence's X: "the" at 1 and at 5 are one row once position is off
    assert off["pieces"][1] == off["pieces"][5] == "the" and off["identical"] == [[1, 5]]
    assert off["x_cosine"][1][5] == pytest.approx(1.0, abs=FP32) and on["x_cosine"][1][5] < 0.9
    assert np.array(off["x_cosine"]).shape == (8, 8)


def test_position_alone_and_the_fresh_recipes(client):
    alone = _get(client, recipe="gpt2", text="the cat sat", index=2, position=1000, addends="position")
    layers = Pipeline.fresh("gpt2", seed=0).embedding
    assert alone["addends"] == ["position"] and set(alone["rows"]) == {"position", "total"}
    np.testing.assert_array_equal(alone["rows"]["total"], layers.position.weight[1000].detach().numpy())
    tr = _get(client, recipe="transformer", text="the cat sat the", index=1, addends="token")
    assert tr["available"] == ["token", "position"] and tr["identical"] == [[0, 3]]  # no [CLS]: "the" at 0 and 3
    assert tr["pieces"] == ["the", "cat", "sat", "the"] and tr["specials"] == {"start": [], "end": []}


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"recipe": "llama"}, 422, "recipe: "),
        ({"text": "x" * 201}, 422, "text: String should have at most 200 characters"),
        ({"text": "   "}, 400, "text must be a non-empty string"),
        ({"text": "! " * 70}, 400, "the text is 72 tokens long; the limit is 64"),
        ({"index": 64}, 422, "index: Input should be less than 64"),
        ({"index": 8}, 400, "index must be between 0 and 7; got 8"),
        ({"position": 512}, 400, "position must be between 0 and 511; got 512"),
        ({"recipe": "gpt2", "position": 1024}, 400, "position must be between 0 and 1023; got 1024"),
        ({"position": 5000}, 422, "position: Input should be less than or equal to 4999"),
        ({"position": -1}, 422, "position: "),
        ({"segment": 2}, 422, "segment: Input should be less than or equal to 1"),
        ({"recipe": "gpt2", "segment": 0}, 400, "segment 0 given, but this recipe has no segment table"),
        ({"addends": ""}, 400, "the sum needs at least one addend of token, position, segment; got none"),
        ({"addends": "pos"}, 400, "'pos' is not an addend of this recipe; its addends: token, position, segment"),
        ({"recipe": "gpt2", "addends": "segment"}, 400, "'segment' is not an addend of this recipe; its addends: "),
        ({"addends": ["token"] * 4}, 422, "addends: List should have at most 3 items"),
    ],
)
def test_bad_input_is_json_naming_the_limit(client, params, status, message):
    r = client.get("/api/recipe", params=params)
    assert r.status_code == status, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text
