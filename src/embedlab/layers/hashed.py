"""Token tables with fewer rows than ids: V ids share B < V rows, chosen by hashing each id, or
composed from two small tables (quotient and remainder).

    hash_ids(vocab_size=10, rows=4, count=2)   -> (10, 2) int64: id w's rows h_0(w), h_1(w)
    HashedEmbedding(V, D, rows=B)              the hashing trick: e_w = E[h_0(w)], E (B, D)
    HashEmbedding(V, D, rows=B, hash_count=k)  Svenstrup et al. 2017: e_w = Σ_i p_w[i] · E[h_i(w)]
    QuotientRemainderEmbedding(V, D, buckets=m) Shi et al. 2020: e_i = Q[i // m] * R[i % m]

Hash function i is MurmurHash3 x64 128 (floret's hash, embedlab.hashing.murmur, the one the subword
n-gram buckets use) of the id's 8 little-endian bytes, seeded FLORET_SEED + i; its first 64 bits
modulo B pick the row. Every id's rows are computed once, into a (V, k) buffer, so a forward pass is
a gather. The buffer is not saved with the weights: it follows from (V, B, k).

How many ids collide. With V ids thrown into B rows, an id has its row to itself with probability
(1 - 1/B)^(V-1) ≈ e^(-V/B): at V 128,000 and B 12,800 (1/10 of the rows) that is e^-10, 5.8 ids
expected; measured, 2 ids are alone and every other id shares its row (10 on average). Hash
embeddings tell ids apart by the k-tuple of rows (and their own importance weights): two ids share
all k rows with probability 1/B^k, so about V²/B^k ids do; at k 2 that is 100 expected, 102 measured
(0.08% of the vocabulary). tests/layers/test_hashed.py checks both figures against these formulas.

Quotient-remainder: id i reads row i // m of a quotient table Q and row i % m of a remainder table
R, and combines them:

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
import torch.nn.functional as F
from torch import nn

from embedlab.errors import check_float, check_int
from embedlab.hashing.murmur import FLORET_SEED, murmur3_x64_128
from embedlab.layers.token import checked_ids
from embedlab.sizing import qr_shapes


def hash_ids(vocab_size: int, rows: int, count: int, first: int = 0) -> torch.Tensor:
    """(V, count) int64: ids[w, j] = h_{first+j}(w) in 0..rows-1, where h_i is murmur3 of w's 8
    little-endian bytes seeded FLORET_SEED + i, its first 64 bits mod rows. About 0.2 s per hash
    function for 128,000 ids, done once per table.

    >>> hash_ids(5, 3, 2).shape
    torch.Size([5, 2])
    """
    check_int("vocab_size", vocab_size, low=1)
    check_int("rows", rows, low=1)
    check_int("hash_count", count, low=1)
    check_int("first", first, low=0)
    seeds = range(FLORET_SEED + first, FLORET_SEED + first + count)
    keys = [w.to_bytes(8, "little") for w in range(vocab_size)]
    ids = [[murmur3_x64_128(key, seed)[0] % rows for seed in seeds] for key in keys]
    return torch.tensor(ids, dtype=torch.int64).reshape(vocab_size, count)


class HashedEmbedding(nn.Module):
    """(B, T) int ids in [0, V) -> (B, T, D): the hashing trick, id w reads row h_0(w) of a (rows, D) table.

    Args:
        vocab_size: V, the ids accepted.
        dim: D, width of each row.
        rows: B, rows of the shared table, 1..V (B = V still collides: it is a hash, not a bijection).
        std: rows start N(0, std²), as a TokenEmbedding's.

    Example:
        >>> emb = HashedEmbedding(1000, 8, rows=100)
        >>> emb(torch.tensor([[1, 2, 999]])).shape, emb.weight.shape
        (torch.Size([1, 3, 8]), torch.Size([100, 8]))
    """

    def __init__(self, vocab_size: int, dim: int, rows: int, std: float = 0.02) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, low=1)
        self.dim = check_int("dim", dim, low=1)
        self.rows = check_int("rows", rows, low=1, high=vocab_size)
        self.std = check_float("std", std, low=0.0)
        self.weight = nn.Parameter(torch.empty(rows, dim))
        self.register_buffer("buckets", hash_ids(vocab_size, rows, 1)[:, 0], persistent=False)  # (V,)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.normal_(self.weight, mean=0.0, std=self.std)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, T) int ids -> (B, T, D)."""
        ids = checked_ids(ids, self.vocab_size)
        return F.embedding(self.buckets[ids], self.weight)  # (B, T, D)

    def extra_repr(self) -> str:
        return f"{self.vocab_size}, {self.dim}, rows={self.rows}"


