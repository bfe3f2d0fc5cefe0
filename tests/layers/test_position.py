"""Learned, sinusoidal and rotary positions: formulas, magnitudes, and the HF Llama oracle."""

from __future__ import annotations

import math

import pytest
import torch

from embedlab.errors import InvalidValueError
from embedlab.layers.position import (
    POSITIONS,
    LearnedPositions,
    RotaryPositions,
    SinusoidalPositions,
    sinusoidal_table,
)

FP32 = 1e-5  # float32 trigonometry and products of unit-scale numbers


@pytest.mark.parametrize("dim", [4, 7, 64])
def test_sinusoidal_matches_the_formula_entry_by_entry(dim):
    pe = SinusoidalPositions(50, dim).table
    for pos in (0, 1, 13, 49):
        for j in range(dim):
            i2 = j - j % 2  # 2i for both members of a pair
            angle = pos / 10000 ** (i2 / dim)
            expected = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            assert pe[pos, j].item() == pytest.approx(expected, abs=1e-6)


def test_sinusoidal_is_a_non_persistent_buffer():
    module = SinusoidalPositions(16, 8)
    assert list(module.parameters()) == []
    assert "table" not in module.state_dict()
    torch.testing.assert_close(module(torch.tensor([[0, 3]])), module.table[[0, 3]][None])


def test_sinusoidal_norm_is_sqrt_half_d():
    # Lesson chapter 5: each (sin, cos) pair has squared norm 1, so ‖PE[pos]‖ = √(D/2) = 16 for D = 512.
    norms = sinusoidal_table(200, 512).norm(dim=1)
    torch.testing.assert_close(norms, torch.full((200,), 16.0, dtype=torch.float64))


def test_learned_positions_lookup_gradient_and_length_check():
    pos = LearnedPositions(8, 4)
    out = pos(torch.arange(5))
    torch.testing.assert_close(out, pos.weight[:5])
    out.sum().backward()
    assert torch.all(pos.weight.grad[5:] == 0) and torch.all(pos.weight.grad[:5] == 1)
    with pytest.raises(InvalidValueError, match="position 9 needs a sequence of 10 tokens but max_len is 8"):
        pos(torch.arange(10))
    with pytest.raises(InvalidValueError, match="position -1 is out of range: max_len is 8"):
        pos(torch.tensor([-1, 2]))
    with pytest.raises(InvalidValueError, match="integer dtype"):
        pos(torch.tensor([0.5]))


def test_registry_modules_share_one_signature():
    positions = torch.tensor([[0, 1, 2], [3, 4, 5]])
    for name, cls in POSITIONS.items():
        module = cls(16, 6)
        assert module(positions).shape == (2, 3, 6), name
        with pytest.raises(InvalidValueError, match="max_len is 16"):
            module(torch.tensor([16]))


def test_rotary_dot_product_depends_only_on_offset():
    torch.manual_seed(0)
    rope = RotaryPositions(16)
    q, k = torch.randn(16), torch.randn(16)

    def score(m: int, n: int) -> float:
        # the same q content at position m, the same k content at position n
        qs, ks = q.expand(max(m, n) + 1, 16), k.expand(max(m, n) + 1, 16)
        rq, rk = rope(qs, ks)
        return (rq[m] @ rk[n]).item()

    for m, n in [(5, 2), (9, 1), (3, 3)]:
        for shift in (1, 7, 20):
            assert score(m + shift, n + shift) == pytest.approx(score(m, n), abs=FP32)
    assert score(5, 2) != pytest.approx(score(5, 3), abs=1e-3)  # a different offset scores differently


def test_rotary_preserves_norms_and_leaves_position_zero_alone():
    rope = RotaryPositions(8)
    q = torch.randn(2, 4, 10, 8)
    rq, rk = rope(q, q)
    torch.testing.assert_close(rq.norm(dim=-1), q.norm(dim=-1))
    torch.testing.assert_close(rq[..., 0, :], q[..., 0, :])
    torch.testing.assert_close(rq, rk)


def test_rotary_equals_huggingface_llama():
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    B, H, T, d_head = 2, 3, 11, 16
    config = LlamaConfig(hidden_size=H * d_head, num_attention_heads=H, rope_theta=10000.0, max_position_embeddings=64)
    hf_rope = LlamaRotaryEmbedding(config)
    q, k = torch.randn(B, H, T, d_head), torch.randn(B, H, T, d_head)
    positions = torch.arange(T).expand(B, T)
    cos, sin = hf_rope(q, positions)
    hq, hk = apply_rotary_pos_emb(q, k, cos, sin)
    ours_q, ours_k = RotaryPositions(d_head)(q, k, positions)
    torch.testing.assert_close(ours_q, hq, atol=FP32, rtol=0)
    torch.testing.assert_close(ours_k, hk, atol=FP32, rtol=0)


def test_rotary_bad_arguments():
    with pytest.raises(InvalidValueError, match="d_head must be even for rotary positions; got 7"):
        RotaryPositions(7)
    with pytest.raises(InvalidValueError, match="q has last dimension 6; this RotaryPositions has d_head 8"):
        RotaryPositions(8)(torch.randn(3, 6), torch.randn(3, 6))


@pytest.mark.parametrize("cls", [LearnedPositions, SinusoidalPositions])
def test_bad_sizes(cls):
    with pytest.raises(InvalidValueError, match="max_len must be >= 1; got 0"):
        cls(0, 4)
    with pytest.raises(InvalidValueError, match="dim must be >= 1; got 0"):
        cls(4, 0)


def test_rotary_positions_must_be_integers_covering_every_token():
    rope = RotaryPositions(8)
    q = torch.randn(3, 8)
    with pytest.raises(InvalidValueError, match="positions must have an integer dtype; got torch.float32"):
        rope(q, q, torch.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(InvalidValueError, match="positions cover 2 tokens but q and k have T = 3"):
        rope(q, q, torch.tensor([0, 1]))
    shifted, _ = rope(q, q, torch.tensor([5, 6, 7]))
    assert not torch.allclose(shifted, rope(q, q)[0])
