"""Walking MiniLM's input pipeline: pieces from the real tokenizer, rows from the real tables."""

from __future__ import annotations

import pytest
import torch

from embedlab.errors import InvalidValueError
from embedlab.layers.recipes import RECIPES
from embedlab.models.pipeline import SPECIALS, Pipeline, Specials

FP32 = 1e-5  # float32 LayerNorm against transformers


@pytest.fixture(scope="module")
def pipe():
    return Pipeline.load("minilm")


def test_walk_pieces_rows_and_norms(pipe, bert_oracle):
    walk = pipe.walk("the cat sat on the mat", pair="a dog")
    assert walk.pieces == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]", "a", "dog", "[SEP]"]
    assert walk.segment_ids == [0] * 8 + [1] * 3  # no padding to the saved tokenizer's 128
    rows = walk.rows()
    T = len(walk.ids)
    assert all(r.shape == (T, 384) for r in rows.values())
    torch.testing.assert_close(rows["total"], rows["token"] + rows["position"] + rows["segment"])
    ids, seg = torch.tensor([walk.ids]), torch.tensor([walk.segment_ids])
    with torch.no_grad():
        expected = bert_oracle.embeddings(ids, token_type_ids=seg)[0]
    torch.testing.assert_close(rows["output"], expected, atol=FP32, rtol=0)
    norms = walk.norms()
    assert norms["token"][2] == pytest.approx(rows["token"][2].norm().item())
    # the same word at two positions: same token row, different position rows
    assert torch.equal(rows["token"][1], rows["token"][5])
    assert not torch.equal(rows["position"][1], rows["position"][5])
    data = walk.to_dict()
    assert data["positions"] == list(range(T)) and len(data["rows"]["output"]) == T


def test_a_walk_without_positions_gives_a_word_one_row(pipe, bert_oracle):
    walk = pipe.walk("the cat sat on the mat", include=("token", "segment"))
    rows = walk.rows()
    assert walk.include == ("token", "segment") and walk.to_dict()["include"] == ["token", "segment"]
    assert set(rows) == {"token", "segment", "total", "output"}
    assert torch.equal(rows["output"][1], rows["output"][5])  # "the" at 1 and at 5: one row of X
    ids = torch.tensor([walk.ids])
    with torch.no_grad():  # transformers' embeddings with every position row replaced by zeros
        emb = bert_oracle.embeddings
        total = emb.word_embeddings(ids) + emb.token_type_embeddings(torch.zeros_like(ids))
        expected = emb.LayerNorm(total)[0]
    torch.testing.assert_close(rows["output"], expected, atol=FP32, rtol=0)
    moved = pipe.place(walk, 1, position=300)  # the walk's addends: the position slider moves nothing
    assert torch.equal(moved.rows["output"], rows["output"][1]) and "position" not in moved.rows


def test_walk_rejects_empty_and_too_long_text(pipe):
    with pytest.raises(InvalidValueError, match="text must be a non-empty string"):
        pipe.walk("   ")
    with pytest.raises(InvalidValueError, match="the text is 602 tokens long; this model takes at most 512"):
        pipe.walk("cat " * 600)


def test_place_moves_one_token_along_the_sequence(pipe, bert_oracle):
    walk = pipe.walk("the cat sat on the mat")
    rows = walk.rows()
    here = pipe.place(walk, 2)  # "cat" where it stands: the walk's own rows
    assert (here.piece, here.position, here.segment) == ("cat", 2, 0)
    for name in ("token", "position", "segment", "total", "output"):
        torch.testing.assert_close(here.rows[name], rows[name][2])
    moved = pipe.place(walk, 2, position=40, segment=1)
    assert torch.equal(moved.rows["token"], here.rows["token"])  # "cat" is "cat" wherever it stands
    torch.testing.assert_close(moved.rows["position"], bert_oracle.embeddings.position_embeddings.weight[40])
    torch.testing.assert_close(moved.rows["segment"], bert_oracle.embeddings.token_type_embeddings.weight[1])
    ids, segments, positions = torch.tensor([[walk.ids[2]]]), torch.tensor([[1]]), torch.tensor([[40]])
    with torch.no_grad():
        expected = bert_oracle.embeddings(input_ids=ids, token_type_ids=segments, position_ids=positions)[0, 0]
    torch.testing.assert_close(moved.rows["output"], expected, atol=FP32, rtol=0)
    assert moved.norms()["position"] == pytest.approx(moved.rows["position"].norm().item())
    assert moved.position == 40 and moved.rows["token"].shape == (384,) and set(moved.norms()) == set(moved.rows)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"index": 8}, "index must be between 0 and 7; got 8"),
        ({"index": 1, "position": 512}, "position must be between 0 and 511; got 512"),
        ({"index": 1, "segment": 2}, "segment must be between 0 and 1; got 2"),
    ],
)
def test_place_names_the_limit(pipe, kwargs, message):
    with pytest.raises(InvalidValueError, match=message):
        pipe.place(pipe.walk("the cat sat on the mat"), **kwargs)


