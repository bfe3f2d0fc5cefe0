"""Patch embeddings: an image becomes a sequence of N patch vectors, as in ViT.

The image is cut into a grid of non-overlapping P×P squares; each square's C·P·P pixels are
flattened in (C, P, P) order and sent through one shared linear map to D numbers. A 3×224×224
image with P = 16 gives a 14×14 grid: N = 196 patches of 768 pixels each.

A Conv2d with kernel = stride = P computes exactly that map, one output position per patch, so
both implementations here read the same (D, C, P, P) conv weight: "conv" runs the convolution,
"unfold" cuts the patches out (`patchify`) and multiplies by the weight flattened to
(D, C·P·P). They agree to float rounding.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import InvalidValueError, check_choice, check_int

IMPLS = ("conv", "unfold")


class PatchGrid(NamedTuple):
    """The sizes derived from an image and a patch side."""

    img_size: tuple[int, int]  # (H, W)
    grid_size: tuple[int, int]  # (gh, gw) = (H / P, W / P)
    num_patches: int  # N = gh · gw
    patch_dim: int  # C · P · P, the length of one flattened patch


def patch_grid(img_size: int | tuple[int, int], patch_size: int, in_channels: int) -> PatchGrid:
    """Grid, patch count and flattened patch length; raises if P does not divide H and W.

    >>> patch_grid(224, 16, 3)
    PatchGrid(img_size=(224, 224), grid_size=(14, 14), num_patches=196, patch_dim=768)
    """
    if isinstance(img_size, (tuple, list)):
        if len(img_size) != 2:
            raise InvalidValueError(f"img_size must be an int or a pair (H, W); got {img_size!r}")
        h = check_int("image height", img_size[0], low=1)
        w = check_int("image width", img_size[1], low=1)
    else:
        h = w = check_int("img_size", img_size, low=1)
    p = check_int("patch_size", patch_size, low=1)
    c = check_int("in_channels", in_channels, low=1)
    for name, side in (("height", h), ("width", w)):
        if side % p:
            raise InvalidValueError(
                f"image {name} {side} is not divisible by patch_size {p}; crop or pad the image to a multiple of {p}"
            )
    gh, gw = h // p, w // p
    return PatchGrid((h, w), (gh, gw), gh * gw, c * p * p)


def patchify(images: torch.Tensor, patch_size: int) -> torch.Tensor:
    """(B, C, H, W) -> (B, N, C·P·P): each patch's pixels, flattened in (C, P, P) order.

    Patches run row-major over the grid (left to right, then top to bottom). On a 1×6×6 image
    with P = 3, patch 0 is rows 0-2 × columns 0-2 read row by row, patch 1 the block to its right.
    """
    _check_4d(images)
    B, C, H, W = images.shape
    grid = patch_grid((H, W), patch_size, C)
    P = patch_size
    x = images.unfold(2, P, P).unfold(3, P, P)  # (B, C, gh, gw, P, P)
    x = x.permute(0, 2, 3, 1, 4, 5)  # (B, gh, gw, C, P, P): channel first inside a patch, as conv
    return x.reshape(B, grid.num_patches, grid.patch_dim)  # (B, N, C·P·P)


class PatchEmbedding(nn.Module):
    """(B, C, H, W) images -> (B, N, D) patch embeddings.

    Args:
        img_size: H = W as one int, or (H, W).
        patch_size: P, the side of each square patch; must divide H and W.
        in_channels: C (3 for RGB, 1 for grayscale).
        dim: D, the width of each patch embedding.
        impl: "conv" (Conv2d, kernel = stride = P) or "unfold" (cut patches, then one matmul).
            Both use `proj.weight` (D, C, P, P) and `proj.bias` (D,); switching is free.
        bias: whether the projection adds a bias.

    Attributes `grid_size` (gh, gw), `num_patches` N and `patch_dim` C·P·P come from
    `patch_grid`.

    Example:
        >>> PatchEmbedding(224, 16, 3, 768)(torch.zeros(2, 3, 224, 224)).shape
        torch.Size([2, 196, 768])
    """

    def __init__(
        self,
        img_size: int | tuple[int, int],
        patch_size: int,
        in_channels: int,
        dim: int,
        impl: str = "conv",
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        grid = patch_grid(img_size, patch_size, in_channels)
        self.img_size = grid.img_size  # (H, W)
        self.grid_size = grid.grid_size  # (gh, gw)
        self.num_patches = grid.num_patches  # N
        self.patch_dim = grid.patch_dim  # C·P·P
        self.patch_size = patch_size
        self.in_channels = in_channels
        self.dim = check_int("dim", dim, low=1)
        self.impl = check_choice("impl", impl, IMPLS)
        # The one weight layout both implementations read: (D, C, P, P) and (D,).
        self.proj = nn.Conv2d(
            in_channels,
            dim,
            kernel_size=patch_size,
            stride=patch_size,
            bias=bias,
            device=device,
            dtype=dtype,
        )

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, N, D)."""
        self._check_image(images)
        if self.impl == "conv":
            x = self.proj(images)  # (B, D, gh, gw)
            return x.flatten(2).transpose(1, 2)  # (B, N, D)
        patches = patchify(images, self.patch_size)  # (B, N, C·P·P)
        weight = self.proj.weight.flatten(1)  # (D, C·P·P), a view of the conv weight
        return F.linear(patches, weight, self.proj.bias)  # (B, N, D)

    def _check_image(self, images: torch.Tensor) -> None:
        _check_4d(images)
        expected = (self.in_channels, *self.img_size)
        got = tuple(images.shape[1:])
        if got != expected:
            raise InvalidValueError(
                f"input image {'x'.join(map(str, got))} does not match the model's "
                f"{'x'.join(map(str, expected))} (C x H x W)"
            )

    def extra_repr(self) -> str:
        h, w = self.img_size
        return (
            f"img_size=({h}, {w}), patch_size={self.patch_size}, in_channels={self.in_channels}, "
            f"dim={self.dim}, impl={self.impl!r}, num_patches={self.num_patches}"
        )


