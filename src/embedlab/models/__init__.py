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
labelled.py    fastText's labelled text, split as the tool splits it, and the classifier's Dictionary (line -> rows)
bag.py         Classifier: fastText's supervised model (mean of a line's rows -> labels), predict and test
bag_kernels.py the classifier's compiled loops: lines into row ids, top-k prediction as the tool ranks
bag_module.py  BagOfEmbeddings: the classifier as nn.EmbeddingBag + nn.Linear (the autograd oracle)
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
