"""Scale balance: token rows × a factor against sinusoid rows, checked against closed forms and an
independent NumPy computation of the same draws."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from embedlab.errors import InvalidValueError
from embedlab.files import json_safe
from embedlab.sims.scale import INIT_STDS, MAX_DIM, MAX_FACTOR, balance, scale_balance

FP64 = 1e-12  # float64 sums of at most a few thousand terms of order 1


def chi_mean(dim: int, std: float) -> float:
    """E‖x‖ for x ~ N(0, std² I_D): std·√2·Γ((D+1)/2)/Γ(D/2), slightly below std·√D."""
    return std * math.sqrt(2) * math.exp(math.lgamma((dim + 1) / 2) - math.lgamma(dim / 2))


def sinusoids(positions: np.ndarray, dim: int) -> np.ndarray:
    """PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(same), straight from the formula."""
    i = np.arange(dim)
    angle = positions[:, None] / 10000.0 ** ((i - i % 2) / dim)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle))


@pytest.mark.parametrize("dim", [16, 512, 2048])
def test_sinusoid_rows_have_norm_sqrt_half_d_exactly(dim):
    b = scale_balance(dim)
    assert b.position_norm == pytest.approx(math.sqrt(dim / 2), rel=FP64)
    assert b.expected_position_norm == math.sqrt(dim / 2)


@pytest.mark.parametrize("dim, init", [(16, "inv_sqrt_d"), (512, "gpt2"), (384, "torch")])
def test_token_rows_have_norm_near_std_sqrt_d(dim, init):
    n = 256
    std = INIT_STDS[init](dim)
    b = scale_balance(dim, std=std, n_tokens=n)
    # ‖x‖ has std ≈ σ/√2, so the mean of n norms is within a few σ/√(2n) of E‖x‖
    tolerance = 4 / math.sqrt(2 * dim * n)
    assert b.token_norm == pytest.approx(chi_mean(dim, std), rel=tolerance)
    assert b.expected_token_norm == pytest.approx(std * math.sqrt(dim), rel=FP64)
    assert b.factor == 1.0 and b.std == std


def test_the_lessons_d512_numbers():
    plain, scaled = scale_balance(512), scale_balance(512, scale="sqrt_d")
    # σ = 1/√512: token rows ≈ 1 against positions of exactly 16, i.e. 1 : 16 ...
    assert plain.token_norm == pytest.approx(1.0, rel=0.02) and plain.position_norm == pytest.approx(16.0)
    assert plain.ratio == pytest.approx(1 / 16, rel=0.02)
    # ... and × √512 ≈ 22.6 brings tokens to ≈ 22.6 against 16: a ratio near √2
    assert scaled.factor == pytest.approx(math.sqrt(512)) and scaled.token_norm == pytest.approx(22.6, rel=0.02)
    assert scaled.ratio == pytest.approx(math.sqrt(2), rel=0.02)


def test_the_factor_scales_token_norms_linearly():
    base = scale_balance(64)
    for scale, factor in [(3.0, 3.0), ("sqrt_d", 8.0), (0.0, 0.0)]:
        b = scale_balance(64, scale=scale)
        assert b.factor == factor
        assert b.token_norm == pytest.approx(factor * base.token_norm, rel=FP64, abs=FP64)
        assert b.ratio == pytest.approx(factor * base.ratio, rel=FP64, abs=FP64)
        assert b.position_norm == base.position_norm


def test_ratio_and_samples_match_an_independent_numpy_computation():
    dim, n_tokens, n_positions, std, factor = 48, 100, 64, 0.1, 2.5
    b = scale_balance(dim, scale=factor, std=std, n_tokens=n_tokens, n_positions=n_positions, sample=3, seed=7)
    # the documented draw: randn(n_tokens, D) in float64 from a generator seeded with `seed`
    draws = torch.randn(n_tokens, dim, generator=torch.Generator().manual_seed(7), dtype=torch.float64).numpy()
    tokens = draws * std * factor
    positions = sinusoids(np.arange(n_positions, dtype=np.float64), dim)
    token_norm = np.linalg.norm(tokens, axis=1).mean()
    position_norm = np.linalg.norm(positions, axis=1).mean()
    assert b.token_norm == pytest.approx(token_norm, rel=FP64)
    assert b.position_norm == pytest.approx(position_norm, rel=FP64)
    assert b.ratio == pytest.approx(token_norm / position_norm, rel=FP64)

    assert b.sample_positions == (0, 21, 42)
    at = list(b.sample_positions)
    K = 32
    np.testing.assert_allclose(b.token, tokens[:3, :K], rtol=0, atol=FP64)
    np.testing.assert_allclose(b.position, positions[at, :K], rtol=0, atol=FP64)
    combined = tokens[:3, None, :] + positions[at][None, :, :]  # (S, S, D)
    np.testing.assert_allclose(b.combined, combined[..., :K], rtol=0, atol=FP64)

    unit = combined / np.linalg.norm(combined, axis=-1, keepdims=True)
    pairs = [(i, j) for i in range(3) for j in range(3) if i != j]
    same_position = np.mean([unit[i, p] @ unit[j, p] for p in range(3) for i, j in pairs])
    same_token = np.mean([unit[t, i] @ unit[t, j] for t in range(3) for i, j in pairs])
    assert b.same_position_cosine == pytest.approx(same_position, rel=FP64)
    assert b.same_token_cosine == pytest.approx(same_token, rel=FP64)


def test_who_wins_the_sum():
    # no token signal: every token at one position is the same vector
    assert scale_balance(128, scale=0.0).same_position_cosine == pytest.approx(1.0, rel=FP64)
    # a huge factor: one token looks the same wherever it stands
    assert scale_balance(128, scale=1e6).same_token_cosine == pytest.approx(1.0, abs=1e-6)


def test_the_answer_is_plain_json():
    d = json_safe(scale_balance(20, sample_dims=8))
    assert d["dim"] == 20 and d["sample_positions"] == [0, 128, 256, 384]
    assert len(d["token"]) == 4 and len(d["token"][0]) == 8  # K = min(D, sample_dims)
    assert len(d["combined"]) == 4 and len(d["combined"][0]) == 4 and len(d["combined"][0][0]) == 8
    assert len(json_safe(scale_balance(6))["position"][0]) == 6


@pytest.mark.parametrize("init", INIT_STDS)
@pytest.mark.parametrize(
    "scale, factor, multiplier", [("none", 7.0, None), ("sqrt_d", 7.0, "sqrt_d"), ("number", 2.5, 2.5)]
)
def test_the_labs_names_are_scale_balances_arguments(scale, factor, multiplier, init):
    named = balance(64, scale, factor, init)
    direct = scale_balance(64, scale=multiplier, std=INIT_STDS[init](64))
    assert (
        named.factor == direct.factor == {"none": 1.0, "sqrt_d": 8.0, "number": 2.5}[scale]
    )  # a factor only counts for "number"
    assert (named.std, named.ratio) == (direct.std, direct.ratio) and np.array_equal(named.combined, direct.combined)


@pytest.mark.parametrize(
    "args, message",
    [
        ((64, "sqrt"), "scale must be one of none, sqrt_d, number; got 'sqrt'"),
        ((64, "none", 1.0, "xavier"), "init must be one of inv_sqrt_d, gpt2, torch; got 'xavier'"),
        ((64, "number", MAX_FACTOR * 2), f"factor must be between 0.0 and {MAX_FACTOR}; got 20000.0"),
        ((MAX_DIM + 1,), f"dim must be between 2 and {MAX_DIM}; got 4097"),
    ],
)
def test_the_labs_limits_are_checked(args, message):
    with pytest.raises(InvalidValueError, match=message):
        balance(*args)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"dim": 1}, "dim must be >= 2; got 1"),
        ({"dim": 8, "std": -0.1}, "std must be >= 0.0; got -0.1"),
        ({"dim": 8, "scale": "sqrt"}, "scale must be one of sqrt_d; got 'sqrt'"),
        ({"dim": 8, "n_tokens": 3}, "n_tokens must be >= 4; got 3"),
        ({"dim": 8, "sample": 1}, "sample must be >= 2; got 1"),
        ({"dim": 8, "seed": -1}, "seed must be >= 0; got -1"),
    ],
)
def test_bad_arguments_name_the_value_and_the_limit(kwargs, message):
    with pytest.raises(InvalidValueError, match=message):
        scale_balance(**kwargs)
