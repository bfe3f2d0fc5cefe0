"""Answers of the pages about what enters the model: input recipe, patches, tying, scale,
attention."""

from __future__ import annotations

from embedlab.lab.schemas.base import Answer, Matrix, Vector

# ---- recipe, patches, tying, scale ----------------------------------------------------------------


class RecipeAnswer(Answer):
    recipe: str
    pretrained: bool
    config: dict[str, str | int | float | bool | None]  # the recipe's EmbeddingConfig
    pieces: list[str]
    ids: list[int]
    index: int
    available: list[str]  # the recipe's addends
    addends: list[str]  # those summed: rows holds these, total and output
    piece: str
    id: int
    position: int
    segment: int | None  # None: the recipe has no segment table
    rows: dict[str, Vector]  # addend -> (D,)
    norms: dict[str, float]
    x_cosine: Matrix  # (T, T) cosine between the X rows of every two pieces
    identical: list[list[int]]  # groups of pieces whose X rows are equal


class PatchOptions(Answer):
    images: list[str]
    patch_sizes: list[int]
    dims: list[int]
    size: int  # the page's image side


class TilingAnswer(Answer):
    size: int
    patch_size: int
    grid: list[int]
    num_patches: int
    attention_scores: int
    patch_dim: int
    dim: int
    projection_params: int


class PatchAnswer(Answer):
    image: str
    size: int
    patch_size: int
    dim: int
    seed: int
    index: int
    row: int
    col: int
    top: int
    left: int
    order: str
    pixels: Vector  # (C·P·P,) in `order`
    embedding: Vector  # (D,)


class HeadLogits(Answer):
    logits: Vector  # (V_small,)
    top: str


class TyingParameters(Answer):
    vocab_size: int
    dim: int
    small_vocab_size: int
    tied: int
    untied: int
    small_tied: int
    small_untied: int


class TyingAnswer(Answer):
    table: str
    words: list[str]
    a: str
    b: str
    t: float
    seed: int
    h: Vector  # (D,)
    tied: HeadLogits
    untied: HeadLogits
    params: TyingParameters


class ScaleAnswer(Answer):
    dim: int
    std: float
    factor: float
    n_tokens: int
    n_positions: int
    token_norm: float
    position_norm: float
    ratio: float
    expected_token_norm: float
    expected_position_norm: float
    same_position_cosine: float
    same_token_cosine: float
    sample_positions: list[int]
    token: Matrix  # (S, K)
    position: Matrix  # (S, K)
    combined: list[Matrix]  # (S, S, K)
    init: str


# ---- attention -------------------------------------------------------------------------------------


class HeadSummaries(Answer):
    mean_entropy: Vector  # (H,)
    raw_mean_entropy: Vector
    mean_max_weight: Vector
    raw_mean_max_weight: Vector


class AttentionAnswer(Answer):
    text: str
    layer: int
    n_layers: int
    pieces: list[str]
    ids: list[int]
    n_heads: int
    head_dim: int
    scale: float
    uniform_entropy: float
    head: int
    scores: Matrix  # (T, T)
    raw_scores: Matrix
    weights: Matrix
    raw_weights: Matrix
    entropy: Vector  # (T,)
    raw_entropy: Vector
    max_weight: Vector
    raw_max_weight: Vector
    heads: HeadSummaries
