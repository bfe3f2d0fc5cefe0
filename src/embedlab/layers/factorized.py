"""ALBERT's factorised embedding (Lan et al. 2020): a table narrower than the model, then a map up.

    FactorizedEmbedding(V, D, factor_dim=E)   ids -> E[ids] (B, T, E) -> · Pᵀ -> (B, T, D)
    FactorizedHead(table)                     h (..., D) -> (h · P) · Eᵀ (..., V): the head tied to both

The token table E is V × E with E < D, and one learned matrix P (D, E) (an nn.Linear(E, D) without
bias) lifts each row to the model's width D. Row w of the composed table is E[w] · Pᵀ, so the V rows
still differ, but they span at most E dimensions of the D-wide space: the vocabulary pays V·E + E·D
parameters instead of V·D. At ALBERT-base's V 30,000, E 128, D 768: 3,840,000 + 98,304 = 3,938,304
against 23,040,000 for the plain table, 5.85× fewer; the saving grows with V and with D / E.

A head tied to it scores id w by h · (E[w] · Pᵀ) = (h · P) · E[w]: the hidden state is mapped down to
E first (2·D·E FLOPs a token), then scored against the V narrow rows (2·E·V), instead of 2·D·V for a
full tied head. ALBERT's own MLM head maps down with a separate dense layer (and a LayerNorm) and
ties only E; here both E and P are shared, so the tie is exact: the head's logits are those of a full
table whose rows are the composed ones (tests/layers/test_factorized.py checks it against autograd).

ALBERT's Linear(E, D) has a bias of D more numbers; this one has none, so that the count is V·E + E·D
and a composed row is linear in E[w] (a bias would add the same vector to every row). Its position and
segment tables are also E wide and share P; here only the token table is factorised, the others stay
D wide, as in the arena's TinyLM.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import check_float, check_int
from embedlab.layers.token import checked_ids


class FactorizedEmbedding(nn.Module):
    """(B, T) int ids in [0, V) -> (B, T, D): row ids of a (V, E) table, mapped up by a (D, E) matrix.

    Args:
        vocab_size: V, the ids accepted.
        dim: D, the model's width (the rows handed on).
        factor_dim: E, the table's width, 1..D (E = D is a full table times a square map).
        std: the composed rows start with std about `std`, as a TokenEmbedding's: the table is drawn
            N(0, std²) and the map N(0, 1/E), so each output number, a sum of E products, has
            variance E · std² · (1/E) = std².

    Example:
        >>> emb = FactorizedEmbedding(1000, 64, factor_dim=16)
        >>> emb(torch.tensor([[1, 2, 999]])).shape, emb.weight.shape, emb.projection.weight.shape
        (torch.Size([1, 3, 64]), torch.Size([1000, 16]), torch.Size([64, 16]))
        >>> sum(p.numel() for p in emb.parameters())  # V·E + E·D = 16,000 + 1,024
        17024
    """

    def __init__(self, vocab_size: int, dim: int, factor_dim: int, std: float = 0.02) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, low=1)
        self.dim = check_int("dim", dim, low=1)
        self.factor_dim = check_int("factor_dim", factor_dim, low=1, high=dim)
        self.std = check_float("std", std, low=0.0)
        self.weight = nn.Parameter(torch.empty(vocab_size, factor_dim))  # E (V, E): the narrow table
        self.projection = nn.Linear(factor_dim, dim, bias=False)  # P (D, E): E -> D, shared by every id
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.normal_(self.weight, mean=0.0, std=self.std)
        nn.init.normal_(self.projection.weight, mean=0.0, std=1.0 / math.sqrt(self.factor_dim))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, T) int ids -> (B, T, D)."""
        ids = checked_ids(ids, self.vocab_size)
        return self.projection(F.embedding(ids, self.weight))  # (B, T, E) -> (B, T, D)

    def extra_repr(self) -> str:
        return f"{self.vocab_size}, {self.dim}, factor_dim={self.factor_dim}"


class FactorizedHead(nn.Module):
    """(..., D) hidden states -> (..., V) logits, logits[..., w] = h · (E[w] · Pᵀ), computed as
    (h · P) · E[w]: the head tied to a FactorizedEmbedding's table and map both.

    Example:
        >>> table = FactorizedEmbedding(10, 8, factor_dim=2)
        >>> head = FactorizedHead(table)
        >>> head.table is table, head(torch.zeros(2, 3, 8)).shape
        (True, torch.Size([2, 3, 10]))
    """

    def __init__(self, table: FactorizedEmbedding) -> None:
        super().__init__()
        self.table = table  # THE TIE: the input's table and map, their Parameters counted once

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """(..., D) -> (..., V)."""
        down = h @ self.table.projection.weight  # (..., D) · (D, E) -> (..., E)
        return F.linear(down, self.table.weight)  # (..., E) · (E, V) -> (..., V)
