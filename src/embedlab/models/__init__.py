"""Whole models assembled from `embedlab.layers`.

pretrained.py  HuggingFace-format folders (config.json + model.safetensors) -> layers, no pickles
encoder.py     the full BERT-family encoder: every layer's hidden states and attention weights
pipeline.py    text -> pieces -> ids -> addends -> X, step by step (`embedlab embed`)
lm.py          TinyLM: a GPT-2-shaped causal language model, tied or untied head
"""

from embedlab.models.encoder import Encoder, EncoderOutput
from embedlab.models.lm import LMConfig, TinyLM
from embedlab.models.pipeline import Pipeline
from embedlab.models.pretrained import load_input_embedding

__all__ = ["Encoder", "EncoderOutput", "LMConfig", "Pipeline", "TinyLM", "load_input_embedding"]
