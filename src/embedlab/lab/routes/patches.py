"""Patches (simulation 4): a real photograph cut into patches and projected by PatchEmbedding
(embedlab.sims.patches).

The projection is fresh (never trained) and drawn from a fixed seed, so a patch's embedding is
the same on every request and every server.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from embedlab.lab.deps import HEAVY, Seed
from embedlab.lab.schemas import answer_model
from embedlab.sims.patches import (
    MAX_DIM,
    MAX_PATCH,
    MAX_SIZE,
    MIN_PATCH,
    MIN_SIZE,
    OPTIONS,
    SAMPLE_IMAGES,
    PatchOptions,
    PatchVariance,
    PatchView,
    Tiling,
    patch_view,
    photo_png,
    tiling,
    variance_view,
)

router = APIRouter(prefix="/api/patches", tags=["patches"])

ImageName = Annotated[str, Query(max_length=40, description=f"one of {', '.join(SAMPLE_IMAGES)}")]
Size = Annotated[int, Query(ge=MIN_SIZE, le=MAX_SIZE, description=f"H = W in pixels, {MIN_SIZE}..{MAX_SIZE}")]
PatchSize = Annotated[int, Query(ge=MIN_PATCH, le=MAX_PATCH, description=f"P, {MIN_PATCH}..{MAX_PATCH}, divides size")]
Dim = Annotated[int, Query(ge=1, le=MAX_DIM, description=f"D, 1..{MAX_DIM}")]
Cell = Annotated[int, Query(ge=0, le=MAX_SIZE, description="grid row or column, from 0")]


@router.get("/options", response_model=answer_model(PatchOptions))
def options() -> PatchOptions:
    """The images, patch sizes and widths the page offers, and its image side."""
    return OPTIONS


@router.get("/image.png", response_class=Response, responses={200: {"content": {"image/png": {}}}})
def image_png(image: ImageName = "china", size: Size = OPTIONS.size) -> Response:
    """The photograph, centre-cropped to a square and resized to size × size, as a PNG."""
    return Response(photo_png(image, size), media_type="image/png")


@router.get("/tiling", response_model=answer_model(Tiling))
def patch_tiling(size: Size = OPTIONS.size, patch_size: PatchSize = 16, dim: Dim = 192) -> Tiling:
    """Grid, patch count N, attention scores N², pixels per patch and projection parameters."""
    return tiling(size, patch_size, dim)


@router.get("/patch", response_model=answer_model(PatchView), dependencies=[HEAVY])
def patch(
    image: ImageName = "china",
    size: Size = OPTIONS.size,
    patch_size: PatchSize = 16,
    dim: Dim = 192,
    row: Cell = 0,
    col: Cell = 0,
    seed: Seed = 0,
) -> PatchView:
    """One patch's flattened pixels (in [0, 1], order C, P, P) and its D-number embedding."""
    return patch_view(image, size, patch_size, dim, row, col, seed)


@router.get("/variance", response_model=answer_model(PatchVariance), dependencies=[HEAVY])
def patch_variances(image: ImageName = "china", size: Size = OPTIONS.size, patch_size: PatchSize = 16) -> PatchVariance:
    """Every patch's pixel variance (per channel over its P·P pixels in [0, 1], averaged over the channels)
    and the lowest and highest patches."""
    return variance_view(image, size, patch_size)
