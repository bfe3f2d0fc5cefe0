"""Tokenizers: a readable reference BPE, the same interface on HuggingFace `tokenizers`, and
word-level vocabularies with an OOV policy.

    load_tokenizer("minilm")          # a built-in model's tokenizer.json
    load_tokenizer("bpe.json")        # a file written by BPE.save or FastTokenizer.save
"""

from __future__ import annotations

from pathlib import Path

from embedlab.tokenizer.bpe import BPE, Merge
from embedlab.tokenizer.fast import FastTokenizer
from embedlab.tokenizer.vocab import Vocab

__all__ = ["BPE", "FastTokenizer", "Merge", "Vocab", "load_tokenizer"]


def load_tokenizer(name_or_path: str | Path) -> BPE | FastTokenizer:
    """A reference BPE file (format "embedlab-bpe") or anything FastTokenizer.load takes."""
    path = Path(name_or_path)
    if path.is_file() and _is_reference_file(path):
        return BPE.load(path)
    return FastTokenizer.load(name_or_path)


def _is_reference_file(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            head = f.read(64)
        return b'"format": "embedlab-bpe"' in head or b'"format":"embedlab-bpe"' in head
    except OSError:
        return False
