"""Answers of the pages about a table's rows: the lab's tables and themes, lookup, size, geometry, sparse gradients."""

from __future__ import annotations

from embedlab.lab.schemas.base import Answer, Limit, Matrix, Vector

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
