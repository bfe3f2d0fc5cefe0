"""PyTorch modules for every embedding layer; each file holds one concept.

token.py       TokenEmbedding: ids -> rows, validated, with padding and init choices
hashed.py      huge V in few rows: HashedEmbedding (the hashing trick), HashEmbedding (Svenstrup et al.),
               QuotientRemainderEmbedding (V ids from ceil(V/m) + m rows, Shi et al.)
adaptive.py    AdaptiveInput (frequency bands, D/div^i wide) and the AdaptiveSoftmax tied to it
factorized.py  FactorizedEmbedding: ALBERT's V × E table mapped up to D by E × D, and the head tied to both
position.py    learned, sinusoidal and rotary positions (POSITIONS by name)
relative.py    RelativePositionBias: T5's bucketed (buckets, heads) bias on the attention scores
segment.py     SegmentEmbedding: BERT's sentence A / B rows
recipes.py     InputEmbedding: token + position + segment, √D, LayerNorm, dropout (RECIPES by name)
patch.py       PatchEmbedding and ViTEmbedding: images -> patch rows (+ CLS + positions)
head.py        LMHead: hidden states -> logits, tied to the token table or not
attention.py   q·k scores, softmax weights, SelfAttention: where embeddings meet attention
"""

from embedlab.layers.adaptive import AdaptiveInput, AdaptiveOutput, AdaptiveSoftmax
from embedlab.layers.attention import SelfAttention, qk_scores
from embedlab.layers.factorized import FactorizedEmbedding, FactorizedHead
from embedlab.layers.hashed import HashedEmbedding, HashEmbedding, QuotientRemainderEmbedding, hash_ids
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
from embedlab.layers.relative import RelativePositionBias, relative_position_bucket
from embedlab.layers.segment import SegmentEmbedding
from embedlab.layers.token import TokenEmbedding

__all__ = [
    "AdaptiveInput",
    "AdaptiveOutput",
    "AdaptiveSoftmax",
    "FactorizedEmbedding",
    "FactorizedHead",
    "HashEmbedding",
    "HashedEmbedding",
    "QuotientRemainderEmbedding",
    "hash_ids",
    "SelfAttention",
    "POSITIONS",
    "RECIPES",
    "EmbeddingConfig",
    "EmbeddingParts",
    "InputEmbedding",
    "LMHead",
    "LearnedPositions",
    "PatchEmbedding",
    "RelativePositionBias",
    "RotaryPositions",
    "SegmentEmbedding",
    "SinusoidalPositions",
    "TokenEmbedding",
    "ViTEmbedding",
    "apply_rotary",
    "qk_scores",
    "recipe",
    "relative_position_bucket",
]
