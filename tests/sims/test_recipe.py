"""sims.recipe: a piece placed by each recipe, checked against the pipeline's own modules and
torch's layer_norm; addends left out of the sum (position off: one X row per word, wherever it
stands); the fresh recipes are the seeded layers; the token limit."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError
from embedlab.files import json_safe
from embedlab.models.pipeline import SPECIALS, Pipeline
from embedlab.sims.recipe import MAX_TOKENS, PRETRAINED, RECIPE_NAMES, SEED, Recipe, fresh_pipeline

FP32 = 1e-5  # float32 LayerNorm in torch's functional form vs the module


def _rows(view):
    """The view's rows (NumPy, as the answer holds them) as tensors, for torch's oracles."""
    return {name: torch.from_numpy(row) for name, row in view.rows.items()}


@pytest.fixture(scope="module")
def bert():
    return Recipe(PRETRAINED, Pipeline.load("minilm"))


@pytest.mark.parametrize("position, segment", [(None, None), (40, 1), (511, 0)])
def test_bert_places_minilms_own_rows(bert, position, segment):
    view = bert.place("the cat sat on the mat", index=2, position=position, segment=segment)
    layers = bert.pipeline.embedding
    assert view.pieces == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]"] and view.piece == "cat"
    assert view.special == [True] + [False] * 6 + [True] and view.specials == SPECIALS["bert"]
    at, seg = (2 if position is None else position), (0 if segment is None else segment)
    assert (view.position, view.segment) == (at, seg)
    rows = _rows(view)
    assert torch.equal(rows["token"], layers.token.weight[view.ids[2]])
    assert torch.equal(rows["position"], layers.position.weight[at])
    assert torch.equal(rows["segment"], layers.segment.weight[seg])
    torch.testing.assert_close(rows["total"], rows["token"] + rows["position"] + rows["segment"])
    norm = layers.norm
    expected = F.layer_norm(rows["total"], (384,), norm.weight, norm.bias, norm.eps)
    torch.testing.assert_close(rows["output"], expected, atol=FP32, rtol=0)


def test_the_answer_as_json(bert):
    out = json_safe(bert.place("a dog", index=1))
    assert (out["recipe"], out["pretrained"], out["index"], out["piece"]) == ("bert", True, 1, "a")
    assert out["config"]["max_len"] == 512 and out["config"]["layer_norm"] is True
    assert set(out["rows"]) == set(out["norms"]) == {"token", "position", "segment", "total", "output"}
    assert out["available"] == out["addends"] == ["token", "position", "segment"]
    assert len(out["x_cosine"]) == len(out["pieces"]) == 4 and out["identical"] == []


SENTENCE = "the cat sat on the mat"  # "the" at pieces 1 and 5


def test_position_off_gives_a_word_one_row_of_x_wherever_it_stands(bert):
    on = bert.place(SENTENCE, index=1)
    off = bert.place(SENTENCE, index=1, addends=("token", "segment"))
    assert off.addends == ("token", "segment") and off.available == ("token", "position", "segment")
    walk_on = bert.pipeline.walk(SENTENCE)
    walk_off = bert.pipeline.walk(SENTENCE, include=("token", "segment"))
    x_on, x_off = walk_on.rows()["output"], walk_off.rows()["output"]  # (T, D) each
    assert not torch.equal(x_on[1], x_on[5]) and torch.equal(x_off[1], x_off[5])
    assert on.identical == () and off.identical == ((1, 5),)
    assert on.x_cosine[1, 5] < 0.9 and off.x_cosine[1, 5] == pytest.approx(1.0, abs=FP32)
    # the sum is token + segment, and the output is the model's own LayerNorm module on that sum
    layers = bert.pipeline.embedding
    rows = _rows(off)
    assert set(rows) == {"token", "segment", "total", "output"}
    assert torch.equal(rows["total"], layers.token.weight[off.ids[1]] + layers.segment.weight[0])
    torch.testing.assert_close(rows["output"], layers.norm(rows["total"]), atol=0, rtol=0)
    expected = F.layer_norm(rows["total"], (384,), layers.norm.weight, layers.norm.bias, layers.norm.eps)
    torch.testing.assert_close(rows["output"], expected, atol=FP32, rtol=0)
    # sliding the piece along no longer moves its X row
    far = bert.place(SENTENCE, index=1, position=300, addends=("token", "segment"))
    assert torch.equal(_rows(far)["output"], x_off[1])


def test_x_cosine_is_the_cosine_of_the_rows_that_enter_attention(bert):
    view = bert.place(SENTENCE, index=2, addends=("token", "position"))
    x = bert.pipeline.walk(SENTENCE, include=("token", "position")).rows()["output"]  # (T, D)
    expected = F.cosine_similarity(x[:, None, :], x[None, :, :], dim=-1)  # (T, T), torch's own
    torch.testing.assert_close(torch.from_numpy(view.x_cosine), expected, atol=FP32, rtol=0)


def test_the_token_may_be_left_out_too(bert):
    # position (+ segment) alone carries no word: two sentences of one length get the same X
    a = bert.place("the cat sat", index=1, addends=("position", "segment"))
    b = bert.place("a dog ran", index=1, addends=("position", "segment"))
    assert a.ids != b.ids and torch.equal(_rows(a)["output"], _rows(b)["output"])
    assert (a.x_cosine == b.x_cosine).all() and set(a.rows) == {"position", "segment", "total", "output"}
    alone = bert.place("the cat sat", index=1, addends=("position",))
    layers = bert.pipeline.embedding
    assert torch.equal(_rows(alone)["total"], layers.position.weight[1])


@pytest.mark.parametrize(
    "name, addends, message",
    [
        ("bert", (), "the sum needs at least one addend of token, position, segment; got none"),
        ("bert", ("token", "pos"), "'pos' is not an addend of this recipe; its addends: token, position, segment"),
        ("gpt2", ("token", "segment"), "'segment' is not an addend of this recipe; its addends: token, position"),
    ],
)
def test_addends_are_checked_against_the_recipe(bert, name, addends, message):
    recipe = bert if name == PRETRAINED else Recipe(name, fresh_pipeline(name))
    with pytest.raises(InvalidValueError, match=message):
        recipe.place(SENTENCE, index=1, addends=addends)


@pytest.mark.parametrize("name", [n for n in RECIPE_NAMES if n != PRETRAINED])
def test_fresh_recipes_are_the_seeded_layers(name):
    recipe = Recipe(name, fresh_pipeline(name))
    oracle = Pipeline.fresh(name, "minilm", seed=SEED).embedding  # built apart, from the same seed
    view = recipe.place("the cat sat", index=2, position=7)
    assert view.pretrained is False and view.segment is None
    assert view.pieces == ["the", "cat", "sat"] and view.special == [False] * 3  # no [CLS] or [SEP]
    assert torch.equal(_rows(view)["token"], oracle.token(torch.tensor([view.ids[2]]))[0])
    assert "segment" not in view.rows and "output" not in view.rows  # no segments, no LayerNorm


def test_a_text_over_the_token_limit_is_refused(bert):
    with pytest.raises(InvalidValueError, match=f"the text is 72 tokens long; the limit is {MAX_TOKENS}"):
        bert.place("! " * 70, index=1)
    with pytest.raises(InvalidValueError, match="the limit is 4"):
        bert.place("the cat sat", index=1, max_tokens=4)


def test_an_unknown_recipe_is_named():
    with pytest.raises(InvalidValueError, match="recipe must be one of bert, gpt2, transformer; got 'llama'"):
        fresh_pipeline("llama")
