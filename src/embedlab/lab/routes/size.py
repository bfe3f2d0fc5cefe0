"""Table size (simulation 2): parameters and memory of an embedding part from embedlab.sizing,
for the model presets or a layout the page sets."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.sizing import BYTES_PER_PARAM, POSITION_KINDS, PRESETS, EmbeddingLayout, count

router = APIRouter(prefix="/api/size", tags=["size"])

MAX_VOCAB = 10_000_000
MAX_DIM = 65_536
MAX_LEN = 1_000_000


@router.get("/presets")
def presets() -> dict:
    """Every model preset with its layout and its fp32 count."""
    return {name: count(layout).to_dict() for name, layout in PRESETS.items()}


@router.get("")
def size(
    vocab_size: Annotated[int, Query(ge=1, le=MAX_VOCAB)] = 30522,
    dim: Annotated[int, Query(ge=1, le=MAX_DIM)] = 768,
    dtype: Annotated[str, Query(pattern="^(" + "|".join(BYTES_PER_PARAM) + ")$")] = "fp32",
    tied: bool = True,
    positions: Annotated[str, Query(pattern="^(" + "|".join(POSITION_KINDS) + ")$")] = "learned",
    max_len: Annotated[int, Query(ge=0, le=MAX_LEN)] = 512,
    n_segments: Annotated[int, Query(ge=0, le=16)] = 0,
) -> dict:
    """Parameters per table, total, bytes and MiB of one text layout in `dtype`."""
    layout = EmbeddingLayout(vocab_size=vocab_size, dim=dim, positions=positions, max_len=max_len,
                             n_segments=n_segments, tied=tied)  # fmt: skip
    return count(layout, dtype).to_dict()
