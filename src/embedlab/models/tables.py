"""TinyLM's token table by kind, and the output head each kind is read back with.

    TableConfig()                                    "full": a (V, D) TokenEmbedding, the default
    TableConfig("hashed", rows=3_000)                the hashing trick: V ids share 3,000 rows
    TableConfig("hash-embedding", rows=3_000, hash_count=2)    Svenstrup et al. 2017
    TableConfig("quotient-remainder", buckets=179)   Shi et al. 2020: Q[i // m] * R[i % m]
    TableConfig("adaptive", cutoffs=(2_000, 8_000), div_value=4)   Baevski & Auli 2019
    TableConfig("factorized", factor_dim=16)         ALBERT (Lan et al. 2020): V × 16, then 16 × D

The layers are layers/hashed.py's, layers/adaptive.py's and layers/factorized.py's; this module only
picks one by name and builds the head that turns hidden states back into one score per id:

    kind                         tied head                               untied head
    full                         the table itself (LMHead, tied)         LMHead's own (V, D)
    hashed, hash-embedding, QR   TableHead: h · e_w, e_w the row the     LMHead's own (V, D)
                                 table composes for id w
    adaptive                     AdaptiveSoftmax over the same bands     refused: adaptive input ties
    factorized                   FactorizedHead: (h · P) · Eᵀ, the same  LMHead's own (V, D)
                                 V × E rows and E × D map

Why a hashed or QR table keeps an untied full head unless asked to tie: the hashing trick gives
every id of a 32K vocabulary about ten neighbours with the very same row, and a tied head would
give them the very same logit, so the model could never tell them apart as predictions (inputs
still differ by their context). Hash embeddings and quotient-remainder rows differ for (almost)
every id, so tying them is principled: the head scores id w by h · e_w with the rows the input
reads, as a tied full table does, and a 32K vocabulary then costs its shared rows only. Which to
use is the caller's choice (`tied`), measured in the arena, not assumed here.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import InvalidValueError, check_choice, check_float, check_int
from embedlab.layers.adaptive import AdaptiveInput, AdaptiveSoftmax
from embedlab.layers.factorized import FactorizedEmbedding, FactorizedHead
from embedlab.layers.hashed import HashedEmbedding, HashEmbedding, QuotientRemainderEmbedding
from embedlab.layers.head import LMHead
from embedlab.sizing import QR_OPS, VOCAB_TABLES, EmbeddingLayout

NEEDS = {"hashed": "rows", "hash-embedding": "rows", "quotient-remainder": "buckets", "adaptive": "cutoffs",
         "factorized": "factor_dim"}  # fmt: skip


@dataclass(frozen=True)
class TableConfig:
    """How TinyLM's token table stores its V rows (one of sizing.VOCAB_TABLES) and that kind's settings.

    Each kind reads only its own fields; the one it needs ("rows", "buckets" or "cutoffs") must be set.
    """

    kind: str = "full"  # the default, a (V, D) TokenEmbedding: TinyLM as it always was
    rows: int = 0  # hashed, hash-embedding: B shared rows
    hash_count: int = 2  # hash-embedding: k rows per id (2, the paper's usual choice)
    importance_rows: int = 0  # hash-embedding: K rows of importance weights; 0: as many as `rows`
    buckets: int = 0  # quotient-remainder: m remainders (≈ √V keeps both tables small)
    op: str = "mult"  # quotient-remainder: how the two rows combine (sizing.QR_OPS)
    cutoffs: tuple[int, ...] = ()  # adaptive: first id of each band after the first (ids frequency-sorted)
    div_value: float = 4.0  # adaptive: each band D / div_value narrower than the one before (the paper's 4)
    factor_dim: int = 0  # factorized: E, the table's width (1..D), mapped up to D

    def __post_init__(self) -> None:
        check_choice("table kind", self.kind, VOCAB_TABLES)
        check_int("rows", self.rows, low=0)
        check_int("hash_count", self.hash_count, low=1)
        check_int("importance_rows", self.importance_rows, low=0)
        check_int("buckets", self.buckets, low=0)
        check_choice("op", self.op, QR_OPS)
        object.__setattr__(self, "cutoffs", tuple(self.cutoffs))
        check_float("div_value", self.div_value, low=1.0)
        check_int("factor_dim", self.factor_dim, low=0)
        need = NEEDS.get(self.kind)
        if need and not getattr(self, need):
            raise InvalidValueError(f"a {self.kind} table needs {need} set; got {getattr(self, need)!r}")


def table_config(layout: EmbeddingLayout) -> TableConfig:
    """The TableConfig of a text layout's token table (sizing's fields, renamed).

    >>> table_config(EmbeddingLayout(vocab_size=32_000, dim=64, hashed_rows=3_000, hash_count=2)).kind
    'hash-embedding'
    """
    kind = layout.vocab_table
    if kind == "hashed":
        return TableConfig(kind, rows=layout.hashed_rows)
    if kind == "hash-embedding":
        k, K = layout.hash_count, layout.importance_rows
        return TableConfig(kind, rows=layout.hashed_rows, hash_count=k, importance_rows=K)
    if kind == "quotient-remainder":
        return TableConfig(kind, buckets=layout.qr_buckets, op=layout.qr_op)
    if kind == "adaptive":
        return TableConfig(kind, cutoffs=layout.adaptive_cutoffs, div_value=layout.div_value)
    if kind == "factorized":
        return TableConfig(kind, factor_dim=layout.factor_dim)
    return TableConfig()


def make_table(config: TableConfig, vocab_size: int, dim: int) -> nn.Module:
    """The token table of a kind other than "full": (B, T) int ids in [0, V) -> (B, T, D)."""
    c, V, D = config, vocab_size, dim
    if c.kind == "hashed":
        return HashedEmbedding(V, D, rows=c.rows)
    if c.kind == "hash-embedding":
        return HashEmbedding(V, D, rows=c.rows, hash_count=c.hash_count, importance_rows=c.importance_rows or None)
    if c.kind == "quotient-remainder":
        return QuotientRemainderEmbedding(V, D, buckets=c.buckets, op=c.op)
    if c.kind == "adaptive":
        return AdaptiveInput(V, D, cutoffs=c.cutoffs, div_value=c.div_value)
    if c.kind == "factorized":
        return FactorizedEmbedding(V, D, factor_dim=c.factor_dim)
    raise InvalidValueError(f"make_table builds the tables other than full (InputEmbedding's own); got {c.kind!r}")


class TableHead(nn.Module):
    """(..., D) hidden states -> (..., V) logits, logits[..., w] = h · e_w where e_w is the row
    `table` gives id w: a head tied to a hashed or quotient-remainder table.

    The (V, D) rows are composed afresh on every call from the table's own Parameters (THE TIE: the
    head holds the table module itself), so both uses train the same shared rows.

    Example:
        >>> table = QuotientRemainderEmbedding(10, 4, buckets=4)
        >>> head = TableHead(table, 10)
        >>> head.table is table, head(torch.zeros(2, 3, 4)).shape
        (True, torch.Size([2, 3, 10]))
    """

    def __init__(self, table: nn.Module, vocab_size: int) -> None:
        super().__init__()
        self.table = table  # THE TIE: the input's table module, its Parameters counted once
        self.register_buffer("ids", torch.arange(check_int("vocab_size", vocab_size, low=1)), persistent=False)

    def rows(self) -> torch.Tensor:
        """(V, D) the row the table gives each id."""
        return self.table(self.ids[None])[0]

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """(..., D) -> (..., V)."""
        return F.linear(h, self.rows())


def make_head(config: TableConfig, table: nn.Module, vocab_size: int, dim: int, tied: bool) -> nn.Module:
    """The output head of a kind other than "full" (see the module docstring's table)."""
    if config.kind == "adaptive":
        if not tied:
            raise InvalidValueError("an adaptive table is read back by its own adaptive softmax: tied must be True")
        return AdaptiveSoftmax(table)  # THE TIE: the softmax reads the input's bands and projections
    if tied and config.kind == "factorized":
        return FactorizedHead(table)  # THE TIE: h mapped down by the input's map, scored on its narrow rows
    if tied:
        return TableHead(table, vocab_size)
    return LMHead(dim, vocab_size)  # an untied full (V, D) head, N(0, 0.02²) as a token table's
