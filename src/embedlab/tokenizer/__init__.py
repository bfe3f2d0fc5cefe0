"""Tokenizers: a readable reference BPE (`bpe`), and more to come (`fast`, `vocab`)."""

from embedlab.tokenizer.bpe import BPE, Merge

__all__ = ["BPE", "Merge"]
