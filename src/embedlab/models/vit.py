"""A small Vision Transformer classifier, built from embedlab's patch embedding.

    images (B, C, H, W) -> ViTEmbedding (patches + CLS + learned positions) -> (B, N+1, D)
                        -> n pre-norm blocks -> LayerNorm -> the CLS row (B, D)
                        -> Linear -> logits (B, n_classes)

The patch side P is the one embedding choice: a 28×28 image cut into 2-px patches is N = 196
tokens (ViT-B/16's count at 224 px), into 4-px patches N = 49 (ViT-B/32's). The body is the same
for every P, so two models that differ only in P differ only in how pixels become tokens; the
patch projection has C·P·P·D + D parameters, as `embedlab.sizing.count` says.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from embedlab.errors import InvalidValueError, check_float, check_int
from embedlab.layers.patch import ViTEmbedding, patch_grid
from embedlab.models.lm import pre_norm_blocks


@dataclass(frozen=True)
class ViTConfig:
    """Shape of the model. No shape has a default: the arena derives them from its strategy and
    budget (embedlab.arena.vision), the one place they are chosen.

    >>> ViTConfig(28, 4, 1, dim=64, n_layers=2, n_heads=4, n_classes=10).n_tokens
    50
    """

    image_size: int  # H = W, in pixels
    patch_size: int  # P; must divide image_size
    in_channels: int  # C (1 for grayscale)
    dim: int  # D
    n_layers: int
    n_heads: int
    n_classes: int
    dropout: float = 0.0  # none: the arena's runs are far too short to overfit

    def __post_init__(self) -> None:
        check_int("dim", self.dim, low=1)
        check_int("n_layers", self.n_layers, low=0)
        check_int("n_heads", self.n_heads, low=1)
        check_int("n_classes", self.n_classes, low=2)
        check_float("dropout", self.dropout, low=0.0, high=1.0)
        patch_grid(self.image_size, self.patch_size, self.in_channels)  # checks H, P and C
        if self.dim % self.n_heads:
            raise InvalidValueError(f"dim must be a multiple of n_heads ({self.n_heads}); got {self.dim}")

    @property
    def n_tokens(self) -> int:
        """N + 1: the patches and the CLS token, the length every block attends over."""
        return patch_grid(self.image_size, self.patch_size, self.in_channels).num_patches + 1


class ViT(nn.Module):
    """(B, C, H, W) float images -> (B, n_classes) logits, read off the CLS token's final state."""

    def __init__(self, config: ViTConfig, device=None, dtype=None) -> None:
        super().__init__()
        self.config = config
        self.embed = ViTEmbedding(
            config.image_size, config.patch_size, config.in_channels, config.dim, device=device, dtype=dtype
        )
        self.blocks = pre_norm_blocks(config.dim, config.n_heads, config.n_layers, config.dropout, device, dtype)
        self.norm = nn.LayerNorm(config.dim, device=device, dtype=dtype)
        self.head = nn.Linear(config.dim, config.n_classes, device=device, dtype=dtype)
        # ViT starts the classifier at zero: every class equally likely until the body has learnt.
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, n_classes) logits."""
        x = self.embed(images)  # (B, N+1, D); checks C, H and W against the config
        for block in self.blocks:
            x = block(x)  # no mask: every token sees every other
        cls = self.norm(x[:, 0])  # (B, D): the CLS token stands for the image
        return self.head(cls)  # (B, n_classes)

    @property
    def patch_projection(self) -> nn.Conv2d:
        """The (D, C, P, P) weight and (D,) bias that turn pixels into tokens: the embedding choice."""
        return self.embed.patch.proj

    @property
    def embedding_params(self) -> int:
        """C·P·P·D + D: the patch projection's weight and bias (CLS and positions not counted, as
        the lesson and `sizing.count(...).patch_params` do)."""
        return sum(p.numel() for p in self.patch_projection.parameters())

    def parameter_count(self) -> int:
        """Every trainable number of the model."""
        return sum(p.numel() for p in self.parameters())
