"""QuotientRemainderEmbedding: Shi et al. 2020's compositional table, V ids from ceil(V/m) + m rows.

Id i reads row i // m of a quotient table and row i % m of a remainder table and combines them:

    e_i = Q[i // m] * R[i % m]      "mult", the paper's default (elementwise)
    e_i = Q[i // m] + R[i % m]      "add"
    e_i = [Q[i // m], R[i % m]]     "concat": each table D/2 wide, so e_i is D wide

Unlike a hash, no two ids get the same pair: i = (i // m)·m + i % m, so the pair (quotient,
remainder) gives i back. With V 10, m 4: id 9 -> (2, 1), id 5 -> (1, 1), id 6 -> (1, 2); ids 5 and 9
share a remainder row, ids 5 and 6 a quotient row, never both. At m ≈ √V the two tables hold
about 2·√V rows: a 128,000-id vocabulary in 358 + 358 rows (m 358, ceil(128,000 / 358) = 358).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from embedlab.errors import check_float, check_int
from embedlab.layers.token import checked_ids
from embedlab.sizing import qr_shapes


class QuotientRemainderEmbedding(nn.Module):
    """(B, T) int ids in [0, V) -> (B, T, D): Q[i // m] (op) R[i % m].

    Args:
        vocab_size: V, the ids accepted.
        dim: D, width of each output row (even for "concat").
        buckets: m, rows of the remainder table, 1..V; the quotient table has ceil(V/m).
        op: "mult" (default, as the paper), "add" or "concat" (sizing.QR_OPS).
        std: the output rows start with std about `std`, as a TokenEmbedding's: "mult" draws both
            tables N(0, std) (a product of two N(0, s²) has std s², here std); "add" draws each
            N(0, std²/2); "concat" each N(0, std²).

    Example:
        >>> emb = QuotientRemainderEmbedding(10, 4, buckets=4)
        >>> emb(torch.tensor([[9, 5]])).shape, emb.quotient.shape, emb.remainder.shape
        (torch.Size([1, 2, 4]), torch.Size([3, 4]), torch.Size([4, 4]))
    """

    def __init__(self, vocab_size: int, dim: int, buckets: int, op: str = "mult", std: float = 0.02) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, low=1)
        self.dim = check_int("dim", dim, low=1)
        (quotients, width), _ = qr_shapes(vocab_size, dim, buckets, op)  # checks buckets, op, an even D for concat
        self.buckets, self.op = buckets, op
        self.std = check_float("std", std, low=0.0)
        self.quotient = nn.Parameter(torch.empty(quotients, width))  # Q (ceil(V/m), w)
        self.remainder = nn.Parameter(torch.empty(buckets, width))  # R (m, w)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        std = {"mult": math.sqrt(self.std), "add": self.std / math.sqrt(2.0), "concat": self.std}[self.op]
        nn.init.normal_(self.quotient, mean=0.0, std=std)
        nn.init.normal_(self.remainder, mean=0.0, std=std)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, T) int ids -> (B, T, D)."""
        ids = checked_ids(ids, self.vocab_size)
        q = self.quotient[torch.div(ids, self.buckets, rounding_mode="floor")]  # (B, T, w)
        r = self.remainder[ids % self.buckets]  # (B, T, w)
        if self.op == "mult":
            return q * r
        if self.op == "add":
            return q + r
        return torch.cat([q, r], dim=-1)  # (B, T, D)

    def extra_repr(self) -> str:
        return f"{self.vocab_size}, {self.dim}, buckets={self.buckets}, op={self.op!r}"
