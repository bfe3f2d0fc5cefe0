"""InputEmbedding: how a model family turns ids into the matrix X that enters attention.

A recipe is a set of choices over the same parts:

    recipe        token scale   positions    segments  LayerNorm+dropout  output head
    bert          1             learned      2         yes (0.1)          tied (MLM decoder)
    gpt2          1             learned      -         -                  tied
    transformer   √D            sinusoidal   -         -                  tied
    llama         1             rotary*      -         -                  untied
    gemma         √D            rotary*      -         -                  tied
    t5            1             relative**   -         dropout 0.1        tied

    * rotary positions rotate q and k inside attention; nothing is added here.
    ** a learned (buckets, heads) bias added to the attention scores (make_position_bias); nothing
       is added here. T5 does not scale by √D: its table starts at std 1, rows already ≈ √D long.

    emb = InputEmbedding.from_recipe("bert", vocab_size=30522, dim=384)
    x = emb(ids, segment_ids)             # (B, T) -> (B, T, D)
    parts = emb.addends(ids, segment_ids)  # every addend, the sum, and the output
    emb.addends(ids, include=("token", "segment")).output   # LayerNorm(token + segment): no position
    InputEmbedding.from_recipe("gpt2", 50257, 768, combine="concat").width   # [token | position]: 1536
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, fields

import torch
from torch import nn

from embedlab.errors import InvalidValueError, check_choice, check_float, check_int, unknown_name
from embedlab.layers.head import LMHead
from embedlab.layers.position import POSITION_KINDS, POSITIONS
from embedlab.layers.relative import MAX_DISTANCE, NUM_BUCKETS, RelativePositionBias
from embedlab.layers.segment import SegmentEmbedding
from embedlab.layers.token import TokenEmbedding
from embedlab.sizing import COMBINES  # add: every recipe (width D); concat: width k·D, to measure (combine_cost)


@dataclass(frozen=True)
class EmbeddingConfig:
    """Every choice an input embedding makes; recipes are presets of it."""

    vocab_size: int
    dim: int
    positions: str = "learned"  # learned | sinusoidal | rotary | none (see POSITION_KINDS)
    max_len: int = 512  # rows of a learned or sinusoidal position table
    n_segments: int = 0  # 0: no segment table; BERT has 2
    scale: str | float | None = None  # "sqrt_d": token rows × √D (Transformer, Gemma)
    layer_norm: bool = False  # LayerNorm over the sum (BERT)
    layer_norm_eps: float = 1e-12  # BERT's value; tiny, so it only guards against zero variance
    dropout: float = 0.0  # BERT trains with 0.1 here; eval() turns it off
    padding_idx: int | None = None  # row that stays zero and gets no gradient
    std: float = 0.02  # init std of the learned tables (GPT-2, BERT)
    tied_head: bool = True  # whether the family's output head shares the token table
    combine: str = "add"  # add: the rows are summed, width D; concat: laid side by side, width k·D (COMBINES)

    def __post_init__(self) -> None:
        check_int("vocab_size", self.vocab_size, low=1)
        check_int("dim", self.dim, low=1)
        check_choice("positions", self.positions, POSITION_KINDS)
        check_int("max_len", self.max_len, low=1)
        check_int("n_segments", self.n_segments, low=0)
        check_float("dropout", self.dropout, low=0.0, high=1.0)
        check_float("layer_norm_eps", self.layer_norm_eps, low=0.0)
        check_choice("combine", self.combine, COMBINES)

    @property
    def addend_count(self) -> int:
        """k, the tables whose rows make X: the token table, additive positions, segments."""
        return 1 + (self.positions in POSITIONS) + (self.n_segments > 0)

    @property
    def width(self) -> int:
        """The width of X, and of every layer after it: D when the rows are added, k·D concatenated.

        >>> recipe("bert", 30522, 768).width, recipe("bert", 30522, 768, combine="concat").width
        (768, 2304)
        """
        return self.dim if self.combine == "add" else self.addend_count * self.dim


# Each recipe: the fields it sets on EmbeddingConfig; the caller gives vocab_size and dim.
RECIPES: dict[str, dict[str, object]] = {
    "bert": dict(positions="learned", max_len=512, n_segments=2, layer_norm=True, dropout=0.1),
    "gpt2": dict(positions="learned", max_len=1024),
    "transformer": dict(positions="sinusoidal", max_len=5000, scale="sqrt_d"),
    "llama": dict(positions="rotary", tied_head=False),
    "gemma": dict(positions="rotary", scale="sqrt_d"),
    # T5 (the original; v1.1 unties the head): std 1.0 is its init of the shared table, and dropout
    # 0.1 its only layer between table and attention (its RMSNorms sit inside the blocks). Its tied
    # head first multiplies the hidden states by D^-0.5; make_head's LMHead does not.
    "t5": dict(positions="relative", dropout=0.1, std=1.0),
}


def recipe(name: str, vocab_size: int, dim: int, **overrides: object) -> EmbeddingConfig:
    """The EmbeddingConfig of a named recipe; `overrides` replace any of its fields.

    >>> recipe("gpt2", 50257, 768).max_len
    1024
    """
    if name not in RECIPES:
        raise unknown_name("recipe", name, list(RECIPES))
    known = {f.name for f in fields(EmbeddingConfig)}
    for key in overrides:
        if key not in known:
            raise InvalidValueError(f"{key!r} is not an EmbeddingConfig field; fields: {', '.join(sorted(known))}")
    return EmbeddingConfig(vocab_size=vocab_size, dim=dim, **{**RECIPES[name], **overrides})


ADDEND_NAMES = ("token", "position", "segment")  # the rows a recipe may add up, in the order it adds them


@dataclass
class EmbeddingParts:
    """What one forward pass adds up, each (B, T, D) or broadcastable to it; None where the recipe
    has no such table or the caller left the addend out of the sum."""

    token: torch.Tensor | None  # token rows, already scaled by the recipe's factor
    position: torch.Tensor | None  # (T, D) or (B, T, D) additive position rows
    segment: torch.Tensor | None
    total: torch.Tensor  # (B, T, W) the sum of the addends above that are not None (W = D), or, concat, [a | b | c]
    output: torch.Tensor  # after LayerNorm and dropout (the same tensor as total if none)


class InputEmbedding(nn.Module):
    """(B, T) int ids [+ (B, T) segment ids, (T,) or (B, T) positions] -> (B, T, D).

    Parts, each open for inspection: `token` (TokenEmbedding), `position` (additive module or
    None), `segment` (SegmentEmbedding or None), `norm` and `dropout` (nn.Identity when the
    recipe has none, so forward never branches on them).

    `token`, when given, is the table to read ids with instead of a TokenEmbedding: any module
    mapping (B, T) ids in [0, V) to (B, T, D), such as a hashed or adaptive table (layers/hashed.py,
    layers/adaptive.py). Its recipe must not scale the rows (the scale lives in TokenEmbedding).
    """

    def __init__(self, config: EmbeddingConfig, device=None, dtype=None, token: nn.Module | None = None) -> None:
        super().__init__()
        self.config = c = config
        kw = dict(device=device, dtype=dtype)
        if token is None:
            self.token = TokenEmbedding(c.vocab_size, c.dim, padding_idx=c.padding_idx, std=c.std, scale=c.scale, **kw)
        elif c.scale is not None or c.padding_idx is not None:
            raise InvalidValueError(
                "a table given as `token` takes no scale or padding_idx; "
                f"got scale {c.scale!r}, padding_idx {c.padding_idx!r}"
            )
        else:
            self.token = token.to(**kw)
        self.position = POSITIONS[c.positions](c.max_len, c.dim, **kw) if c.positions in POSITIONS else None
        self.segment = SegmentEmbedding(c.n_segments, c.dim, std=c.std, **kw) if c.n_segments else None
        self.norm = nn.LayerNorm(c.width, eps=c.layer_norm_eps, **kw) if c.layer_norm else nn.Identity()
        self.dropout = nn.Dropout(c.dropout) if c.dropout else nn.Identity()

    @classmethod
    def from_recipe(cls, name: str, vocab_size: int, dim: int, device=None, dtype=None, **overrides) -> InputEmbedding:
        """InputEmbedding(recipe(name, vocab_size, dim, **overrides))."""
        return cls(recipe(name, vocab_size, dim, **overrides), device=device, dtype=dtype)

    @property
    def width(self) -> int:
        """The width of the output X: D (add) or k·D (concat)."""
        return self.config.width

    @property
    def addend_names(self) -> tuple[str, ...]:
        """The addends this recipe sums, in order: ("token", "position", "segment") for bert,
        ("token", "position") for gpt2, ("token",) for the rotary recipes."""
        has = {"token": True, "position": self.position is not None, "segment": self.segment is not None}
        return tuple(name for name in ADDEND_NAMES if has[name])

    def check_include(self, include: Collection[str] | None) -> tuple[str, ...]:
        """The addends to sum, in addend_names order: all of them for None; else the named ones, each
        one of addend_names, at least one (an empty sum would hand LayerNorm a zero row)."""
        names = self.addend_names
        if include is None:
            return names
        if isinstance(include, str):  # a lone name would otherwise be read letter by letter
            include = (include,)
        for name in include:
            if name not in names:
                raise InvalidValueError(f"{name!r} is not an addend of this recipe; its addends: {', '.join(names)}")
        if not include:
            raise InvalidValueError(f"the sum needs at least one addend of {', '.join(names)}; got none")
        return tuple(name for name in names if name in include)

    def addends(
        self,
        ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        positions: torch.Tensor | None = None,
        include: Collection[str] | None = None,
    ) -> EmbeddingParts:
        """Every addend of the input embedding, their sum and the output; see EmbeddingParts.

        `include` (default: every addend) names the addends that go into the sum; the others are
        left out of the total, of LayerNorm's input and so of the output, and come back as None.
        Without "position" every occurrence of a token gets the same row, wherever it stands.
        """
        if not isinstance(ids, torch.Tensor) or ids.dim() < 1:
            raise InvalidValueError("ids must be a tensor of shape (B, T) or (T,)")
        T = ids.shape[-1]
        _check_shape("segment_ids", segment_ids, (tuple(ids.shape),), ids)
        _check_shape("positions", positions, ((T,), tuple(ids.shape)), ids)
        include = self.check_include(include)
        if self.config.combine == "concat" and len(include) < len(self.addend_names):
            raise InvalidValueError(
                f"concat lays every addend side by side at width {self.width}; got only {', '.join(include)}"
            )
        # subtle: the token rows are looked up even when left out of the sum: the lookup checks the ids.
        token = self.token(ids)  # (B, T, D)

        position = None
        if self.position is not None:
            if positions is None:
                positions = torch.arange(T, device=ids.device)  # (T,), broadcast over B
            position = self.position(positions)  # (T, D) or (B, T, D)
        elif positions is not None:
            raise InvalidValueError(
                f"recipe positions={self.config.positions!r} adds no position rows; "
                "rotary positions are applied to q and k inside attention (RotaryPositions), "
                "relative ones as a bias on its scores (RelativePositionBias)"
            )

        segment = None
        if self.segment is not None:
            if segment_ids is None:
                segment_ids = torch.zeros_like(ids)  # everything in sentence A, as BERT does
            segment = self.segment(segment_ids)  # (B, T, D)
        elif segment_ids is not None:
            raise InvalidValueError("segment_ids given, but this recipe has no segment table (n_segments=0)")

        rows = dict(zip(ADDEND_NAMES, (token, position, segment), strict=True))
        kept = {name: rows[name] for name in include}  # include is in ADDEND_NAMES order
        if self.config.combine == "concat":  # [token | position | segment]: (B, T, k·D)
            total = torch.cat([row.expand_as(token) for row in kept.values()], dim=-1)
        else:
            total = None
            for row in kept.values():  # token + position + segment, left to right, as the recipes write it
                total = row if total is None else total + row
            total = total.expand_as(token)  # a position row alone is (T, D): the same one for every batch row
        output = self.dropout(self.norm(total))  # (B, T, W), W = D added, k·D concatenated
        return EmbeddingParts(**{name: kept.get(name) for name in ADDEND_NAMES}, total=total, output=output)

    def forward(
        self,
        ids: torch.Tensor,
        segment_ids: torch.Tensor | None = None,
        positions: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """(B, T) int ids -> (B, T, D)."""
        return self.addends(ids, segment_ids, positions).output

    def make_head(self) -> LMHead:
        """The output head this family uses: tied to the token table, or a fresh untied one (reading
        hidden states of width W: concatenated rows leave no head to tie, the table being D wide)."""
        c = self.config
        w = self.token.weight
        if c.tied_head and c.width != c.dim:
            raise InvalidValueError(
                f"a tied head scores hidden states against the (V, {c.dim}) token table; concat makes them "
                f"{c.width} wide: use an untied head"
            )
        return LMHead(
            c.width, c.vocab_size, tied_to=self.token if c.tied_head else None, device=w.device, dtype=w.dtype
        )

    def make_position_bias(
        self,
        n_heads: int,
        bidirectional: bool = True,
        num_buckets: int = NUM_BUCKETS,
        max_distance: int = MAX_DISTANCE,
    ) -> RelativePositionBias:
        """The bias a positions="relative" family (T5) adds to the attention scores instead of adding
        position rows here: one per stack, shared by its layers; bidirectional for an encoder, causal
        (bidirectional=False) for a decoder. Initialised as T5 does it, normal with std D^-0.5."""
        c = self.config
        if c.positions != "relative":
            raise InvalidValueError(
                f"recipe positions={c.positions!r} has no attention bias; only positions='relative' (t5) has one"
            )
        w = self.token.weight
        return RelativePositionBias(
            n_heads, bidirectional, num_buckets, max_distance, std=c.dim**-0.5, device=w.device, dtype=w.dtype
        )


def _check_shape(
    name: str, value: torch.Tensor | None, allowed: tuple[tuple[int, ...], ...], ids: torch.Tensor
) -> None:
    """Addends must line up with ids exactly; a silent broadcast would add one row to every token."""
    if value is not None and (not isinstance(value, torch.Tensor) or tuple(value.shape) not in allowed):
        got = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
        shapes = " or ".join(str(a) for a in allowed)
        raise InvalidValueError(f"{name} must have shape {shapes} to match ids {tuple(ids.shape)}; got {got}")