def test_fresh_recipes_share_the_tokenizer_and_are_seeded():
    state = torch.get_rng_state()
    gpt2 = Pipeline.fresh("gpt2", seed=0)
    assert torch.equal(torch.get_rng_state(), state)  # the caller's random stream is left alone
    assert torch.equal(Pipeline.fresh("gpt2", seed=0).embedding.token.weight, gpt2.embedding.token.weight)
    assert not torch.equal(Pipeline.fresh("gpt2", seed=1).embedding.token.weight, gpt2.embedding.token.weight)
    assert gpt2.embedding.config.vocab_size == 30522 and gpt2.embedding.config.dim == 384
    assert not gpt2.embedding.training

    walk = gpt2.walk("the cat sat")
    assert walk.pieces == ["the", "cat", "sat"] and walk.special == [False] * 3  # MiniLM's pieces, gpt2's specials
    placed = gpt2.place(walk, 2, position=900)
    assert placed.segment is None and set(placed.rows) == {"token", "position", "total"}  # no segments, no LayerNorm
    torch.testing.assert_close(placed.rows["token"], gpt2.embedding.token.weight[walk.ids[2]])
    torch.testing.assert_close(placed.rows["total"], placed.rows["token"] + gpt2.embedding.position.weight[900])
    with pytest.raises(InvalidValueError, match="segment 0 given, but this recipe has no segment table"):
        gpt2.place(walk, 2, segment=0)


def test_fresh_transformer_scales_tokens_and_adds_sinusoids():
    pipe = Pipeline.fresh("transformer")
    walk = pipe.walk("the cat sat")
    placed = pipe.place(walk, 2, position=4999)
    torch.testing.assert_close(placed.rows["token"], pipe.embedding.token.weight[walk.ids[2]] * 384**0.5)
    i = torch.arange(384, dtype=torch.float64)
    angle = 4999 / 10000 ** ((i - i % 2) / 384)
    expected = torch.where(i % 2 == 0, angle.sin(), angle.cos()).float()  # the formula, computed apart
    torch.testing.assert_close(placed.rows["position"], expected, atol=1e-6, rtol=0)


def test_each_recipe_adds_its_own_special_tokens(pipe):
    assert set(SPECIALS) == set(RECIPES)  # every recipe says what it adds
    assert pipe.specials == SPECIALS["bert"] == Specials(("[CLS]",), ("[SEP]",))  # read from MiniLM's tokenizer
    bert = Pipeline.fresh("bert").walk("the cat", pair="a dog")
    ours = pipe.walk("the cat", pair="a dog")  # the template rebuilt from SPECIALS is MiniLM's own
    assert (bert.pieces, bert.ids, bert.segment_ids, bert.special) == (
        ours.pieces,
        ours.ids,
        ours.segment_ids,
        ours.special,
    )
    assert bert.special == [True, False, False, True, False, False, True]
    for name in ("gpt2", "transformer"):  # nothing before or after, for one text or a pair
        fresh = Pipeline.fresh(name)
        walk = fresh.walk("the cat", pair="a dog")
        assert fresh.specials == Specials() and walk.pieces == ["the", "cat", "a", "dog"] and not any(walk.special)
    with pytest.raises(
        InvalidValueError, match="recipe 'llama' on minilm: the recipe adds '<s>', which the tokenizer's"
    ):
        Pipeline.fresh("llama")  # MiniLM's vocabulary has no <s>: refused rather than walked without it
