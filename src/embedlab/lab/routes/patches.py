"""Patches (simulation 4): a real photograph cut into patches and projected by PatchEmbedding.

The projection is fresh (never trained) and drawn from a fixed seed, so a patch's embedding is
the same on every request and every server.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from embedlab.data.images import MAX_SIZE, MIN_SIZE, SAMPLE_IMAGES, image_tensor, sample_image
from embedlab.lab.schemas import Limit, PatchAnswer, PatchOptions, TilingAnswer
from embedlab.sims.patches import cut_patch, png_bytes, seeded_patch_embedding, tiling

router = APIRouter(prefix="/api/patches", tags=["patches"])

SIZE = 224  # the page's image side: every patch size below divides it
PATCH_SIZES = (8, 14, 16, 32)  # the page's choices
DIMS = (192, 384, 768)  # ViT-Tiny, ViT-Small, ViT-Base widths
MIN_PATCH = 4  # 448 / 4 = 112: 12,544 patches, a (12544, 768) output at most
MAX_PATCH = 32  # P·P·3 = 3,072 numbers per patch at most
MAX_DIM = 768
MAX_SEED = 2**31 - 1
LIMITS: dict[str, Limit] = {"size": [MIN_SIZE, MAX_SIZE], "patch_size": [MIN_PATCH, MAX_PATCH], "dim": [1, MAX_DIM]}

ImageName = Annotated[str, Query(max_length=40, description=f"one of {', '.join(SAMPLE_IMAGES)}")]
Size = Annotated[int, Query(ge=MIN_SIZE, le=MAX_SIZE, description=f"H = W in pixels, {MIN_SIZE}..{MAX_SIZE}")]
PatchSize = Annotated[int, Query(ge=MIN_PATCH, le=MAX_PATCH, description=f"P, {MIN_PATCH}..{MAX_PATCH}, divides size")]
Dim = Annotated[int, Query(ge=1, le=MAX_DIM, description=f"D, 1..{MAX_DIM}")]
Cell = Annotated[int, Query(ge=0, le=MAX_SIZE, description="grid row or column, from 0")]
Seed = Annotated[int, Query(ge=0, le=MAX_SEED)]


@router.get("/options", response_model=PatchOptions)
def options() -> dict:
    """The images, patch sizes and widths the page offers, and its image side."""
    return {"images": list(SAMPLE_IMAGES), "patch_sizes": list(PATCH_SIZES), "dims": list(DIMS), "size": SIZE}


@router.get("/image.png", response_class=Response, responses={200: {"content": {"image/png": {}}}})
def image_png(image: ImageName = "china", size: Size = SIZE) -> Response:
    """The photograph, centre-cropped to a square and resized to size × size, as a PNG."""
    return Response(png_bytes(sample_image(image, size)), media_type="image/png")


@router.get("/tiling", response_model=TilingAnswer)
def patch_tiling(size: Size = SIZE, patch_size: PatchSize = 16, dim: Dim = 192) -> dict:
    """Grid, patch count N, attention scores N², pixels per patch and projection parameters."""
    return tiling(size, patch_size, dim).to_dict()


@router.get("/patch", response_model=PatchAnswer)
def patch(image: ImageName = "china", size: Size = SIZE, patch_size: PatchSize = 16, dim: Dim = 192,
          row: Cell = 0, col: Cell = 0, seed: Seed = 0) -> dict:  # fmt: skip
    """One patch's flattened pixels (in [0, 1], order C, P, P) and its D-number embedding."""
    found = cut_patch(image_tensor(sample_image(image, size)), seeded_patch_embedding(size, patch_size, dim, seed),
                      row, col)  # fmt: skip
    return {"image": image, "size": size, "patch_size": patch_size, "dim": dim, "seed": seed, **found.to_dict()}