class HashEmbedding(nn.Module):
    """(B, T) int ids in [0, V) -> (B, T, D): Svenstrup et al. 2017's hash embeddings.

    Id w picks k component rows E[h_0(w)], …, E[h_{k-1}(w)] of a shared (rows, D) table and k
    importance weights p_w = P[h_k(w)] from a (importance_rows, k) table, hashed too (hash function k,
    independent of the component hashes); its row is e_w = Σ_i p_w[i] · E[h_i(w)]. Two ids that share
    one component row still differ by their other rows and weights.

    Args:
        vocab_size: V, the ids accepted.
        dim: D, width of each row.
        rows: B, rows of the component table, 1..V.
        hash_count: k >= 1 component rows per id.
        importance_rows: K, rows of the importance table; None: as many as `rows` (K = V gives each
            id its own weights, as the paper's unhashed variant).
        std: component rows start N(0, std²); the weights start at 1/√k, so that e_w of k
            independent rows has std `std`, as a TokenEmbedding's rows.

    Example:
        >>> emb = HashEmbedding(1000, 8, rows=100, hash_count=2, importance_rows=50)
        >>> emb(torch.tensor([[1, 2, 999]])).shape, emb.importance.shape
        (torch.Size([1, 3, 8]), torch.Size([50, 2]))
    """

    def __init__(
        self,
        vocab_size: int,
        dim: int,
        rows: int,
        hash_count: int = 2,
        importance_rows: int | None = None,
        std: float = 0.02,
    ) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, low=1)
        self.dim = check_int("dim", dim, low=1)
        self.rows = check_int("rows", rows, low=1, high=vocab_size)
        self.hash_count = check_int("hash_count", hash_count, low=1)
        K = rows if importance_rows is None else check_int("importance_rows", importance_rows, low=1)
        self.importance_rows = K
        self.std = check_float("std", std, low=0.0)
        self.weight = nn.Parameter(torch.empty(rows, dim))  # E: the shared component rows
        self.importance = nn.Parameter(torch.empty(K, hash_count))  # P: k weights per importance row
        # hash functions 0..k-1 pick the component rows (the first is HashedEmbedding's), hash k the weights
        self.register_buffer("buckets", hash_ids(vocab_size, rows, hash_count), persistent=False)  # (V, k)
        importance_ids = hash_ids(vocab_size, K, 1, first=hash_count)[:, 0]  # (V,)
        self.register_buffer("importance_ids", importance_ids, persistent=False)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.normal_(self.weight, mean=0.0, std=self.std)
        nn.init.constant_(self.importance, 1.0 / math.sqrt(self.hash_count))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, T) int ids -> (B, T, D)."""
        ids = checked_ids(ids, self.vocab_size)
        parts = F.embedding(self.buckets[ids], self.weight)  # (B, T, k, D)
        weights = F.embedding(self.importance_ids[ids], self.importance)  # (B, T, k)
        return torch.einsum("...k,...kd->...d", weights, parts)  # (B, T, D)

    def extra_repr(self) -> str:
        k, K = self.hash_count, self.importance_rows
        return f"{self.vocab_size}, {self.dim}, rows={self.rows}, hash_count={k}, importance_rows={K}"


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
        # F.embedding, not indexing: its backward is deterministic on CPU (see AdaptiveInput.forward)
        q = F.embedding(torch.div(ids, self.buckets, rounding_mode="floor"), self.quotient)  # (B, T, w)
        r = F.embedding(ids % self.buckets, self.remainder)  # (B, T, w)
        if self.op == "mult":
            return q * r
        if self.op == "add":
            return q + r
        return torch.cat([q, r], dim=-1)  # (B, T, D)

    def extra_repr(self) -> str:
        return f"{self.vocab_size}, {self.dim}, buckets={self.buckets}, op={self.op!r}"
