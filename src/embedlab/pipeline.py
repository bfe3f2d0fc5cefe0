"""A real model's input side, walked step by step: text -> pieces -> ids -> addends -> X.

    pipe = Pipeline.load("minilm")
    walk = pipe.walk("the cat sat on the mat")
    walk.pieces        ['[CLS]', 'the', 'cat', ..., '[SEP]']
    walk.parts.token   (T, D) token rows;  .position, .segment, .total, .output likewise
    walk.norms()       {'token': [...], 'position': [...], ...}: one L2 norm per token

The norms show the lessons' point about magnitudes: which addend dominates the sum.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from tokenizers import Tokenizer

from embedlab.data import resolve_model
from embedlab.errors import InvalidValueError
from embedlab.layers.recipes import EmbeddingParts, InputEmbedding
from embedlab.pretrained import load_input_embedding, load_tokenizer

ADDENDS = ("token", "position", "segment", "total", "output")


@dataclass
class Walk:
    """One text through the input embedding; tensors are (T, D), the batch dimension dropped."""

    text: str
    pair: str | None
    pieces: list[str]
    ids: list[int]
    segment_ids: list[int]
    parts: EmbeddingParts

    def rows(self) -> dict[str, torch.Tensor]:
        """Addend name -> (T, D) rows, for the addends the model has (positions broadcast)."""
        out = {}
        for name in ADDENDS:
            value = getattr(self.parts, name)  # (1, T, D), or (T, D) for default positions
            if value is not None:
                out[name] = value[0] if value.dim() == 3 else value
        return out

    def norms(self) -> dict[str, list[float]]:
        """Addend name -> the L2 norm of each token's row, (T,) as a list."""
        return {name: rows.norm(dim=-1).tolist() for name, rows in self.rows().items()}

    def to_dict(self) -> dict:
        """Everything, JSON-ready: pieces, ids, segment ids, every row and its norms."""
        return {
            "text": self.text,
            "pair": self.pair,
            "pieces": self.pieces,
            "ids": self.ids,
            "segment_ids": self.segment_ids,
            "positions": list(range(len(self.ids))),
            "norms": self.norms(),
            "rows": {name: rows.tolist() for name, rows in self.rows().items()},
        }


class Pipeline:
    """A tokenizer and the InputEmbedding of the same model."""

    def __init__(self, tokenizer: Tokenizer, embedding: InputEmbedding) -> None:
        # subtle: saved tokenizers often pad to a fixed length and truncate silently; a walk
        # shows the real pieces and rejects an over-long text instead.
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        self.embedding = embedding

    @classmethod
    def load(cls, name_or_path: str | Path) -> Pipeline:
        """A built-in model name ("minilm") or a HuggingFace-format folder."""
        folder = resolve_model(name_or_path)
        return cls(load_tokenizer(folder), load_input_embedding(folder))

    @torch.no_grad()
    def walk(self, text: str, pair: str | None = None) -> Walk:
        """Tokenize `text` (and `pair` as sentence B) and run the input embedding on it."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidValueError("text must be a non-empty string")
        enc = self.tokenizer.encode(text, pair) if pair is not None else self.tokenizer.encode(text)
        max_len = self.embedding.config.max_len
        if len(enc.ids) > max_len:
            raise InvalidValueError(f"the text is {len(enc.ids)} tokens long; this model takes at most {max_len}")
        ids = torch.tensor([enc.ids])  # (1, T)
        segments = torch.tensor([enc.type_ids]) if self.embedding.segment is not None else None
        parts = self.embedding.addends(ids, segments)
        return Walk(text, pair, list(enc.tokens), list(enc.ids), list(enc.type_ids), parts)
