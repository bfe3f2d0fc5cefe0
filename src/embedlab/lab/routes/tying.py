"""Tied vs untied (simulation 5): logits h·Eᵀ over a small vocabulary and the parameter counts.

The small vocabulary's rows come from a served table (MiniLM's real token table by default). The
hidden state is a mix of two of its rows, h = (1 − t)·E[a] + t·E[b]. The tied head reads those
rows; the untied head owns a fresh table drawn from a fixed seed, as an untrained model's would.
"""

from __future__ import annotations

import re
from typing import Annotated

import torch
from fastapi import APIRouter, Query, Request

from embedlab.errors import InvalidValueError
from embedlab.layers.head import embedding_parameters, tied_and_untied

router = APIRouter(prefix="/api/tying", tags=["tying"])

DEFAULT_WORDS = "cat, dog, horse, king, queen, prince, paris, london, red, blue, run, walk"
MIN_WORDS, MAX_WORDS = 2, 16
MAX_TEXT = 400  # characters of the word list
MAX_SEED = 2**31 - 1

Words = Annotated[str, Query(min_length=1, max_length=MAX_TEXT,
                             description=f"{MIN_WORDS}..{MAX_WORDS} keys, comma or space separated")]  # fmt: skip
Word = Annotated[str, Query(min_length=1, max_length=100, description="one of `words`")]
Mix = Annotated[float, Query(ge=0.0, le=1.0, description="t in h = (1 − t)·E[a] + t·E[b], 0..1")]
Seed = Annotated[int, Query(ge=0, le=MAX_SEED)]


def parse_words(text: str, a: str, b: str) -> list[str]:
    """'cat, dog  king' -> ['cat', 'dog', 'king']: split on commas and spaces, duplicates dropped;
    `a` and `b` must be among them."""
    words = list(dict.fromkeys(w for w in re.split(r"[,\s]+", text) if w))
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        raise InvalidValueError(f"words must hold {MIN_WORDS}..{MAX_WORDS} distinct keys; got {len(words)}")
    for name, word in (("a", a), ("b", b)):
        if word not in words:
            raise InvalidValueError(f"{name} {word!r} must be one of the words: {', '.join(words)}")
    return words


def parameters(vocab_size: int, dim: int, small: int) -> dict[str, int]:
    """Token table + output layer parameters, tied and untied, for the whole table and `small` rows."""
    return {"vocab_size": vocab_size, "dim": dim, "small_vocab_size": small,
            "tied": embedding_parameters(vocab_size, dim, tied=True),
            "untied": embedding_parameters(vocab_size, dim, tied=False),
            "small_tied": embedding_parameters(small, dim, tied=True),
            "small_untied": embedding_parameters(small, dim, tied=False)}  # fmt: skip


@router.get("")
def logits(request: Request, table: str = "minilm", words: Words = DEFAULT_WORDS, a: Word = "cat",
           b: Word = "dog", t: Mix = 0.0, seed: Seed = 0) -> dict:  # fmt: skip
    """Tied and untied logits of h over `words`, and each layout's parameters for the whole table."""
    vectors = request.app.state.lab.table(table)
    vocab = parse_words(words, a, b)
    rows = torch.from_numpy(vectors[vocab])  # (V_small, D), the table's real rows
    h = torch.lerp(rows[vocab.index(a)], rows[vocab.index(b)], t)  # (D,)
    tied, untied = tied_and_untied(rows, seed)
    with torch.no_grad():
        scores = {"tied": tied(h), "untied": untied(h)}  # (V_small,) each
    return {"table": table, "words": vocab, "a": a, "b": b, "t": t, "seed": seed, "h": h.tolist(),
            **{kind: {"logits": s.tolist(), "top": vocab[int(s.argmax())]} for kind, s in scores.items()},
            "params": parameters(len(vectors), vectors.vector_size, len(vocab))}  # fmt: skip
