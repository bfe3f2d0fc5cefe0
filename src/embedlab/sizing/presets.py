"""Real models' embedding layouts, each read off the model's config.json (or its paper).

preset("bert-base").n_segments   # 2
"""

from __future__ import annotations

from embedlab.errors import unknown_name
from embedlab.sizing.layout import EmbeddingLayout

# Real configurations, each read off the model's HuggingFace config.json (field values noted); GPT-3,
# which has none, off its paper.
PRESETS: dict[str, EmbeddingLayout] = {
    # gpt2: vocab_size 50257, n_embd 768, n_positions 1024, tie_word_embeddings (default) true
    "gpt2": EmbeddingLayout(vocab_size=50257, dim=768, positions="learned", max_len=1024),
    # bert-base-uncased: vocab_size 30522, hidden_size 768, max_position_embeddings 512,
    # type_vocab_size 2; the MLM decoder reuses word_embeddings (tie_word_embeddings true)
    "bert-base": EmbeddingLayout(vocab_size=30522, dim=768, positions="learned", max_len=512, n_segments=2),
    # bert-large-uncased: vocab_size 30522, hidden_size 1024, max_position_embeddings 512,
    # type_vocab_size 2, tied as bert-base
    "bert-large": EmbeddingLayout(vocab_size=30522, dim=1024, positions="learned", max_len=512, n_segments=2),
    # gpt2-xl: vocab_size 50257, n_embd 1600, n_positions 1024, tie_word_embeddings (default) true
    "gpt2-xl": EmbeddingLayout(vocab_size=50257, dim=1600, positions="learned", max_len=1024),
    # GPT-3 175B, no config.json (Brown et al. 2020, Table 2.1 and section 2.1): d_model 12288,
    # n_ctx 2048, GPT-2's byte-level BPE (50257) and architecture: learned positions, tied
    "gpt-3": EmbeddingLayout(vocab_size=50257, dim=12288, positions="learned", max_len=2048),
    # t5-base: vocab_size 32128, d_model 768, relative_attention_num_buckets 32, tied (default)
    "t5-base": EmbeddingLayout(vocab_size=32128, dim=768, positions="relative"),
    # Llama-2-7b-hf: vocab_size 32000, hidden_size 4096, RoPE, tie_word_embeddings false
    "llama-2-7b": EmbeddingLayout(vocab_size=32000, dim=4096, positions="rotary", tied=False),
    # Llama-2-70b-hf: vocab_size 32000, hidden_size 8192, RoPE, tie_word_embeddings false
    "llama-2-70b": EmbeddingLayout(vocab_size=32000, dim=8192, positions="rotary", tied=False),
    # Meta-Llama-3-8B: vocab_size 128256, hidden_size 4096, RoPE, tie_word_embeddings false
    "llama-3-8b": EmbeddingLayout(vocab_size=128256, dim=4096, positions="rotary", tied=False),
    # Llama-3.2-1B: vocab_size 128256, hidden_size 2048, RoPE, 8 key/value heads (grouped-query
    # attention, as in Llama 3 8B), tie_word_embeddings true: the same vocabulary, tied
    "llama-3.2-1b": EmbeddingLayout(vocab_size=128256, dim=2048, positions="rotary"),
    # Llama-3.2-3B: vocab_size 128256, hidden_size 3072, RoPE, 8 key/value heads, tie_word_embeddings true
    "llama-3.2-3b": EmbeddingLayout(vocab_size=128256, dim=3072, positions="rotary"),
    # Mistral-7B-v0.1: vocab_size 32000, hidden_size 4096, RoPE, tie_word_embeddings false
    "mistral-7b": EmbeddingLayout(vocab_size=32000, dim=4096, positions="rotary", tied=False),
    # gemma-2b: vocab_size 256000, hidden_size 2048, RoPE, tie_word_embeddings true
    "gemma-2b": EmbeddingLayout(vocab_size=256000, dim=2048, positions="rotary"),
    # vit-base-patch16-224: image_size 224, patch_size 16, num_channels 3, hidden_size 768
    "vit-b-16": EmbeddingLayout(dim=768, positions="learned", image_size=224, patch_size=16),
    # vit-base-patch32-224-in21k: image_size 224, patch_size 32, num_channels 3, hidden_size 768
    "vit-b-32": EmbeddingLayout(dim=768, positions="learned", image_size=224, patch_size=32),
}


def preset(name: str) -> EmbeddingLayout:
    """The layout of a known model: preset("bert-base").n_segments -> 2."""
    if name not in PRESETS:
        raise unknown_name("preset", name, list(PRESETS))
    return PRESETS[name]
