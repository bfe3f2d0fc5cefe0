"""The lab's request and response bodies, as /openapi.json documents them.

Responses mirror the library's `to_dict()` outputs field for field (extra="forbid": a field the
library adds and this file lacks fails the route's tests instead of going undocumented). Vectors
are lists of floats, matrices lists of rows.

The one module past 400 lines, on purpose: some fifty small models with no logic, grouped by page
in the nav's order, so every answer the API gives is read in one place.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Vector = list[float]
Matrix = list[list[float]]
Limit = int | float | str | list[int] | list[float] | list[str]  # a bound, a [low, high] pair, or the choices


class Answer(BaseModel):
    """A response body: exactly these fields."""

    model_config = ConfigDict(extra="forbid")


# ---- the lab as a whole ---------------------------------------------------------------------------


class TableList(Answer):
    tables: list[str]  # served tables, by the names requests use


class Themes(Answer):
    names: list[str]  # the THEMES groups, in order
    other: str  # the group of a word in none of them
    chosen: str  # the lookup map's group for the looked-up word when it is in none
    colours: dict[str, str]  # group (other included) -> CSS colour


class LabConfig(Answer):
    themes: Themes
    limits: dict[str, dict[str, Limit]]  # page -> name -> its bound, [low, high] or choices


# ---- lookup and size ------------------------------------------------------------------------------


class RowAnswer(Answer):
    table: str
    key: str
    index: int
    row: Vector  # (D,)
    norm: float
    vocab_size: int
    dim: int


class MapAnswer(Answer):
    table: str
    method: str
    keys: list[str]
    coordinates: Matrix  # (n_points, 2)
    explained_variance_ratio: Vector
    n_points: int
    centred: bool
    normalised: bool
    caption: str
    words: list[str]
    themes: list[str]
    theme_names: list[str]
    highlight: int  # the looked-up word's point


class OneHotAnswer(Answer):
    table: str
    key: str
    index: int
    keys: list[str]  # the small vocabulary
    rows: list[int]  # their rows in the full table
    position: int  # where the key sits in the small vocabulary
    one_hot: Vector
    dim: int
    e_small: Matrix  # (size, dims)
    product: Vector  # one_hot @ e_small
    row: Vector  # E[index][:dims]
    max_abs_difference: float  # over all D columns


class SizeAnswer(Answer):
    vocab_size: int
    dim: int
    positions: str
    max_len: int
    n_segments: int
    tied: bool
    image_size: int
    patch_size: int
    in_channels: int
    n_patches: int
    token_params: int
    position_params: int
    segment_params: int
    output_params: int
    patch_params: int
    cls_params: int
    total_params: int
    dtype: str
    bytes_per_param: int
    bytes: int
    mib: float
    shares: dict[str, float]  # table -> fraction of total_params


class SliceAnswer(Answer):
    table: str
    keys: list[str]
    rows: list[int]
    values: Matrix  # (rows, dims)
    vocab_size: int
    dim: int


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


# ---- training --------------------------------------------------------------------------------------

DIMS = (2, 8, 32, 100, 300)  # the page's choices; any width in 2..MAX_DIM is accepted
MAX_DIM = 300
MAX_EPOCHS = 10
MIN_WORDS, MAX_WORDS = 1_000, 5_000_000  # the word limit: ~45 s at the 116k words/s of one thread
MAX_NAME = 100  # characters of a corpus or token name


class StartRequest(BaseModel):
    """A run to start: every field bounded (unknown fields, such as threads, are refused)."""

    model_config = ConfigDict(extra="forbid")
    corpus: str = Field("enwiki-sample", min_length=1, max_length=MAX_NAME, description="a built-in corpus name")
    method: Literal["sgns", "cbow"] = "sgns"
    dim: int = Field(8, ge=2, le=MAX_DIM, description=f"row width D, 2..{MAX_DIM}")
    epochs: int = Field(3, ge=1, le=MAX_EPOCHS, description=f"passes over the corpus, 1..{MAX_EPOCHS}")
    max_words: int = Field(MAX_WORDS, ge=MIN_WORDS, le=MAX_WORDS, description="stop after this many words")


class TrainingOptions(Answer):
    corpora: list[str]  # the built-in corpora installed here
    methods: list[str]
    dims: list[int]
    defaults: StartRequest


class FrameAnswer(Answer):
    index: int
    done: int  # words trained when it was taken
    coordinates: Matrix  # (W, 2)
    variance: Vector  # share of the variance on each axis


class TrainingState(Answer):
    run: int
    status: str
    message: str
    config: dict[str, Any] | None  # the RunConfig's settings
    max_words: int | None
    progress: dict[str, Any] | None  # train.run.Progress; loss None before the first scored word
    tokens: list[str]
    themes: list[str]
    frame_count: int
    frames: list[FrameAnswer]


class WatchedRowAnswer(Answer):
    token: str
    frame: int
    done: int
    row: Vector  # (D,)
    norm: float


# ---- subwords --------------------------------------------------------------------------------------


class VocabularyState(Answer):
    size: int  # asked for
    trained: bool
    # how it was made, once trained:
    corpus: str | None = None
    vocab_size: int | None = None
    lines: int | None = None
    held_out: int | None = None
    train_seconds: float | None = None
    count_seconds: float | None = None


class CorpusVocabularies(Answer):
    name: str
    available: bool
    missing: str | None  # why it cannot be read here
    vocabularies: list[VocabularyState]


class VocabulariesAnswer(Answer):
    sizes: list[int]
    default: str
    corpora: list[CorpusVocabularies]


class PieceAnswer(Answer):
    piece: str
    text: str
    id: int
    count: int
    band: str


class SplitView(Answer):
    size: int
    vocab_size: int
    pieces: list[PieceAnswer]


class SplitAnswer(Answer):
    corpus: str
    text: str
    leading_space: bool
    vocabularies: list[SplitView]


class RungAnswer(Answer):
    size: int
    vocab_size: int
    pieces_per_word: float
    pieces_per_rare_word: float
    pieces_per_other_word: float
    paragraph_tokens: int
    rare_piece_share: float
    spelled_back: bool
    params: int
    mib_fp32: float
    mib_fp16: float
    word_rows: int
    word_oov_running: float
    word_oov_distinct: float
    word_paragraph_unknown: int


class LeftOutAnswer(Answer):
    size: int
    reason: str


class SubwordTableAnswer(Answer):
    corpus: str
    held_out_every: int
    train_lines: int
    held_out_lines: int
    held_out_words: int
    distinct_words: int
    rare_band: str
    rare_below: int
    rare_words: int
    rare_share: float
    paragraph: str
    paragraph_words: int
    dim: int
    rungs: list[RungAnswer]
    left_out: list[LeftOutAnswer]


# ---- geometry --------------------------------------------------------------------------------------


class Scored(Answer):
    key: str
    score: float


class NeighborsAnswer(Answer):
    table: str
    query: str
    metric: str
    higher_is_better: bool
    inputs: list[str]
    exclude_inputs: bool
    neighbors: list[Scored]


class PairAnswer(Answer):
    table: str
    a: str
    b: str
    dot: float
    norm_a: float
    norm_b: float
    cosine: float
    angle_degrees: float
    product: float
    distance: float


# ---- gradients -------------------------------------------------------------------------------------


class BatchAnswer(Answer):
    ids: list[int]
    vocab_size: int
    dim: int
    loss: float
    grad_out: Matrix  # (T, D)
    rows: list[int]
    counts: list[int]
    values: Matrix  # (rows, D)
    norms: Vector
    grad_table: Matrix  # (V, D)


class Moves(Answer):
    first: Vector  # (V,) ‖ΔE_r‖ in step 1
    second: Vector


class StepsAnswer(Answer):
    first: list[int]
    second: list[int]
    lr: float
    dropped: list[int]
    moves: dict[str, Moves]  # optimizer -> its moves


class UpdateBand(Answer):
    name: str
    floor: int
    rows: int
    mean_count: float | None  # None for an empty band
    mean_updates: float | None
    updates_per_occurrence: float | None


class UpdatePoints(Answer):
    keys: list[str]
    counts: list[int]
    updates: list[int]


class UpdatesAnswer(Answer):
    table: str
    bands: list[UpdateBand]
    spearman: float | None
    rows: int
    never_updated: int
    points: UpdatePoints


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


# ---- strategy arena ---------------------------------------------------------------------------------


class ArenaEvent(Answer):
    strategy: str
    seed: int
    stage: str  # preparing | training | finished | resumed
    elapsed: float  # training seconds so far
    seconds: float  # of the budget
    value: float | None  # the latest curve point (bits per byte or accuracy)


class ArenaState(Answer):
    status: str  # idle | running | finished | failed (the race this server started)
    message: str  # why it failed
    progress: list[ArenaEvent]  # one per (strategy, seed) of the running race
    source: str | None  # "full" or "quick": which race `race` is; None before any
    race: dict[str, Any] | None  # the race's summary, as results.json holds it (see embedlab.arena.runner)
