"""SegmentEmbedding: which sentence a token belongs to (BERT's sentence A / sentence B)."""

from __future__ import annotations

from embedlab.errors import check_int
from embedlab.layers.token import TokenEmbedding


class SegmentEmbedding(TokenEmbedding):
    """(...) int segment ids -> (..., D) rows of a learned (n_segments, D) table.

    A lookup table like the token table, only tiny: BERT has 2 rows ("token type" in
    HuggingFace). A segment id outside [0, n_segments) raises InvalidValueError naming it.
    """

    id_name, size_name = "segment id", "n_segments"

    def __init__(self, n_segments: int, dim: int, std: float = 0.02, device=None, dtype=None) -> None:
        check_int("n_segments", n_segments, low=1)
        super().__init__(n_segments, dim, std=std, device=device, dtype=dtype)

    @property
    def n_segments(self) -> int:
        return self.vocab_size
