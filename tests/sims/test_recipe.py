"""sims.recipe: a piece placed by each recipe, checked against the pipeline's own modules and
torch's layer_norm; the fresh recipes are the seeded layers; the token limit."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError
from embedlab.models.pipeline import Pipeline
from embedlab.sims.recipe import MAX_TOKENS, PRETRAINED, RECIPE_NAMES, SEED, Recipe, fresh_pipeline

FP32 = 1e-5  # float32 LayerNorm in torch's functional form vs the module


@pytest.fixture(scope="module")
def bert():
    return Recipe(PRETRAINED, Pipeline.load("minilm"))


@pytest.mark.parametrize("position, segment", [(None, None), (40, 1), (511, 0)])
def test_bert_places_minilms_own_rows(bert, position, segment):
    view = bert.place("the cat sat on the mat", index=2, position=position, segment=segment)
    placed, layers = view.placement, bert.pipeline.embedding
    assert view.pieces == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]"] and placed.piece == "cat"
    at, seg = (2 if position is None else position), (0 if segment is None else segment)
    assert (placed.position, placed.segment) == (at, seg)
    rows = placed.rows
    assert torch.equal(rows["token"], layers.token.weight[view.ids[2]])
    assert torch.equal(rows["position"], layers.position.weight[at])
    assert torch.equal(rows["segment"], layers.segment.weight[seg])
    torch.testing.assert_close(rows["total"], rows["token"] + rows["position"] + rows["segment"])
    norm = layers.norm
    expected = F.layer_norm(rows["total"], (384,), norm.weight, norm.bias, norm.eps)
    torch.testing.assert_close(rows["output"], expected, atol=FP32, rtol=0)


def test_the_answer_as_json(bert):
    out = bert.place("a dog", index=1).to_dict()
    assert (out["recipe"], out["pretrained"], out["index"], out["piece"]) == ("bert", True, 1, "a")
    assert out["config"]["max_len"] == 512 and out["config"]["layer_norm"] is True
    assert set(out["rows"]) == set(out["norms"]) == {"token", "position", "segment", "total", "output"}


@pytest.mark.parametrize("name", [n for n in RECIPE_NAMES if n != PRETRAINED])
def test_fresh_recipes_are_the_seeded_layers(name):
    recipe = Recipe(name, fresh_pipeline(name))
    oracle = Pipeline.fresh(name, "minilm", seed=SEED).embedding  # built apart, from the same seed
    view = recipe.place("the cat sat", index=2, position=7)
    assert view.to_dict()["pretrained"] is False and view.placement.segment is None
    assert torch.equal(view.placement.rows["token"], oracle.token(torch.tensor([view.ids[2]]))[0])
    assert "segment" not in view.placement.rows and "output" not in view.placement.rows  # no segments, no LayerNorm


def test_a_text_over_the_token_limit_is_refused(bert):
    with pytest.raises(InvalidValueError, match=f"the text is 72 tokens long; the limit is {MAX_TOKENS}"):
        bert.place("! " * 70, index=1)
    with pytest.raises(InvalidValueError, match="the limit is 4"):
        bert.place("the cat sat", index=1, max_tokens=4)


def test_an_unknown_recipe_is_named():
    with pytest.raises(InvalidValueError, match="recipe must be one of bert, gpt2, transformer; got 'llama'"):
        fresh_pipeline("llama")
