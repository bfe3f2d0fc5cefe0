"""InputEmbedding recipes: each one's parts, its sum, and the lessons' worked numbers."""

from __future__ import annotations

import math

import pytest
import torch
import transformers

from embedlab.errors import InvalidValueError, UnknownNameError
from embedlab.layers.position import SinusoidalPositions
from embedlab.layers.recipes import RECIPES, InputEmbedding, recipe
from embedlab.layers.relative import RelativePositionBias

V, D = 100, 16
FP32 = 1e-6  # sums of a handful of float32 numbers of order 1


def _ids(B: int = 2, T: int = 5) -> torch.Tensor:
    return torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_recipe_runs_forward_and_backward(name):
    emb = InputEmbedding.from_recipe(name, V, D)
    out = emb(_ids())
    assert out.shape == (2, 5, D)
    out.pow(2).sum().backward()
    assert emb.token.weight.grad is not None and emb.token.weight.grad.abs().sum() > 0


def test_bert_is_layernorm_of_token_plus_position_plus_segment():
    emb = InputEmbedding.from_recipe("bert", V, D).eval()
    ids, seg = _ids(), torch.tensor([[0, 0, 0, 1, 1], [0, 1, 1, 1, 1]])
    parts = emb.addends(ids, seg)
    expected_total = emb.token.weight[ids] + emb.position.weight[:5] + emb.segment.weight[seg]
    torch.testing.assert_close(parts.total, expected_total, atol=FP32, rtol=0)
    expected = torch.nn.functional.layer_norm(expected_total, (D,), emb.norm.weight, emb.norm.bias, eps=1e-12)
    torch.testing.assert_close(parts.output, expected, atol=FP32, rtol=0)
    # no segment ids: everything is sentence A, as in BERT
    torch.testing.assert_close(emb(ids), emb(ids, torch.zeros_like(ids)))
    assert isinstance(emb.dropout, torch.nn.Dropout) and emb.dropout.p == 0.1


def test_gpt2_is_token_plus_learned_position():
    emb = InputEmbedding.from_recipe("gpt2", V, D)
    ids = _ids()
    assert emb.segment is None and isinstance(emb.norm, torch.nn.Identity)
    assert emb.config.max_len == 1024
    torch.testing.assert_close(emb(ids), emb.token.weight[ids] + emb.position.weight[:5])


def test_transformer_scales_tokens_by_sqrt_d_and_adds_sinusoids():
    emb = InputEmbedding.from_recipe("transformer", V, D)
    ids = _ids()
    assert isinstance(emb.position, SinusoidalPositions)
    expected = emb.token.weight[ids] * math.sqrt(D) + emb.position.table[:5]
    torch.testing.assert_close(emb(ids), expected, atol=FP32, rtol=0)


def test_llama_adds_nothing_and_gemma_only_scales():
    ids = _ids()
    llama = InputEmbedding.from_recipe("llama", V, D)
    assert llama.position is None and llama.segment is None
    torch.testing.assert_close(llama(ids), llama.token.weight[ids])
    with pytest.raises(InvalidValueError, match="rotary positions are applied to q and k"):
        llama(ids, positions=torch.arange(5))
    gemma = InputEmbedding.from_recipe("gemma", V, D)
    torch.testing.assert_close(gemma(ids), gemma.token.weight[ids] * 4.0)  # √16


@pytest.mark.parametrize(
    "name, addends",
    [
        ("bert", ("token", "position", "segment")),
        ("gpt2", ("token", "position")),
        ("llama", ("token",)),
        ("t5", ("token",)),
    ],
)
def test_each_recipe_names_its_addends(name, addends):
    emb = InputEmbedding.from_recipe(name, V, D).eval()
    assert emb.addend_names == addends
    ids = _ids()
    everything = emb.addends(ids)
    assert torch.equal(emb.addends(ids, include=addends).output, everything.output)  # the default is all of them


