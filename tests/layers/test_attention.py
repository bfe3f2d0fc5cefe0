"""qk_scores, attention_weights, SelfAttention: a hand example, the √d_k story, and torch oracles
(nn.Linear, SDPA, MultiheadAttention)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import InvalidValueError
from embedlab.layers.attention import SelfAttention, attention_weights, qk_scores

# Hand example with small integers: float32 is exact up to the final division by √2.
HAND_ATOL = 1e-6
# softmax(scores) @ v against SDPA: the same float32 math, fused in a different order.
SDPA_ATOL = 1e-5
# Ratio of scaled to unscaled: one float64 division, so agreement to rounding.
RATIO_RTOL = 1e-12
# Sample variance from 256×256 scores with a fixed seed lands within ~5% of its expectation;
# the bounds leave room for other seeds and torch versions without losing the point.
VAR_LOW, VAR_HIGH = 0.75, 1.25

# Three tokens in D = 2 and projections to d_k = 2, chosen so every product is a small integer.
X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
W_Q = [[1.0, 0.0], [0.0, 2.0]]  # Q = X W_Q = [[1, 0], [0, 2], [1, 2]]
W_K = [[0.0, 1.0], [1.0, 0.0]]  # K = X W_K = [[0, 1], [1, 0], [1, 1]]
# Q Kᵀ, row i = query i against keys 0, 1, 2, worked by hand from the Q and K above.
QK_RAW = [[0.0, 1.0, 1.0], [2.0, 0.0, 2.0], [2.0, 1.0, 3.0]]


def _t(rows):
    return torch.tensor(rows)


def _random_setup(seed=0, B=2, T=5, D=8, d_k=12):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(B, T, D, generator=g)
    w_q, w_k = torch.randn(D, d_k, generator=g), torch.randn(D, d_k, generator=g)
    b_q, b_k = torch.randn(d_k, generator=g), torch.randn(d_k, generator=g)
    v = torch.randn(B, T, d_k, generator=g)
    return x, w_q, w_k, b_q, b_k, v


def test_hand_example():
    raw = qk_scores(_t(X), _t(W_Q), _t(W_K), scale=False)
    torch.testing.assert_close(raw, _t(QK_RAW), atol=HAND_ATOL, rtol=0)
    scaled = qk_scores(_t(X), _t(W_Q), _t(W_K))
    torch.testing.assert_close(scaled, _t(QK_RAW) / math.sqrt(2), atol=HAND_ATOL, rtol=0)
    # Not symmetric: query i against key j differs from query j against key i.
    assert raw[0, 1] != raw[1, 0]


def test_hand_example_with_biases():
    # b_q = [1, 0] shifts Q to [[2, 0], [1, 2], [2, 2]]; b_k = 0 leaves K.
    raw = qk_scores(_t(X), _t(W_Q), _t(W_K), b_q=_t([1.0, 0.0]), b_k=_t([0.0, 0.0]), scale=False)
    expected = [[0.0, 2.0, 2.0], [2.0, 1.0, 3.0], [2.0, 2.0, 4.0]]
    torch.testing.assert_close(raw, _t(expected), atol=HAND_ATOL, rtol=0)


def test_nn_linear_weights_are_passed_transposed():
    torch.manual_seed(0)
    lin_q, lin_k = nn.Linear(8, 6), nn.Linear(8, 6)
    x = torch.randn(3, 4, 8)
    with torch.no_grad():
        scores = qk_scores(x, lin_q.weight.T, lin_k.weight.T, lin_q.bias, lin_k.bias)
        expected = lin_q(x) @ lin_k(x).transpose(-2, -1) / math.sqrt(6)
    torch.testing.assert_close(scores, expected, atol=SDPA_ATOL, rtol=0)


@pytest.mark.parametrize("causal", [False, True])
def test_matches_scaled_dot_product_attention(causal):
    x, w_q, w_k, b_q, b_k, v = _random_setup()
    T = x.shape[1]
    mask = torch.ones(T, T, dtype=torch.bool).tril() if causal else None
    ours = attention_weights(qk_scores(x, w_q, w_k, b_q, b_k), mask) @ v  # (B, T, d_v)
    sdpa = F.scaled_dot_product_attention(x @ w_q + b_q, x @ w_k + b_k, v, is_causal=causal)
    torch.testing.assert_close(ours, sdpa, atol=SDPA_ATOL, rtol=0)


def test_multi_head_matches_scaled_dot_product_attention():
    x, w_q, w_k, b_q, b_k, v = _random_setup(seed=1, d_k=12)
    B, T, H = x.shape[0], x.shape[1], 3
    scores = qk_scores(x, w_q, w_k, b_q, b_k, n_heads=H)  # (B, H, T, T)
    assert scores.shape == (B, H, T, T)

    def heads(t):  # (B, T, 12) -> (B, H, T, 4), written independently of the module
        return t.view(B, T, H, 4).permute(0, 2, 1, 3)

    ours = attention_weights(scores) @ heads(v)  # (B, H, T, 4)
    sdpa = F.scaled_dot_product_attention(heads(x @ w_q + b_q), heads(x @ w_k + b_k), heads(v))
    torch.testing.assert_close(ours, sdpa, atol=SDPA_ATOL, rtol=0)
    # Head h uses only its own four columns, scaled by √4, not √12.
    h1 = (x @ w_q + b_q)[..., 4:8] @ (x @ w_k + b_k)[..., 4:8].transpose(-2, -1) / 2.0
    torch.testing.assert_close(scores[:, 1], h1, atol=SDPA_ATOL, rtol=0)


@pytest.mark.parametrize("d_k", [1, 4, 64])
def test_scaled_is_unscaled_over_sqrt_dk(d_k):
    g = torch.Generator().manual_seed(d_k)
    x = torch.randn(4, 6, 16, generator=g, dtype=torch.float64)
    w_q = torch.randn(16, d_k, generator=g, dtype=torch.float64)
    w_k = torch.randn(16, d_k, generator=g, dtype=torch.float64)
    raw = qk_scores(x, w_q, w_k, scale=False)
    scaled = qk_scores(x, w_q, w_k)
    ratio = raw / scaled
    torch.testing.assert_close(ratio, torch.full_like(raw, math.sqrt(d_k)), rtol=RATIO_RTOL, atol=0)


def test_variance_grows_with_dk_unless_scaled():
    g = torch.Generator().manual_seed(0)
    T, D = 256, 512
    var_raw, var_scaled = {}, {}
    for d_k in (4, 16, 64, 256):
        x = torch.randn(T, D, generator=g)  # unit-variance embeddings
        # Entries N(0, 1/D) keep every component of q and k at unit variance.
        w_q = torch.randn(D, d_k, generator=g) / math.sqrt(D)
        w_k = torch.randn(D, d_k, generator=g) / math.sqrt(D)
        var_raw[d_k] = qk_scores(x, w_q, w_k, scale=False).var().item()
        var_scaled[d_k] = qk_scores(x, w_q, w_k).var().item()
        assert VAR_LOW < var_raw[d_k] / d_k < VAR_HIGH, (d_k, var_raw[d_k])
        assert VAR_LOW < var_scaled[d_k] < VAR_HIGH, (d_k, var_scaled[d_k])
    assert var_raw[256] > 30 * var_raw[4]  # ~64× in expectation


def test_attention_weights_rows_and_mask():
    scores = torch.randn(2, 4, 4)
    w = attention_weights(scores)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 4))
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    wc = attention_weights(scores, causal)
    assert (wc.masked_select(~causal.expand(2, 4, 4)) == 0).all()
    torch.testing.assert_close(wc.sum(-1), torch.ones(2, 4))
    torch.testing.assert_close(wc[:, 0, 0], torch.ones(2))  # the first query sees only itself


def test_shape_errors_name_the_shapes():
    x = torch.zeros(2, 5, 8)
    w = torch.zeros(8, 6)
    with pytest.raises(InvalidValueError, match=r"D = 8.*\(2, 5, 8\).*\(7, 6\)"):
        qk_scores(x, torch.zeros(7, 6), w)
    with pytest.raises(InvalidValueError, match=r"\(8, 6\).*\(8, 4\)"):
        qk_scores(x, w, torch.zeros(8, 4))
    with pytest.raises(InvalidValueError, match=r"b_k must have shape \(6,\).*\(8,\)"):
        qk_scores(x, w, w, b_k=torch.zeros(8))
    with pytest.raises(InvalidValueError, match="d_k 6 is not divisible by n_heads 4"):
        qk_scores(x, w, w, n_heads=4)
    with pytest.raises(InvalidValueError, match=r"\(\.\.\., T, D\)"):
        qk_scores(torch.zeros(8), w, w)


def test_mask_errors():
    scores = torch.zeros(2, 4, 4)
    with pytest.raises(InvalidValueError, match="bool"):
        attention_weights(scores, torch.ones(4, 4))
    with pytest.raises(InvalidValueError, match=r"\(3, 3\).*\(2, 4, 4\)"):
        attention_weights(scores, torch.ones(3, 3, dtype=torch.bool))


def test_self_attention_equals_torch_multihead_attention():
    torch.manual_seed(0)
    attn = SelfAttention(dim=16, n_heads=4)
    mha = torch.nn.MultiheadAttention(16, 4, batch_first=True)
    with torch.no_grad():  # the same four projections, packed as torch packs them
        mha.in_proj_weight.copy_(torch.cat([attn.query.weight, attn.key.weight, attn.value.weight]))
        mha.in_proj_bias.copy_(torch.cat([attn.query.bias, attn.key.bias, attn.value.bias]))
        mha.out_proj.weight.copy_(attn.dense.weight)
        mha.out_proj.bias.copy_(attn.dense.bias)
    x = torch.randn(2, 5, 16)
    mask = torch.tensor([[True] * 5, [True, True, True, False, False]])  # the second row has 2 padded keys
    out, weights = attn(x, mask)
    ref, ref_weights = mha(x, x, x, key_padding_mask=~mask, need_weights=True, average_attn_weights=False)
    assert out.shape == (2, 5, 16) and weights.shape == (2, 4, 5, 5)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(weights, ref_weights)
    assert (weights[1, :, :, 3:] == 0).all()


def test_self_attention_errors():
    with pytest.raises(InvalidValueError, match="dim 10 is not divisible by n_heads 4"):
        SelfAttention(10, 4)
    attn = SelfAttention(8, 2)
    with pytest.raises(InvalidValueError, match=r"mask must be a bool tensor of shape \(1, 3\)"):
        attn(torch.randn(1, 3, 8), torch.ones(1, 3))
