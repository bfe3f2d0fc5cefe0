"""T5's relative position bias: transformers' T5Attention as the oracle (randomly initialised, no
weights downloaded), buckets worked by hand, and the bias flowing through SelfAttention."""

from __future__ import annotations

import math

import pytest
import torch
import transformers
from transformers.models.t5.modeling_t5 import T5Attention

from embedlab.errors import InvalidValueError
from embedlab.layers.attention import SelfAttention
from embedlab.layers.relative import RelativePositionBias, relative_position_bucket

# SelfAttention against T5Attention: the same float32 products, summed in a different order.
ATTENTION_ATOL = 1e-5
# Offsets far past max_distance, both ways, to reach the last buckets.
OFFSETS = torch.arange(-1500, 1501)


def _t5_attention(n_heads: int, causal: bool, num_buckets: int = 32, max_distance: int = 128) -> T5Attention:
    config = transformers.T5Config(
        vocab_size=10,
        d_model=16,
        d_kv=16 // n_heads,  # SelfAttention's heads split D: H · d_kv = 16 where H divides it
        num_heads=n_heads,
        relative_attention_num_buckets=num_buckets,
        relative_attention_max_distance=max_distance,
        is_decoder=causal,
        dropout_rate=0.0,
    )
    config._attn_implementation = "eager"  # the plain softmax path, which returns its weights
    torch.manual_seed(0)
    return T5Attention(config, has_relative_attention_bias=True, layer_idx=0).eval()


def _copy_of(t5: T5Attention, causal: bool) -> RelativePositionBias:
    c = t5.config
    ours = RelativePositionBias(
        c.num_heads, not causal, c.relative_attention_num_buckets, c.relative_attention_max_distance
    )
    with torch.no_grad():
        ours.relative_attention_bias.weight.copy_(t5.relative_attention_bias.weight)
    return ours


@pytest.mark.parametrize("causal", [False, True], ids=["encoder", "decoder"])
@pytest.mark.parametrize("num_buckets, max_distance", [(32, 128), (16, 40), (33, 128)])
@pytest.mark.parametrize("q, k, offset", [(7, 7, 0), (1, 300, 0), (300, 300, 0), (4, 260, 200)])
def test_bias_equals_t5_compute_bias(causal, num_buckets, max_distance, q, k, offset):
    t5 = _t5_attention(3, causal, num_buckets, max_distance)
    ours = _copy_of(t5, causal)
    expected = t5.compute_bias(q, k, past_seen_tokens=offset)  # (1, H, q, k)
    got = ours(q, k, offset)
    assert got.shape == (1, 3, q, k)
    assert torch.equal(got, expected)  # the same rows looked up: bit for bit


