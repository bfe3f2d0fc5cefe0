"""A small causal language model over BPE pieces, built from embedlab's own layers.

    ids (B, T) -> InputEmbedding (gpt2 recipe: token + learned position) -> n pre-norm blocks
               -> LayerNorm -> LMHead (tied: the token table itself; untied: its own V × D)
               -> logits (B, T, V)

The saved embedding is the token table `model.token_table` (V, D). Tying makes one table serve
both ends: the input reads row i for piece i, the output scores piece i by h · E[i], so the
table receives gradient from both uses and the model has V·D fewer parameters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import InvalidValueError, check_float, check_int
from embedlab.layers.recipes import InputEmbedding, recipe


@dataclass(frozen=True)
class LMConfig:
    """Shape of the model: `context` is the longest window it reads (its position table).

    No shape has a default here: a training run's come from `train.config.RunConfig`, the one
    place they are written.
    """

    vocab_size: int
    dim: int  # D
    n_layers: int
    n_heads: int
    context: int  # T at most
    tied: bool  # the output head reads the token table (head.weight is token.weight)
    dropout: float = 0.0

    def __post_init__(self) -> None:
        check_int("vocab_size", self.vocab_size, low=2)
        check_int("dim", self.dim, low=1)
        check_int("n_layers", self.n_layers, low=0)
        check_int("n_heads", self.n_heads, low=1)
        check_int("context", self.context, low=1)
        check_float("dropout", self.dropout, low=0.0, high=1.0)
        if self.dim % self.n_heads:
            raise InvalidValueError(f"dim must be a multiple of n_heads ({self.n_heads}); got {self.dim}")


def pre_norm_blocks(
    dim: int, n_heads: int, n_layers: int, dropout: float = 0.0, device=None, dtype=None
) -> nn.ModuleList:
    """`n_layers` pre-norm transformer blocks of width `dim` (attention, then a GELU feed-forward of
    4·dim, each after its LayerNorm): the body TinyLM and models.vit.ViT share, as GPT-2 and ViT do.
    Pre-norm trains stably without a long warm-up at these sizes."""
    return nn.ModuleList(
        nn.TransformerEncoderLayer(
            dim,
            n_heads,
            4 * dim,
            dropout,
            activation="gelu",
            batch_first=True,
            norm_first=True,
            device=device,
            dtype=dtype,
        )  # fmt: skip
        for _ in range(n_layers)
    )


class TinyLM(nn.Module):
    """GPT-2-shaped causal LM: (B, T) ids -> (B, T, V) next-piece logits, T <= config.context."""

    def __init__(self, config: LMConfig, device=None, dtype=None) -> None:
        super().__init__()
        self.config = config
        embedding = recipe("gpt2", config.vocab_size, config.dim, max_len=config.context, tied_head=config.tied)
        self.embed = InputEmbedding(embedding, device=device, dtype=dtype)
        self.blocks = pre_norm_blocks(config.dim, config.n_heads, config.n_layers, config.dropout, device, dtype)
        self.norm = nn.LayerNorm(config.dim, device=device, dtype=dtype)
        self.head = self.embed.make_head()

    @property
    def token_table(self) -> torch.Tensor:
        """(V, D) the token embedding table: what a training run saves."""
        return self.embed.token.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, T) int ids -> (B, T, V) logits; position t sees pieces 0..t only."""
        T = ids.shape[-1]
        if T > self.config.context:
            raise InvalidValueError(f"sequence length must be <= context ({self.config.context}); got {T}")
        x = self.embed(ids)
        mask = nn.Transformer.generate_square_subsequent_mask(T, device=x.device, dtype=x.dtype)
        for block in self.blocks:
            x = block(x, src_mask=mask, is_causal=True)
        return self.head(self.norm(x))

    def loss(self, windows: torch.Tensor) -> torch.Tensor:
        """(B, T + 1) ids -> mean cross-entropy of predicting pieces 1..T from those before."""
        logits = self(windows[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), windows[:, 1:].reshape(-1))

    def parameter_count(self) -> int:
        """Trainable numbers, a tied table counted once (nn.Module.parameters() dedups it)."""
        return sum(p.numel() for p in self.parameters())


def windows(ids: np.ndarray | torch.Tensor, context: int) -> torch.Tensor:
    """(N,) piece ids -> (M, context + 1) int64 non-overlapping windows, M = (N - 1) // context;
    each window's last piece is the next window's first, so every piece is predicted once."""
    context = check_int("context", context, low=1)
    ids = torch.as_tensor(np.asarray(ids), dtype=torch.int64)
    m = (ids.numel() - 1) // context
    if m < 1:
        raise InvalidValueError(
            f"need at least {context + 1} pieces for one window of context {context}; got {ids.numel()}"
        )
    return ids[: m * context + 1].unfold(0, context + 1, context)


@torch.no_grad()
def evaluate(model: TinyLM, data: torch.Tensor, batch_size: int = 64) -> tuple[float, float]:
    """Mean loss over (M, T + 1) windows and its perplexity exp(loss), in eval mode."""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for start in range(0, data.shape[0], batch_size):
        batch = data[start : start + batch_size].to(model.token_table.device)
        total += model.loss(batch).item() * batch.shape[0]
        count += batch.shape[0]
    model.train(was_training)
    loss = total / count
    return loss, math.exp(loss)
