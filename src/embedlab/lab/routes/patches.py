"""Patches (simulation 4): a real photograph cut into patches and projected by PatchEmbedding.

The projection is fresh (never trained) and drawn from a fixed seed, so a patch's embedding is
the same on every request and every server.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from embedlab.data.images import MAX_SIZE, MIN_SIZE, SAMPLE_IMAGES, image_tensor, sample_image
from embedlab.sims.patches import cut_patch, png_bytes, seeded_patch_embedding, tiling

router = APIRouter(prefix="/api/patches", tags=["patches"])

PATCH_SIZES = (8, 14, 16, 32)  # the page's choices; all four divide the default 224
DIMS = (192, 384, 768)  # ViT-Tiny, ViT-Small, ViT-Base widths
MIN_PATCH = 4  # 448 / 4 = 112: 12,544 patches, a (12544, 768) output at most
MAX_PATCH = 32  # P·P·3 = 3,072 numbers per patch at most
MAX_DIM = 768
MAX_SEED = 2**31 - 1

ImageName = Annotated[str, Query(max_length=40, description=f"one of {', '.join(SAMPLE_IMAGES)}")]
Size = Annotated[int, Query(ge=MIN_SIZE, le=MAX_SIZE, description=f"H = W in pixels, {MIN_SIZE}..{MAX_SIZE}")]
PatchSize = Annotated[int, Query(ge=MIN_PATCH, le=MAX_PATCH, description=f"P, {MIN_PATCH}..{MAX_PATCH}, divides size")]
Dim = Annotated[int, Query(ge=1, le=MAX_DIM, description=f"D, 1..{MAX_DIM}")]
Cell = Annotated[int, Query(ge=0, le=MAX_SIZE, description="grid row or column, from 0")]
Seed = Annotated[int, Query(ge=0, le=MAX_SEED)]


@router.get("/options")
def options() -> dict:
    """The images, patch sizes and widths the page offers, and the image size limits."""
    return {"images": list(SAMPLE_IMAGES), "patch_sizes": list(PATCH_SIZES), "dims": list(DIMS),
            "size": 224, "min_size": MIN_SIZE, "max_size": MAX_SIZE}  # fmt: skip


@router.get("/image.png", response_class=Response, responses={200: {"content": {"image/png": {}}}})
def image_png(image: ImageName = "china", size: Size = 224) -> Response:
    """The photograph, centre-cropped to a square and resized to size × size, as a PNG."""
    return Response(png_bytes(sample_image(image, size)), media_type="image/png")


@router.get("/tiling")
def patch_tiling(size: Size = 224, patch_size: PatchSize = 16, dim: Dim = 192) -> dict:
    """Grid, patch count N, attention scores N², pixels per patch and projection parameters."""
    return tiling(size, patch_size, dim).to_dict()


@router.get("/patch")
def patch(image: ImageName = "china", size: Size = 224, patch_size: PatchSize = 16, dim: Dim = 192,
          row: Cell = 0, col: Cell = 0, seed: Seed = 0) -> dict:  # fmt: skip
    """One patch's flattened pixels (in [0, 1], order C, P, P) and its D-number embedding."""
    embed = seeded_patch_embedding(size, patch_size, dim, seed)
    p = cut_patch(image_tensor(sample_image(image, size)), embed, row, col)
    return {"image": image, "size": size, "patch_size": patch_size, "dim": dim, "seed": seed,
            "index": p.index, "row": p.row, "col": p.col, "top": p.top, "left": p.left,
            "order": "channel, row, column (C, P, P)", "pixels": p.pixels.tolist(),
            "embedding": p.embedding.tolist()}  # fmt: skip
