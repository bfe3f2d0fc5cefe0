"""What an embedding layout costs beyond its own tables: the activations X it hands on (B·T·D),
the GPT-2 blocks that read it (`gpt2_params`, `block_params`), and what concatenating the input
rows instead of adding them does to every later layer (`combine_cost`, lesson 001 ch. 2)."""

from __future__ import annotations

from dataclasses import dataclass

from embedlab.errors import InvalidValueError, check_choice, check_int
from embedlab.sizing.layout import BYTES_PER_PARAM, COMBINES, EmbeddingLayout, count


def activation_bytes(layout: EmbeddingLayout, batch: int, seq: int | None = None, dtype: str = "fp32") -> int:
    """Bytes of the embedding output X, (B, T, D) values in `dtype`, for one forward pass.

    T is `seq` for text (at most max_len with learned positions: there are no rows past it). An
    image's T is fixed, N + 1 (the patches and CLS), so `seq` must be None. BERT-base at B 32,
    T 512 in fp32: 32·512·768·4 = 50,331,648 bytes, about half its tables' 95,342,592:

    >>> from embedlab.sizing import preset
    >>> activation_bytes(preset("bert-base"), batch=32, seq=512)
    50331648
    """
    batch = check_int("batch", batch, low=1)
    check_choice("dtype", dtype, tuple(BYTES_PER_PARAM))
    if layout.is_image and seq is not None:
        raise InvalidValueError(f"an image layout's T is fixed, N + 1 = {layout.n_patches + 1}: give no seq; got {seq}")
    if seq is None and not layout.is_image:
        raise InvalidValueError("a text layout needs seq, its tokens per sequence (>= 1); got none")
    T = layout.n_patches + 1 if layout.is_image else check_int("seq", seq, low=1)
    if layout.positions == "learned" and not layout.is_image and T > layout.max_len:
        raise InvalidValueError(f"seq must be at most max_len {layout.max_len} (learned position rows); got {T}")
    return batch * T * layout.dim * BYTES_PER_PARAM[dtype]  # (B, T, D) values


def gpt2_params(layout: EmbeddingLayout, n_layers: int) -> int:
    """Every parameter of a GPT-2-shaped decoder: `layout`'s tables, `n_layers` blocks, a final LayerNorm.

    Set against the whole model, the embedding part's size means something ("GPT-2 small's token
    table is 31% of it"). One block of width D holds 12·D² + 13·D parameters:

        attention  q, k, v: D·3D + 3D;  output: D·D + D       4·D² + 4·D
        MLP        D -> 4D -> D, each with a bias            8·D² + 5·D
        LayerNorm  two, each a scale and a shift             4·D

    GPT-2 small (12 blocks, D 768): 39,383,808 (tables) + 12 · 7,087,872 + 2 · 768 = 124,439,808,
    the "124M" of its name:

    >>> from embedlab.sizing import preset
    >>> gpt2_params(preset("gpt2"), n_layers=12)
    124439808
    """
    n_layers = check_int("n_layers", n_layers, low=0)
    if layout.is_image:
        raise InvalidValueError(
            f"a GPT-2 decoder needs a text layout; got an image layout (patch_size {layout.patch_size})"
        )
    D = layout.dim
    return count(layout).total_params + n_layers * block_params(D) + 2 * D  # 2·D: the final LayerNorm


def block_params(width: int) -> int:
    """Parameters of one GPT-2 block of width W: 12·W² + 13·W (see gpt2_params).

    >>> block_params(768)
    7087872
    """
    W = check_int("width", width, low=1)
    return 12 * W * W + 13 * W


@dataclass(frozen=True)
class CombineCost:
    """What the way the input rows combine costs every layer after them (lesson 001 ch. 2).

    Added, the k rows (token, position, segment) make X of width D; concatenated, of width k·D,
    and every block after it, the output head and every activation grow with it: a block's
    parameters and FLOPs by (W/D)² (its 12·W² matmul weights dominate), its activations by W/D.
    """

    combine: str  # "add" | "concat"
    parts: tuple[str, ...]  # the tables whose rows make X: ("token", "position", "segment") for BERT
    dim: int  # D, every table's row width
    width: int  # W, the width of X and of every layer after it
    block_params: int  # one GPT-2 block at W: 12·W² + 13·W
    block_ratio: float  # block_params over one block at D (1.0 when added)
    head_params: int  # an untied output head W × V (text; 0 for an image); none can be tied at W != D


def combine_cost(layout: EmbeddingLayout, combine: str) -> CombineCost:
    """The width of X and the cost of one later block when `layout`'s rows are added or concatenated.

    BERT-base concatenated: [token | position | segment], 3 × 768 = 2304 wide; a block there holds
    63,730,944 parameters, 8.99 times one at 768 (7,087,872):

    >>> from embedlab.sizing import preset
    >>> cost = combine_cost(preset("bert-base"), "concat")
    >>> cost.width, cost.block_params, round(cost.block_ratio, 2)
    (2304, 63730944, 8.99)
    """
    check_choice("combine", combine, COMBINES)
    first = "patch" if layout.is_image else "token"
    has = {first: True, "position": layout.positions in ("learned", "sinusoidal"), "segment": layout.n_segments > 0}
    parts = tuple(name for name, present in has.items() if present)
    D = layout.dim
    W = D if combine == "add" else len(parts) * D
    head = 0 if layout.is_image else W * layout.vocab_size
    return CombineCost(combine, parts, D, W, block_params(W), block_params(W) / block_params(D), head)
