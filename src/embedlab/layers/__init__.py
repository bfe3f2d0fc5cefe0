"""PyTorch modules for every embedding layer; each file holds one concept."""

from embedlab.layers.attention import qk_scores
from embedlab.layers.head import LMHead
from embedlab.layers.patch import PatchEmbedding, ViTEmbedding
from embedlab.layers.position import (
    POSITIONS,
    LearnedPositions,
    RotaryPositions,
    SinusoidalPositions,
    apply_rotary,
)
from embedlab.layers.recipes import RECIPES, EmbeddingConfig, EmbeddingParts, InputEmbedding, recipe
from embedlab.layers.scale import ScaleBalance, scale_balance
from embedlab.layers.segment import SegmentEmbedding
from embedlab.layers.token import TokenEmbedding

__all__ = [
    "POSITIONS",
    "RECIPES",
    "EmbeddingConfig",
    "EmbeddingParts",
    "InputEmbedding",
    "LMHead",
    "LearnedPositions",
    "PatchEmbedding",
    "RotaryPositions",
    "ScaleBalance",
    "SegmentEmbedding",
    "SinusoidalPositions",
    "TokenEmbedding",
    "ViTEmbedding",
    "apply_rotary",
    "qk_scores",
    "recipe",
    "scale_balance",
]
