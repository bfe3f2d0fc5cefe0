"""Table size (simulation 2): parameters and memory of an embedding part from embedlab.sizing,
for a model preset's layout or one the page sets; the activations X (B, T, D) it hands on, beside;
the token table stored as fp32, fp16, int8 or product-quantized codes; and a block of a served table
for a heat map (embedlab.sims.size, embedlab.sims.lookup)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from embedlab.lab.deps import MAX_TOKEN, TableDep, one_of
from embedlab.lab.schemas import answer_model
from embedlab.sims.lookup import TableSlice, neighbourhood_slice, table_slice
from embedlab.sims.size import (
    DSUB,
    LIMITS,
    MAX_BATCH,
    MAX_CHANNELS,
    MAX_DIM,
    MAX_IMAGE,
    MAX_LEN,
    MAX_SEGMENTS,
    MAX_SEQ,
    MAX_SLICE_DIMS,
    MAX_SLICE_ROWS,
    MAX_VOCAB,
    Activations,
    EmbeddingLayout,
    SizeReport,
    StoredBytes,
    activations,
    count,
    layout,
    presets,
    token_stored,
)

router = APIRouter(prefix="/api/size", tags=["size"])


@router.get("/presets", response_model=dict[str, answer_model(EmbeddingLayout)])
def model_presets() -> dict[str, EmbeddingLayout]:
    """Every model preset's whole layout, by name: the page sends it back to /api/size as it is."""
    return presets()


def _layout(
    vocab_size: Annotated[int, Query(ge=0, le=MAX_VOCAB, description="V; 0 for an image layout")] = 30522,
    dim: Annotated[int, Query(ge=1, le=MAX_DIM, description="D")] = 768,
    tied: bool = True,
    positions: Annotated[str, one_of(LIMITS["positions"])] = "learned",
    max_len: Annotated[int, Query(ge=0, le=MAX_LEN, description="rows of learned text positions")] = 512,
    n_segments: Annotated[int, Query(ge=0, le=MAX_SEGMENTS)] = 0,
    image_size: Annotated[int, Query(ge=0, le=MAX_IMAGE, description="H = W; 0 for text")] = 0,
    patch_size: Annotated[int, Query(ge=0, le=MAX_IMAGE, description="P; > 0 makes an image layout")] = 0,
    in_channels: Annotated[int, Query(ge=1, le=MAX_CHANNELS, description="C of an image")] = 3,
) -> EmbeddingLayout:
    """The layout the query describes (text, or image with patch_size > 0), checked by sims.size.layout."""
    return layout(dim, vocab_size, positions, max_len, n_segments, tied, image_size, patch_size, in_channels)


LayoutDep = Annotated[EmbeddingLayout, Depends(_layout)]
DtypeQuery = Annotated[str, one_of(LIMITS["dtypes"])]


@router.get("", response_model=answer_model(SizeReport))
def size(made: LayoutDep, dtype: DtypeQuery = "fp32") -> SizeReport:
    """Parameters per table, total, bytes and MiB of one layout in `dtype`."""
    return count(made, dtype)


@router.get("/activations", response_model=answer_model(Activations))
def output_size(
    made: LayoutDep,
    batch: Annotated[int, Query(ge=1, le=MAX_BATCH, description="B")] = 32,
    seq: Annotated[int | None, Query(ge=1, le=MAX_SEQ, description="T of a text layout; none for an image")] = None,
    dtype: DtypeQuery = "fp32",
) -> Activations:
    """Bytes of the output X (B, T, D) of one layout in `dtype`, beside its tables' bytes; an image's T
    is N + 1."""
    return activations(made, batch, seq, dtype)


@router.get("/stored", response_model=answer_model(StoredBytes))
def stored_size(
    made: LayoutDep,
    dsub: Annotated[int, Query(ge=1, le=MAX_DIM, description="columns a code byte stands for (at most D)")] = DSUB,
    qnorm: Annotated[bool, Query(description="each row's norm a byte apart, as fastText's -qnorm")] = False,
) -> StoredBytes:
    """The token table of a text layout stored as fp32, fp16, int8 and product-quantized (fastText's .ftz)."""
    return token_stored(made, dsub, qnorm)


@router.get("/slice", response_model=answer_model(TableSlice))
def table_block(
    vectors: TableDep,
    start: Annotated[
        int | None, Query(ge=0, description="first row (below the table's V); none: the table's first word")
    ] = None,
    rows: Annotated[int, Query(ge=1, le=MAX_SLICE_ROWS, description=f"rows, 1..{MAX_SLICE_ROWS}")] = 32,
    dims: Annotated[int, Query(ge=1, le=MAX_SLICE_DIMS, description=f"columns, 1..{MAX_SLICE_DIMS}")] = 64,
    token: Annotated[
        str | None, Query(min_length=1, max_length=MAX_TOKEN, description="a key: its nearest rows")
    ] = None,
) -> TableSlice:
    """E[start : start + rows, :dims] with the rows' keys, cut short at the table's edges; with
    `token`, that token's row and its rows − 1 nearest rows by cosine instead (start unused)."""
    if token is not None:
        return neighbourhood_slice(vectors, token, rows, dims)
    return table_slice(vectors, start, rows, dims)