class ViTEmbedding(nn.Module):
    """(B, C, H, W) images -> (B, N+1, D): a learned CLS token, then the patches, plus positions.

    The CLS token (1, 1, D) is one learned vector placed before the N patch embeddings; after
    the transformer its final state stands for the whole image. Learned positions (1, N+1, D)
    are added so the model can tell the top-left patch from the bottom-right one. Both start
    as N(0, 0.02²), as in ViT.

    Example:
        >>> ViTEmbedding(224, 16, 3, 768)(torch.zeros(2, 3, 224, 224)).shape
        torch.Size([2, 197, 768])
    """

    def __init__(
        self,
        img_size: int | tuple[int, int],
        patch_size: int,
        in_channels: int,
        dim: int,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.patch = PatchEmbedding(img_size, patch_size, in_channels, dim, device=device, dtype=dtype)
        n = self.patch.num_patches
        self.cls_token = nn.Parameter(torch.empty(1, 1, dim, device=device, dtype=dtype))
        self.pos_embed = nn.Parameter(torch.empty(1, n + 1, dim, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self, std: float = 0.02) -> None:
        """CLS token and positions ~ N(0, std²); the patch projection keeps Conv2d's init."""
        nn.init.normal_(self.cls_token, mean=0.0, std=std)
        nn.init.normal_(self.pos_embed, mean=0.0, std=std)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, N+1, D)."""
        x = self.patch(images)  # (B, N, D)
        cls = self.cls_token.expand(x.shape[0], -1, -1)  # (B, 1, D)
        x = torch.cat([cls, x], dim=1)  # (B, N+1, D)
        return x + self.pos_embed  # (B, N+1, D)


def _check_4d(images: object) -> None:
    if not isinstance(images, torch.Tensor) or images.dim() != 4:
        is_tensor = isinstance(images, torch.Tensor)
        got = f"shape {tuple(images.shape)}" if is_tensor else type(images).__name__
        raise InvalidValueError(f"images must be a 4-D tensor (B, C, H, W); got {got}")
