"""Patches (lab simulation 4): a photograph cut into P×P patches, and what a PatchEmbedding makes of one.

`tiling` gives the sizes a patch side P implies (224 px with P = 16: 14×14 = 196 patches,
196² = 38,416 attention scores, 768 pixels per patch), `cut_patch` returns one patch's pixels
next to its projected embedding, and `patch_variance` each patch's pixel variance: near 0 for
clear sky, high where an edge or texture crosses the patch.

    pixels = sample_image("china", 224)                    # (224, 224, 3) uint8
    embed = seeded_patch_embedding(224, 16, dim=192)       # the same weights on every call
    patch = cut_patch(image_tensor(pixels), embed, row=3, col=5)
    patch.pixels.shape, patch.embedding.shape              # (768,), (192,)
    patch_view("china", 224, 16, 192, row=3, col=5).patch  # the same patch, for the lab page
    patch_variance(pixels, 16)                             # (14, 14) each patch's variance
    variance_view("china", 224, 16).lowest                 # VarianceCell(row=0, col=13, ...): clear sky
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from embedlab.data.images import CHANNELS, MAX_SIZE, MIN_SIZE, SAMPLE_IMAGES, image_tensor, sample_image
from embedlab.errors import InvalidValueError, check_int, describe
from embedlab.files import Matrix, Vector
from embedlab.layers.patch import PatchEmbedding, patch_grid, patchify
from embedlab.sizing import EmbeddingLayout, count

MIN_PATCH = 4  # 448 / 4 = 112: 12,544 patches, a (12544, 768) output at most
MAX_PATCH = 32  # P·P·3 = 3,072 numbers per patch at most
MAX_DIM = 768
LIMITS = {"size": [MIN_SIZE, MAX_SIZE], "patch_size": [MIN_PATCH, MAX_PATCH], "dim": [1, MAX_DIM]}
ORDER = "channel, row, column (C, P, P)"  # how a patch's pixels are flattened (patchify's order)


def png_bytes(pixels: np.ndarray) -> bytes:
    """(H, W, 3) uint8 -> the bytes of a PNG file of that image."""
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels), mode="RGB").save(out, format="PNG")
    return out.getvalue()


def seeded_patch_embedding(img_size: int, patch_size: int, dim: int, seed: int = 0) -> PatchEmbedding:
    """A fresh RGB PatchEmbedding whose projection depends only on `seed`.

    The weights follow Conv2d's own initialisation (weight and bias both U(±1/√(C·P·P))) but are
    drawn from a private Generator: concurrent callers get the same weights for the same seed,
    and torch's global random state is neither read nor advanced.
    """
    seed = check_int("seed", seed, low=0)
    # Built on the meta device so Conv2d's constructor draws nothing; memory comes after.
    embed = PatchEmbedding(img_size, patch_size, CHANNELS, dim, device="meta").to_empty(device="cpu")
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(embed.patch_dim)  # fan_in = C·P·P
    with torch.no_grad():
        # kaiming_uniform with a = √5 (Conv2d's default) has the bound 1/√fan_in too.
        nn.init.kaiming_uniform_(embed.proj.weight, a=math.sqrt(5), generator=generator)
        nn.init.uniform_(embed.proj.bias, -bound, bound, generator=generator)
    return embed.eval()


@dataclass(frozen=True)
class Tiling:
    """The sizes a patch side P implies for a square RGB image and a width D."""

    size: int  # H = W, pixels
    patch_size: int  # P
    grid: tuple[int, int]  # (H / P, W / P)
    num_patches: int  # N, the sequence length attention sees (N + 1 with a CLS token)
    attention_scores: int  # N², one q·k score per pair of patches, per head and layer
    patch_dim: int  # C·P·P numbers in one flattened patch
    dim: int  # D
    projection_params: int  # C·P·P·D weights + D biases of the patch projection


def tiling(size: int, patch_size: int, dim: int) -> Tiling:
    """Grid, patch count, attention cost and projection size; raises if P does not divide `size`.

    >>> t = tiling(224, 16, 768)
    >>> t.num_patches, t.attention_scores, t.patch_dim
    (196, 38416, 768)
    """
    grid = patch_grid(size, patch_size, CHANNELS)
    layout = EmbeddingLayout(dim=dim, image_size=size, patch_size=patch_size, in_channels=CHANNELS)
    n = grid.num_patches
    return Tiling(size, patch_size, grid.grid_size, n, n * n, grid.patch_dim, dim, count(layout).patch_params)


@dataclass(frozen=True, eq=False)
class Patch:
    """One patch of one image: where it is, its pixels and its embedding."""

    index: int  # position in the sequence: row · (W / P) + col
    row: int  # grid row
    col: int  # grid column
    top: int  # pixel row of its top-left corner
    left: int  # pixel column of its top-left corner
    pixels: Vector  # (C·P·P,) in [0, 1], in patchify's (C, P, P) order: all red, then green, then blue
    embedding: Vector  # (D,) the projection's output for this patch


def cut_patch(images: torch.Tensor, embed: PatchEmbedding, row: int, col: int) -> Patch:
    """(1, C, H, W) image, grid row and column -> that Patch, its embedding from `embed(images)`."""
    gh, gw = embed.grid_size
    row = check_int("patch row", row, low=0, high=gh - 1)
    col = check_int("patch column", col, low=0, high=gw - 1)
    if images.dim() != 4 or images.shape[0] != 1:
        raise InvalidValueError(f"images must be one image (1, C, H, W); got {describe(images)}")
    index = row * gw + col
    with torch.no_grad():
        embedding = embed(images)[0, index]  # (D,)
    pixels = patchify(images, embed.patch_size)[0, index]  # (C·P·P,)
    P = embed.patch_size
    return Patch(index, row, col, row * P, col * P, pixels.numpy(), embedding.numpy())


def patch_variance(pixels: np.ndarray, patch_size: int) -> np.ndarray:
    """(H, W, C) uint8 pixels -> (H/P, W/P) float64: each patch's pixel variance, pixels scaled to
    [0, 1] as the patch vectors are: the variance of each channel over the patch's P·P pixels
    (population variance, NumPy's np.var), averaged over the C channels.

    Per channel, so that a patch of one colour has variance 0 whatever the colour: a clear blue sky
    is flat, though its red, green and blue numbers differ.

    >>> flat = np.full((4, 4, 3), 200, np.uint8); flat[0, 2] = [255, 0, 0]   # one red pixel
    >>> patch_variance(flat, 2).round(4).tolist()   # 1 of 4 pixels off by d: 3d²/16; d = 55, 200, 200 (/255)
    [[0.0, 0.0798], [0.0, 0.0]]
    """
    if not isinstance(pixels, np.ndarray) or pixels.ndim != 3 or pixels.dtype != np.uint8:
        raise InvalidValueError(f"pixels must be an (H, W, C) uint8 array; got {describe(pixels)}")
    h, w, c = pixels.shape
    grid = patch_grid((h, w), patch_size, c)  # checks that P divides H and W
    (gh, gw), P = grid.grid_size, patch_size
    blocks = pixels.reshape(gh, P, gw, P, c).swapaxes(1, 2).reshape(gh, gw, P * P, c)  # (H/P, W/P, P·P, C)
    # Var(x / 255) = Var(x) / 255², taken on the integer levels: a uniform patch is then exactly 0
    # (the mean of levels scaled first can round off the levels by an ulp).
    return blocks.astype(np.float64).var(axis=2).mean(axis=-1) / 255**2


@dataclass(frozen=True)
class VarianceCell:
    """One patch of the grid and its pixel variance."""

    row: int  # grid row
    col: int  # grid column
    variance: float  # its per-channel pixel variance, averaged over the channels


@dataclass(frozen=True, eq=False)
class PatchVariance:
    """Every patch's pixel variance in a named photograph: low on flat patches (sky), high on edges."""

    image: str
    size: int  # H = W, pixels
    patch_size: int  # P
    variance: Matrix  # (H/P, W/P): patch (r, c)'s per-channel pixel variance (values in [0, 1]), channels averaged
    lowest: VarianceCell  # the flattest patch (the first in reading order on a tie)
    highest: VarianceCell  # the busiest patch


def variance_view(image: str, size: int, patch_size: int) -> PatchVariance:
    """Each patch's variance in the named photograph at size × size, cut into P × P patches."""
    variance = patch_variance(sample_image(image, size), patch_size)

    def cell(index: np.intp) -> VarianceCell:
        row, col = np.unravel_index(index, variance.shape)
        return VarianceCell(int(row), int(col), float(variance[row, col]))

    return PatchVariance(image, size, patch_size, variance, cell(variance.argmin()), cell(variance.argmax()))


# ---- the lab page --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PatchOptions:
    """What the page offers."""

    images: tuple[str, ...]  # the photographs, by name
    patch_sizes: tuple[int, ...]  # P, each dividing `size`
    dims: tuple[int, ...]  # D: ViT-Tiny, ViT-Small, ViT-Base widths
    size: int  # the page's image side


OPTIONS = PatchOptions(SAMPLE_IMAGES, (8, 14, 16, 32), (192, 384, 768), 224)


@dataclass(frozen=True, eq=False)
class PatchView:
    """One patch of a named photograph under a seeded projection: the request, and the patch."""

    image: str  # the photograph's name
    size: int  # H = W, pixels
    patch_size: int  # P
    dim: int  # D
    seed: int  # the projection's seed
    order: str  # how `patch.pixels` are flattened
    patch: Patch  # where it is, its pixels and its embedding


def photo_png(image: str, size: int) -> bytes:
    """The named photograph, centre-cropped to a square and resized to size × size, as PNG bytes."""
    return png_bytes(sample_image(image, size))


def patch_view(image: str, size: int, patch_size: int, dim: int, row: int, col: int, seed: int = 0) -> PatchView:
    """Patch (`row`, `col`) of the named photograph at size × size, cut into P × P patches and projected
    to D by `seeded_patch_embedding(size, patch_size, dim, seed)`."""
    embed = seeded_patch_embedding(size, patch_size, dim, seed)
    patch = cut_patch(image_tensor(sample_image(image, size)), embed, row, col)
    return PatchView(image, size, patch_size, dim, seed, ORDER, patch)
