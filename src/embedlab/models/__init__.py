"""Whole models assembled from `embedlab.layers`.

pretrained.py  HuggingFace-format folders (config.json + model.safetensors) -> layers, no pickles
encoder.py     the full BERT-family encoder: every layer's hidden states and attention weights
pipeline.py    text -> pieces -> ids -> addends -> X, step by step (`embedlab embed`)
context.py     ContextModel: one word in several sentences through every encoder layer (`embedlab context`)
lm.py          TinyLM: a GPT-2-shaped causal language model, tied or untied head, and how it trains
               (window batches, AdamW, one clipped step, the warm-up/cosine rate), for train/ and arena/
tables.py      TinyLM's token table by kind (full, hashed, hash embeddings, quotient-remainder, adaptive)
               and the head each is read back with
vit.py         ViT: a small Vision Transformer classifier (patches + CLS + positions, pre-norm blocks)
cnn.py         SmallCNN: three 3×3 convolutions and an average pool, the ViT's rival for the data it needs
"""

from embedlab import lazy_exports

_EXPORTS = {
    "Encoder": "encoder",
    "EncoderOutput": "encoder",
    "LMConfig": "lm",
    "TinyLM": "lm",
    "Pipeline": "pipeline",
    "ViT": "vit",
    "ViTConfig": "vit",
    "load_input_embedding": "pretrained",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)  # torch loads with the first of these, not with the package
__all__ = sorted(_EXPORTS)