@pytest.mark.parametrize("bidirectional, differ", [(True, []), (False, [(83, 1000)])])
def test_bucket_ids_equal_transformers_over_a_grid_of_settings(bidirectional, differ):
    """Every setting of the grid gives transformers' buckets at every offset in ±1500, but one: the
    float32 rounding tested below (our bucket is the exact one there)."""
    checked, disagree = 0, []
    for num_buckets in range(4, 130):
        n = num_buckets // 2 if bidirectional else num_buckets
        for max_distance in sorted({n // 2 + 1, n, 20, 64, 128, 500, 1000, 2048}):
            if max_distance <= n // 2:
                continue
            ours = relative_position_bucket(OFFSETS, bidirectional, num_buckets, max_distance)
            theirs = T5Attention._relative_position_bucket(OFFSETS, bidirectional, num_buckets, max_distance)
            if not torch.equal(ours, theirs):
                disagree.append((num_buckets, max_distance))
            checked += 1
    assert disagree == differ
    assert checked > 900


def test_t5s_own_settings_agree_at_every_distance_up_to_100k():
    offsets = torch.arange(-100_000, 100_001)
    for bidirectional in (True, False):
        theirs = T5Attention._relative_position_bucket(offsets, bidirectional, 32, 128)
        assert torch.equal(relative_position_bucket(offsets, bidirectional), theirs)


def test_where_float32_rounds_up_the_buckets_stay_exact():
    # 83 causal buckets (41 exact), max distance 1000, a key 796 back: 42 · ln(796/41) / ln(1000/41)
    # is 38.999998..., so the bucket is 41 + 38; in float32 the quotient rounds to 39.0.
    exact, m = 41, 42
    assert 796**m * exact**38 >= 1000**38 * exact**m  # 796 reaches bucket 41 + 38 ...
    assert 796**m * exact**39 < 1000**39 * exact**m  # ... but not 41 + 39
    offset = torch.tensor([-796])
    assert relative_position_bucket(offset, False, 83, 1000).item() == 41 + 38
    assert T5Attention._relative_position_bucket(offset, False, 83, 1000).item() == 41 + 39


def test_hand_worked_buckets_with_t5s_defaults():
    # Bidirectional: 16 buckets a side, 0..7 exact; bucket 8 + j starts at ⌈8 · 16^(j/8)⌉ = ⌈8 · √2^j⌉:
    # 12, 16, 23, 32, 46, 64, 91 (8 · √2 = 11.3, 8 · 2√2 = 22.6, 8 · 4√2 = 45.3, 8 · 8√2 = 90.5).
    back = {0: 0, 1: 1, 7: 7, 8: 8, 11: 8, 12: 9, 15: 9, 16: 10, 20: 10, 22: 10, 23: 11, 31: 11}
    back |= {32: 12, 45: 12, 46: 13, 63: 13, 64: 14, 90: 14, 91: 15, 128: 15, 10_000: 15}
    for distance, bucket in back.items():
        behind = relative_position_bucket(torch.tensor([-distance])).item()
        ahead = relative_position_bucket(torch.tensor([distance])).item()
        assert behind == bucket, distance
        assert ahead == (bucket + 16 if distance else 0), distance  # keys ahead: the upper 16
    # Causal: 32 buckets behind, 0..15 exact; bucket 16 + j starts at ⌈16 · 8^(j/16)⌉:
    # j = 1: 16 · 1.139 = 18.2 -> 19; j = 2: 16 · 1.297 = 20.8 -> 21; 127 is ⌊16 · 0.9962⌋ = 15 in: 31.
    causal = {0: 0, 15: 15, 16: 16, 18: 16, 19: 17, 20: 17, 21: 18, 127: 31, 128: 31, 5000: 31}
    for distance, bucket in causal.items():
        assert relative_position_bucket(torch.tensor([-distance]), bidirectional=False).item() == bucket, distance
    ahead = relative_position_bucket(torch.tensor([1, 5, 500]), bidirectional=False)
    assert ahead.tolist() == [0, 0, 0]  # the future is masked in a decoder: one bucket will do


def test_bias_depends_only_on_the_offset_and_reads_the_table():
    bias = RelativePositionBias(n_heads=4, bidirectional=True)
    b = bias(9, 12)[0]  # (H, q, k)
    assert torch.equal(b[:, 1:, 1:], b[:, :-1, :-1])  # shifting query and key together changes nothing
    weight = bias.relative_attention_bias.weight  # (buckets, H)
    assert torch.equal(b[:, 0, 0], weight[0]) and torch.equal(b[:, 0, 3], weight[19])  # 3 ahead: 16 + 3
    assert torch.equal(b[:, 8, 0], weight[8])  # 8 back: the first log bucket


def test_only_the_buckets_used_get_gradient():
    bias = RelativePositionBias(n_heads=2, bidirectional=False)
    bias(5, 5).sum().backward()  # offsets -4..4: causal buckets 0..4 only
    grad = bias.relative_attention_bias.weight.grad
    assert grad[:5].abs().sum(dim=1).gt(0).all() and grad[5:].abs().sum() == 0
    assert grad[1].tolist() == [4.0, 4.0]  # offset -1 occurs 4 times in a 5 × 5 grid, once per head


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n_heads=0), "n_heads must be >= 1; got 0"),
        (dict(n_heads=2, num_buckets=3), "num_buckets must be >= 4; got 3"),
        (dict(n_heads=2, num_buckets=1, bidirectional=False), "num_buckets must be >= 2; got 1"),
        (dict(n_heads=2, max_distance=8), "max_distance must be >= 9; got 8"),  # 8 buckets exact a side
        (dict(n_heads=2, max_distance=16, bidirectional=False), "max_distance must be >= 17; got 16"),
        (dict(n_heads=2, bidirectional="yes"), "bidirectional must be True or False; got 'yes'"),
        (dict(n_heads=2, std=-1.0), "std must be >= 0.0; got -1.0"),
    ],
)
def test_bad_settings_name_the_value_and_range(kwargs, message):
    with pytest.raises(InvalidValueError, match=message):
        RelativePositionBias(**kwargs)


