"""Scale balance: freshly initialised token rows against the fixed sinusoid rows added to them.

A token table drawn from N(0, σ²) has rows of norm ≈ σ√D. A sinusoid row has norm √(D/2)
exactly for even D: each (sin, cos) pair contributes sin² + cos² = 1. When the two are added,
the longer one decides what the sum looks like. With σ = 1/√D (the original Transformer's init)
token rows have norm ≈ 1 against √(D/2), so the Transformer multiplies them by √D first:

    scale_balance(512).ratio                  # ≈ 1/16: position drowns the token
    scale_balance(512, scale="sqrt_d").ratio  # ≈ √2: both are heard
    scale_balance(512, std=INIT_STDS["gpt2"](512), scale="sqrt_d").ratio   # 0.02·√512·√512 / 16 ≈ 0.64

What σ does to a whole model when it trains is the page's second part, sims/init_sweep.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

import numpy as np
import torch

from embedlab.errors import check_choice, check_float, check_int
from embedlab.files import JsonArray, Matrix
from embedlab.layers.position import SinusoidalPositions
from embedlab.layers.token import TokenEmbedding
from embedlab.sims.init_sweep import HEADS, MAX_STEPS, OPTIMIZERS, SIGMAS

# Name -> std of the token table's N(0, std²) init, as a function of D.
INIT_STDS: dict[str, Callable[[int], float]] = {
    "inv_sqrt_d": lambda d: d**-0.5,  # the original Transformer (tensor2tensor, fairseq): rows of norm ≈ 1
    "gpt2": lambda d: 0.02,  # GPT-2 and BERT, and the std of embedlab's "transformer" recipe
    "torch": lambda d: 1.0,  # nn.Embedding's default N(0, 1): rows of norm ≈ √D
}
SCALES = ("none", "sqrt_d", "number")  # the lab's choices: × 1, × √D, × a factor it names
MIN_DIM, MAX_DIM = 2, 4096  # the lab's d_model
MAX_FACTOR = 10_000.0
LIMITS = {
    "d_model": [MIN_DIM, MAX_DIM],
    "factor": [0.0, MAX_FACTOR],
    "scales": list(SCALES),
    "inits": list(INIT_STDS),
    # the σ sweep (sims.init_sweep), on the same page
    "sweep_optimizers": list(OPTIMIZERS),
    "sweep_heads": list(HEADS),
    "sweep_steps": [1, MAX_STEPS],
    "sweep_sigmas": list(SIGMAS),
}
Cube = Annotated[np.ndarray, JsonArray(3)]  # (n, m, k) floats -> [[[x, ...], ...], ...]


@dataclass(frozen=True, eq=False)
class ScaleBalance:
    """How token rows × factor compare in length with sinusoid position rows at width D.

    Samples: `token` (S, K) and `position` (S, K) are the first K = min(D, sample_dims) columns of
    S token rows and of the rows at `sample_positions`; `combined` (S, S, K) is token i at
    position j. The cosines are measured on the full D-wide sums.
    """

    dim: int  # D
    std: float  # init std of the token rows
    factor: float  # what token rows are multiplied by (1.0 for no scaling)
    n_tokens: int  # token rows drawn
    n_positions: int  # position rows 0..n_positions-1
    token_norm: float  # mean ‖factor · E[i]‖ over n_tokens rows
    position_norm: float  # mean ‖PE[p]‖ over positions 0..n_positions-1
    ratio: float  # token_norm / position_norm: 1 means balanced
    expected_token_norm: float  # factor · std · √D
    expected_position_norm: float  # √(D/2), exact for even D
    same_position_cosine: float  # mean cos of two different tokens at one position (1: position wins)
    same_token_cosine: float  # mean cos of one token at two positions (1: token wins)
    sample_positions: tuple[int, ...]  # the S positions sampled, spread out
    token: Matrix  # (S, K) token rows × factor
    position: Matrix  # (S, K) the sampled position rows
    combined: Cube  # (S, S, K) token i at position j


@torch.no_grad()
def scale_balance(
    dim: int,
    scale: str | float | None = None,
    std: float | None = None,
    n_tokens: int = 256,
    n_positions: int = 512,
    sample: int = 4,
    sample_dims: int = 32,
    seed: int = 0,
) -> ScaleBalance:
    """Token rows (n_tokens, D) from N(0, std²) × scale against sinusoid rows (n_positions, D).

    `scale` follows TokenEmbedding: None, "sqrt_d" or a number; `std` defaults to 1/√D. The token
    rows are `torch.randn(n_tokens, D, generator=torch.Generator().manual_seed(seed))` · std in
    float64, so a seed gives the same rows at every call.
    """
    dim = check_int("dim", dim, low=2)
    std = dim**-0.5 if std is None else check_float("std", std, low=0.0)
    sample = check_int("sample", sample, low=2)  # a cosine between two rows needs two
    n_tokens = check_int("n_tokens", n_tokens, low=sample)
    n_positions = check_int("n_positions", n_positions, low=sample)
    sample_dims = check_int("sample_dims", sample_dims, low=1)

    generator = torch.Generator().manual_seed(check_int("seed", seed, low=0))
    init = torch.randn(n_tokens, dim, generator=generator, dtype=torch.float64) * std
    table = TokenEmbedding(n_tokens, dim, init=init, scale=scale, dtype=torch.float64)
    factor = 1.0 if table.scale is None else table.scale
    tokens = table(torch.arange(n_tokens))  # (n_tokens, D), already × factor
    positions = SinusoidalPositions(n_positions, dim, dtype=torch.float64)(torch.arange(n_positions))  # (P, D)

    token_norm = tokens.norm(dim=-1).mean().item()
    position_norm = positions.norm(dim=-1).mean().item()
    at = [j * n_positions // sample for j in range(sample)]  # spread out: nearby positions look alike
    combined = tokens[:sample, None, :] + positions[at][None, :, :]  # (S, S, D): token i at position j
    K = min(dim, sample_dims)
    return ScaleBalance(
        dim=dim,
        std=std,
        factor=factor,
        n_tokens=n_tokens,
        n_positions=n_positions,
        token_norm=token_norm,
        position_norm=position_norm,
        ratio=token_norm / position_norm,
        expected_token_norm=factor * std * math.sqrt(dim),
        expected_position_norm=math.sqrt(dim / 2),
        same_position_cosine=_mean_pair_cosine(combined.transpose(0, 1)),
        same_token_cosine=_mean_pair_cosine(combined),
        sample_positions=tuple(at),
        token=tokens[:sample, :K].numpy(),
        position=positions[at, :K].numpy(),
        combined=combined[..., :K].numpy(),
    )


def _mean_pair_cosine(x: torch.Tensor) -> float:
    """(G, S, D) -> the mean cosine over every pair of distinct rows within each of the G groups."""
    unit = x / x.norm(dim=-1, keepdim=True)
    cos = unit @ unit.transpose(-1, -2)  # (G, S, S)
    S = x.shape[-2]
    off_diagonal = ~torch.eye(S, dtype=torch.bool)
    return cos[:, off_diagonal].mean().item()


def balance(dim: int, scale: str = "none", factor: float = 1.0, init: str = "inv_sqrt_d") -> ScaleBalance:
    """The lab's question by name: `scale` one of SCALES ("number" multiplies by `factor`), `init`
    one of INIT_STDS. balance(512, "sqrt_d").ratio ≈ √2, as scale_balance(512, scale="sqrt_d")."""
    check_choice("scale", scale, SCALES)
    check_choice("init", init, tuple(INIT_STDS))
    dim = check_int("dim", dim, low=MIN_DIM, high=MAX_DIM)
    if scale == "number":
        multiplier = check_float("factor", factor, low=0.0, high=MAX_FACTOR)
    else:
        multiplier = None if scale == "none" else scale  # TokenEmbedding's own names: None, "sqrt_d"
    return scale_balance(dim, scale=multiplier, std=INIT_STDS[init](dim))