def test_bert_without_position_is_layernorm_of_token_plus_segment():
    emb = InputEmbedding.from_recipe("bert", V, D).eval()
    ids, seg = torch.tensor([[7, 3, 7, 7]]), torch.tensor([[0, 0, 0, 1]])
    parts = emb.addends(ids, seg, include=["segment", "token"])  # any order: summed in the recipe's
    assert parts.position is None and torch.equal(parts.token, emb.token.weight[ids])
    torch.testing.assert_close(parts.total, emb.token.weight[ids] + emb.segment.weight[seg], atol=0, rtol=0)
    expected = torch.nn.functional.layer_norm(parts.total, (D,), emb.norm.weight, emb.norm.bias, eps=1e-12)
    torch.testing.assert_close(parts.output, expected, atol=FP32, rtol=0)
    x = parts.output[0]  # (T, D): token 7 at positions 0 and 2, same segment -> the same row
    assert torch.equal(x[0], x[2]) and not torch.equal(x[0], x[3])  # segment B still tells 3 apart
    with_position = emb(ids, seg)[0]
    assert not torch.equal(with_position[0], with_position[2])


def test_position_alone_is_the_same_for_any_ids():
    emb = InputEmbedding.from_recipe("gpt2", V, D)
    a = emb.addends(torch.tensor([[1, 2, 3], [4, 5, 6]]), include=("position",))
    b = emb.addends(torch.tensor([[9, 9, 9], [0, 0, 0]]), include=("position",))
    assert a.token is None and a.total.shape == (2, 3, D)  # the (T, D) rows stand for every batch row
    assert torch.equal(a.output, b.output) and torch.equal(a.total[1], emb.position.weight[:3])
    with pytest.raises(InvalidValueError, match="token id 100 is out of range"):  # ids are still checked
        emb.addends(torch.tensor([[100]]), include=("position",))


@pytest.mark.parametrize(
    "name, include, message",
    [
        ("bert", (), "the sum needs at least one addend of token, position, segment; got none"),
        ("gpt2", ("token", "segment"), "'segment' is not an addend of this recipe; its addends: token, position"),
        ("llama", ("position",), "'position' is not an addend of this recipe; its addends: token"),
        ("bert", "tok", "'tok' is not an addend of this recipe"),
    ],
)
def test_include_names_are_checked(name, include, message):
    with pytest.raises(InvalidValueError, match=message):
        InputEmbedding.from_recipe(name, V, D).addends(_ids(), include=include)


# The lesson's "who scales" table (001 ch. 5): the factor each family multiplies its token rows by.
WHO_SCALES = {"transformer": math.sqrt(D), "gemma": math.sqrt(D), "bert": 1.0, "gpt2": 1.0, "llama": 1.0, "t5": 1.0}


def test_who_scales_is_the_lessons_table():
    assert set(WHO_SCALES) == set(RECIPES)  # every recipe has its row
    ids = _ids()
    for name, factor in WHO_SCALES.items():
        emb = InputEmbedding.from_recipe(name, V, D)
        torch.testing.assert_close(emb.addends(ids).token, emb.token.weight[ids] * factor, atol=FP32, rtol=0)


def test_t5_adds_nothing_and_puts_its_positions_in_attention():
    t5 = InputEmbedding.from_recipe("t5", V, D).eval()  # eval: no dropout noise
    ids = _ids()
    assert t5.position is None and t5.segment is None and isinstance(t5.norm, torch.nn.Identity)
    assert torch.equal(t5(ids), t5.token.weight[ids])  # no √D, no position rows, no LayerNorm
    assert isinstance(t5.dropout, torch.nn.Dropout) and t5.dropout.p == 0.1  # T5's dropout_rate
    with pytest.raises(InvalidValueError, match="relative ones as a bias on its scores"):
        t5(ids, positions=torch.arange(5))
    encoder, decoder = t5.make_position_bias(4), t5.make_position_bias(4, bidirectional=False)
    assert isinstance(encoder, RelativePositionBias) and encoder(5, 5).shape == (1, 4, 5, 5)
    assert (encoder.bidirectional, decoder.bidirectional) == (True, False)
    assert (encoder.num_buckets, encoder.max_distance) == (32, 128)
    with pytest.raises(InvalidValueError, match="recipe positions='rotary' has no attention bias"):
        InputEmbedding.from_recipe("llama", V, D).make_position_bias(4)


