"""A small convolutional classifier: the ViT's rival in "a ViT needs more data than a CNN".

    images (B, C, H, W) -> [3×3 conv, ReLU, 2×2 max-pool] per stage but the last (3×3 conv, ReLU)
                        -> global average pool (B, channels[-1]) -> Linear -> logits (B, n_classes)

A convolution builds in what a ViT has to learn from data: a pixel's neighbours matter most
(locality) and the same detector applies everywhere (translation equivariance). The model has no
normalisation layer and no dropout, so the comparison with models.vit.ViT is between the two
inductive biases, not between training tricks. With channels (32, 64, 128) on 28×28 grey images it
has 93,962 parameters, about the arena's small ViT (D = 64, 2 layers, 4-px patches: 105,098).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from embedlab.errors import InvalidValueError, check_int

KERNEL = 3  # 3×3 convolutions, padded to keep the side (VGG's choice)
POOL = 2  # each stage but the last halves the side


@dataclass(frozen=True)
class CNNConfig:
    """Shape of the model: one stage per entry of `channels`.

    >>> CNNConfig(28, 1, (32, 64, 128), n_classes=10).sides
    (28, 14, 7)
    """

    image_size: int  # H = W, in pixels
    in_channels: int  # C (1 for grayscale)
    channels: tuple[int, ...]  # output channels of each conv stage
    n_classes: int

    def __post_init__(self) -> None:
        check_int("image_size", self.image_size, low=1)
        check_int("in_channels", self.in_channels, low=1)
        check_int("n_classes", self.n_classes, low=2)
        if not self.channels or any(not isinstance(c, int) or c < 1 for c in self.channels):
            raise InvalidValueError(f"channels must be one or more positive ints; got {self.channels!r}")
        if self.image_size < POOL ** (len(self.channels) - 1):
            raise InvalidValueError(
                f"image_size {self.image_size} is too small for {len(self.channels) - 1} halvings; "
                f"it must be at least {POOL ** (len(self.channels) - 1)}"
            )

    @property
    def sides(self) -> tuple[int, ...]:
        """The side each stage's convolution works at (floor-halved after every stage but the last)."""
        sides = [self.image_size]
        for _ in self.channels[1:]:
            sides.append(sides[-1] // POOL)
        return tuple(sides)


class SmallCNN(nn.Module):
    """(B, C, H, W) float images -> (B, n_classes) logits."""

    def __init__(self, config: CNNConfig, device=None, dtype=None) -> None:
        super().__init__()
        self.config = config
        widths = (config.in_channels, *config.channels)
        self.convs = nn.ModuleList(
            nn.Conv2d(c_in, c_out, KERNEL, padding=KERNEL // 2, device=device, dtype=dtype)
            for c_in, c_out in zip(widths, widths[1:], strict=False)
        )
        self.head = nn.Linear(config.channels[-1], config.n_classes, device=device, dtype=dtype)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, n_classes) logits."""
        x = images
        for i, conv in enumerate(self.convs):
            x = torch.relu(conv(x))  # (B, channels[i], side, side)
            if i < len(self.convs) - 1:
                x = nn.functional.max_pool2d(x, POOL)
        return self.head(x.mean(dim=(2, 3)))  # global average pool: (B, channels[-1])

    def parameter_count(self) -> int:
        """Every trainable number of the model."""
        return sum(p.numel() for p in self.parameters())
