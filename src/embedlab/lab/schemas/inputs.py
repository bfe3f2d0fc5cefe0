"""Answers of the static vs contextual page."""

from __future__ import annotations

from embedlab.lab.schemas.base import Answer, Matrix, Vector

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
