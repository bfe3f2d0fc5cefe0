"""Answers of the pages about what enters the model: input recipe, patches, tying, scale,
attention, static vs contextual."""

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


# ---- static vs contextual -------------------------------------------------------------------------


class NearestRow(Answer):
    piece: str
    cosine: float


class ContextLayer(Answer):
    layer: int  # 0: the input embedding
    norms: Vector  # (n,) one per occurrence
    cosines: Matrix  # (n, n)
    baseline: float  # mean cosine of two different tokens of the texts at this layer
    nearest: list[list[NearestRow]]  # per occurrence, the closest static token rows


class OccurrenceAnswer(Answer):
    text: int  # which sentence
    start: int  # pieces [start, end) of that sentence
    end: int


class MapToken(Answer):
    text: int
    index: int
    piece: str


class ContextMap(Answer):
    tokens: list[MapToken]  # every real token of every sentence, in order
    frames: list[Matrix]  # per layer, (N, 2)
    variance: Matrix  # per layer, the two axes' shares of the variance


class ContextAttention(Answer):
    layer: int  # the encoder layer (0 reads the input embedding)
    head: int
    rows: Matrix  # per occurrence, its first piece's weights over its sentence's pieces


class ContextAnswer(Answer):
    word: str
    word_pieces: list[str]
    pooling: str
    texts: list[str]
    pieces: list[list[str]]
    occurrences: list[OccurrenceAnswer]
    n_layers: int  # encoder layers; hidden states are n_layers + 1
    n_heads: int
    layers: list[ContextLayer]
    map: ContextMap
    attention: ContextAttention