def test_t5_initialises_as_transformers_t5():
    """T5 needs no √D: its shared table starts at std 1 (rows ≈ √D long), its bias at std D^-0.5;
    the same as a randomly initialised transformers T5EncoderModel."""
    vocab, dim, heads = 4000, 64, 64  # 256,000 table entries and 2,048 bias entries to estimate std from
    config = transformers.T5Config(vocab_size=vocab, d_model=dim, d_kv=1, d_ff=8, num_layers=1, num_heads=heads)
    torch.manual_seed(0)
    theirs = transformers.T5EncoderModel(config)
    their_bias = theirs.encoder.block[0].layer[0].SelfAttention.relative_attention_bias.weight
    ours = InputEmbedding.from_recipe("t5", vocab, dim)
    our_bias = ours.make_position_bias(heads).relative_attention_bias.weight
    # standard errors: 1/√(2 · 256,000) = 0.14% for the tables, 1/√(2 · 2048) = 1.6% for the biases
    for table in (theirs.shared.weight, ours.token.weight):
        assert table.std().item() == pytest.approx(1.0, rel=0.01)
    for bias in (their_bias, our_bias):
        assert bias.shape == (32, heads) and bias.std().item() == pytest.approx(dim**-0.5, rel=0.07)
    row_norm = ours.token.weight.norm(dim=-1).mean().item()
    assert row_norm == pytest.approx(math.sqrt(dim), rel=0.02)  # what √D scaling gives the other recipes
    for name in ("bert", "gpt2"):  # the other recipes start at std 0.02: their rows are 0.02·√D long
        std = InputEmbedding.from_recipe(name, vocab, dim).token.weight.std().item()
        assert std == pytest.approx(0.02, rel=0.01)


def test_gemma_bf16_factor_is_55_5():
    assert round(math.sqrt(3072), 2) == 55.43  # the factor, which bf16 cannot hold
    gemma = InputEmbedding.from_recipe("gemma", 8, 3072, dtype=torch.bfloat16)
    with torch.no_grad():
        gemma.token.weight.fill_(1.0)
    assert torch.all(gemma(torch.tensor([[1, 2]])) == 55.5)


def test_heads_follow_the_family():
    for name, tied in [("gpt2", True), ("bert", True), ("gemma", True), ("llama", False), ("t5", True)]:
        emb = InputEmbedding.from_recipe(name, V, D)
        head = emb.make_head()
        assert head.tied is tied
        assert (head.weight is emb.token.weight) is tied


def test_lesson_scale_example():
    # Lesson chapter 5, D = 4: e + p washes the token out; 2e + p keeps it visible.
    e = torch.tensor([[0.3, -0.5, 0.2, 0.4]])
    p = torch.tensor([0.84, 0.54, 0.91, -0.42])
    plain = InputEmbedding.from_recipe("gpt2", 1, 4, max_len=4)
    scaled = InputEmbedding.from_recipe("gpt2", 1, 4, max_len=4, scale="sqrt_d")
    for emb in (plain, scaled):
        with torch.no_grad():
            emb.token.weight.copy_(e)
            emb.position.weight[0].copy_(p)
    ids, at0 = torch.tensor([[0]]), torch.tensor([0])
    torch.testing.assert_close(plain(ids, positions=at0)[0, 0], torch.tensor([1.14, 0.04, 1.11, -0.02]))
    torch.testing.assert_close(scaled(ids, positions=at0)[0, 0], torch.tensor([1.44, -0.46, 1.31, 0.38]))
    # the lesson rounds the squares before summing, hence its 1.418 for 1.4148
    assert e.norm().item() == pytest.approx(0.735, abs=1e-3) and p.norm().item() == pytest.approx(1.418, abs=5e-3)


def test_lesson_magnitude_balance_at_d_512():
    # Tokens initialised with std 1/√D have norm ≈ 1; sinusoids have norm √(D/2) = 16;
    # scaling tokens by √D brings the ratio from 1:16 to about 1:0.7.
    torch.manual_seed(0)
    d = 512
    plain = InputEmbedding.from_recipe("transformer", 1000, d, scale=None, std=1 / math.sqrt(d))
    scaled = InputEmbedding.from_recipe("transformer", 1000, d, std=1 / math.sqrt(d))
    ids = torch.arange(1000)[None]
    tok_plain = plain.addends(ids[:, :200]).token.norm(dim=-1).mean().item()
    tok_scaled = scaled.addends(ids[:, :200]).token.norm(dim=-1).mean().item()
    pos = scaled.addends(ids[:, :200]).position.norm(dim=-1)
    assert tok_plain == pytest.approx(1.0, rel=0.05)
    torch.testing.assert_close(pos, torch.full_like(pos, 16.0))
    assert tok_scaled == pytest.approx(math.sqrt(d), rel=0.05)