def test_bad_calls_name_the_value_and_range():
    bias = RelativePositionBias(n_heads=2)
    with pytest.raises(InvalidValueError, match="query_length must be >= 1; got 0"):
        bias(0, 4)
    with pytest.raises(InvalidValueError, match="key_length must be an integer; got 2.5"):
        bias(3, 2.5)
    with pytest.raises(InvalidValueError, match="offset must be >= 0; got -1"):
        bias(3, 3, offset=-1)
    with pytest.raises(InvalidValueError, match="relative positions must have an integer dtype; got torch.float32"):
        relative_position_bucket(torch.tensor([1.0]))
    with pytest.raises(InvalidValueError, match="relative_position must be an integer tensor; got list"):
        relative_position_bucket([1, 2])


@pytest.mark.parametrize("causal", [False, True], ids=["encoder", "decoder"])
def test_self_attention_with_the_bias_equals_t5_attention(causal):
    """T5's attention is SelfAttention without biases or 1/√d_k (T5 folds that into W_Q's init),
    with the relative bias added to the scores: copied over, the two give the same output."""
    t5 = _t5_attention(2, causal)
    d_kv, T = t5.key_value_proj_dim, 6
    ours = SelfAttention(16, 2).eval()
    with torch.no_grad():
        for mine, theirs in ((ours.query, t5.q), (ours.key, t5.k), (ours.value, t5.v), (ours.dense, t5.o)):
            mine.weight.copy_(theirs.weight)
            mine.bias.zero_()
        ours.query.weight.mul_(math.sqrt(d_kv))  # undoes SelfAttention's division by √d_kv
    bias = _copy_of(t5, causal)(T, T)  # (1, H, T, T)
    x = torch.randn(2, T, 16, generator=torch.Generator().manual_seed(1))
    mask = None
    if causal:  # T5 takes an additive mask; SelfAttention's bias takes it the same way
        bias = bias + torch.full((T, T), float("-inf")).triu(1)
        mask = torch.zeros(1, 1, T, T).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    expected, _, expected_weights = t5(x, mask=mask)
    out, weights = ours(x, bias=bias)
    torch.testing.assert_close(weights, expected_weights, atol=ATTENTION_ATOL, rtol=0)
    torch.testing.assert_close(out, expected, atol=ATTENTION_ATOL, rtol=0)
    if causal:
        assert weights[..., 0, 1:].eq(0).all()  # the first token sees only itself
    else:
        _, no_bias = ours(x)
        assert not torch.allclose(weights, no_bias, atol=ATTENTION_ATOL)  # the bias changed the weights


def test_self_attention_bias_errors():
    attention = SelfAttention(8, 2)
    x = torch.randn(1, 3, 8)
    with pytest.raises(InvalidValueError, match=r"bias must be a float tensor that broadcasts to the scores' shape"):
        attention(x, bias=torch.zeros(1, 2, 4, 4))
    with pytest.raises(InvalidValueError, match=r"got a tensor of shape \(1, 2, 3, 3\) and dtype torch.int64"):
        attention(x, bias=torch.zeros(1, 2, 3, 3, dtype=torch.long))
    out, _ = attention(x, bias=RelativePositionBias(2)(3, 3))  # (1, H, T, T) broadcasts over B
    assert out.shape == (1, 3, 8)
