"""Table size (simulation 2): parameters and memory of an embedding part from embedlab.sizing,
for the model presets or a layout the page sets; and a block of a served table for a heat map."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import TableDep
from embedlab.lab.schemas import Limit, SizeAnswer, answer_model
from embedlab.sims.lookup import TableSlice, neighbourhood_slice, table_slice
from embedlab.sizing import BYTES_PER_PARAM, POSITION_KINDS, PRESETS, EmbeddingLayout, count

router = APIRouter(prefix="/api/size", tags=["size"])

MAX_VOCAB = 10_000_000
MAX_DIM = 65_536
MAX_LEN = 1_000_000
MAX_SEGMENTS = 16
MAX_SLICE_ROWS = 256  # rows of a heat map
MAX_SLICE_DIMS = 512  # columns of a heat map
MAX_TOKEN = 100  # characters of a token
LIMITS: dict[str, Limit] = {
    "vocab_size": [1, MAX_VOCAB], "dim": [1, MAX_DIM], "max_len": [0, MAX_LEN], "n_segments": [0, MAX_SEGMENTS],
    "dtypes": list(BYTES_PER_PARAM), "positions": list(POSITION_KINDS), "rows": [1, MAX_SLICE_ROWS],
    "dims": [1, MAX_SLICE_DIMS], "token": MAX_TOKEN,
}  # fmt: skip


@router.get("/presets", response_model=dict[str, SizeAnswer])
def presets() -> dict:
    """Every model preset with its layout and its fp32 count."""
    return {name: count(layout).to_dict() for name, layout in PRESETS.items()}


@router.get("", response_model=SizeAnswer)
def size(
    vocab_size: Annotated[int, Query(ge=1, le=MAX_VOCAB)] = 30522,
    dim: Annotated[int, Query(ge=1, le=MAX_DIM)] = 768,
    dtype: Annotated[str, Query(pattern="^(" + "|".join(BYTES_PER_PARAM) + ")$")] = "fp32",
    tied: bool = True,
    positions: Annotated[str, Query(pattern="^(" + "|".join(POSITION_KINDS) + ")$")] = "learned",
    max_len: Annotated[int, Query(ge=0, le=MAX_LEN)] = 512,
    n_segments: Annotated[int, Query(ge=0, le=MAX_SEGMENTS)] = 0,
) -> dict:
    """Parameters per table, total, bytes and MiB of one text layout in `dtype`."""
    layout = EmbeddingLayout(vocab_size=vocab_size, dim=dim, positions=positions, max_len=max_len,
                             n_segments=n_segments, tied=tied)  # fmt: skip
    return count(layout, dtype).to_dict()


@router.get("/slice", response_model=answer_model(TableSlice))
def table_block(
    vectors: TableDep,
    start: Annotated[int, Query(ge=0, description="first row (below the table's V)")] = 0,
    rows: Annotated[int, Query(ge=1, le=MAX_SLICE_ROWS, description=f"rows, 1..{MAX_SLICE_ROWS}")] = 32,
    dims: Annotated[int, Query(ge=1, le=MAX_SLICE_DIMS, description=f"columns, 1..{MAX_SLICE_DIMS}")] = 64,
    token: Annotated[str | None, Query(min_length=1, max_length=MAX_TOKEN)] = None,
) -> TableSlice:
    """E[start : start + rows, :dims] with the rows' keys, cut short at the table's edges; with
    `token`, that token's row and its rows − 1 nearest rows by cosine instead (start unused)."""
    if token is not None:
        return neighbourhood_slice(vectors, token, rows, dims)
    return table_slice(vectors, start, rows, dims)