def test_positions_and_segments_checks():
    bert = InputEmbedding.from_recipe("bert", V, D, max_len=8)
    with pytest.raises(InvalidValueError, match="position 8 needs a sequence of 9 tokens but max_len is 8"):
        bert(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(InvalidValueError, match="segment id 2 is out of range: n_segments is 2"):
        bert(torch.zeros(1, 3, dtype=torch.long), torch.tensor([[0, 1, 2]]))
    with pytest.raises(InvalidValueError, match="token id 100 is out of range: vocab_size is 100"):
        bert(torch.tensor([[1, 100]]))
    gpt2 = InputEmbedding.from_recipe("gpt2", V, D)
    with pytest.raises(InvalidValueError, match="no segment table"):
        gpt2(torch.zeros(1, 3, dtype=torch.long), torch.zeros(1, 3, dtype=torch.long))
    # explicit positions: the same token moved along the sequence
    ids = torch.tensor([[5, 5]])
    out = gpt2(ids, positions=torch.tensor([3, 7]))
    torch.testing.assert_close(out[0, 1] - out[0, 0], gpt2.position.weight[7] - gpt2.position.weight[3])


def test_unknown_recipe_and_bad_config():
    known = "known: bert, gemma, gpt2, llama, t5, transformer"
    with pytest.raises(UnknownNameError, match=f"unknown recipe 'bart'; {known}"):
        recipe("bart", V, D)
    with pytest.raises(InvalidValueError, match="'heads' is not an EmbeddingConfig field"):
        recipe("bert", V, D, heads=4)
    kinds = "learned, sinusoidal, rotary, relative, none"
    with pytest.raises(InvalidValueError, match=f"positions must be one of {kinds}; got 'ali"):
        recipe("bert", V, D, positions="alibi")
    with pytest.raises(InvalidValueError, match="dropout must be between 0.0 and 1.0; got 1.5"):
        recipe("bert", V, D, dropout=1.5)


def test_addends_must_line_up_with_ids():
    bert = InputEmbedding.from_recipe("bert", V, D).eval()  # eval: no dropout noise
    ids = torch.tensor([[1, 2, 3]])
    mismatch = r"segment_ids must have shape \(1, 3\) to match ids \(1, 3\); got \(1, 1\)"
    with pytest.raises(InvalidValueError, match=mismatch):
        bert(ids, torch.tensor([[0]]))
    with pytest.raises(InvalidValueError, match=r"positions must have shape \(3,\) or \(1, 3\)"):
        bert(ids, positions=torch.tensor([0, 1]))
    torch.testing.assert_close(bert(ids, positions=torch.tensor([[0, 1, 2]])), bert(ids))


def test_concatenated_rows_lie_side_by_side_and_make_x_k_times_wider():
    emb = InputEmbedding.from_recipe("bert", 50, 8, combine="concat", dropout=0.0)
    ids, segments = torch.randint(0, 50, (2, 5)), torch.randint(0, 2, (2, 5))
    parts = emb.addends(ids, segments)
    rows = [emb.token(ids), emb.position(torch.arange(5)).expand(2, 5, 8), emb.segment(segments)]
    assert emb.width == 24 and tuple(emb.norm.normalized_shape) == (24,)
    torch.testing.assert_close(parts.total, torch.cat(rows, dim=-1), rtol=0, atol=0)  # a copy: exact
    torch.testing.assert_close(parts.output, torch.nn.functional.layer_norm(parts.total, (24,), eps=1e-12))
    with pytest.raises(InvalidValueError, match="concat lays every addend side by side at width 24"):
        emb.addends(ids, segments, include=("token", "position"))
    with pytest.raises(InvalidValueError, match=r"tied head .* \(V, 8\) token table; concat makes them 24 wide"):
        emb.make_head()
    head = InputEmbedding.from_recipe("gpt2", 50, 8, combine="concat", tied_head=False).make_head()
    assert tuple(head.weight.shape) == (50, 16)  # [token | position]: 2 × 8
    assert InputEmbedding.from_recipe("llama", 50, 8, combine="concat").width == 8  # rotary adds no rows
    with pytest.raises(InvalidValueError, match="combine"):
        recipe("gpt2", 50, 8, combine="stack")
