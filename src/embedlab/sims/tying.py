"""Tied vs untied (lab simulation 5): logits h·Wᵀ over a small vocabulary of a table's real rows.

The hidden state is a mix of two of those rows, h = (1 − t)·E[a] + t·E[b]. The tied head reads
the rows themselves (W = E); the untied head owns a fresh table drawn from `seed`, as an
untrained model's would. Parameter counts come from the head's own modules (layers.head).

    words = parse_words("cat, dog  king")                       # ['cat', 'dog', 'king']
    view = tied_vs_untied(vectors, words, "cat", "king", t=0.25)
    view.tied.logits, view.tied.top                              # (3,) h·E[i]; "cat" scores highest
    view.params.untied == 2 * view.params.tied                   # True: an untied head is a second table
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from embedlab.errors import InvalidValueError, check_float
from embedlab.files import Vector
from embedlab.layers.head import embedding_parameters, tied_and_untied
from embedlab.vectors.table import Vectors

DEFAULT_WORDS = "cat, dog, horse, king, queen, prince, paris, london, red, blue, run, walk"
MIN_WORDS, MAX_WORDS = 2, 16  # a vocabulary small enough to show every logit
MAX_TEXT = 400  # characters of the lab's word list
LIMITS = {"words": [MIN_WORDS, MAX_WORDS], "text": MAX_TEXT, "default_words": DEFAULT_WORDS}


def parse_words(text: str) -> list[str]:
    """'cat, dog  king' -> ['cat', 'dog', 'king']: split on commas and spaces, duplicates dropped,
    MIN_WORDS..MAX_WORDS of them.

    >>> parse_words("the of,  and the")
    ['the', 'of', 'and']
    """
    words = list(dict.fromkeys(w for w in re.split(r"[,\s]+", text) if w))
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        raise InvalidValueError(f"words must hold {MIN_WORDS}..{MAX_WORDS} distinct keys; got {len(words)}")
    return words


@dataclass(frozen=True)
class HeadParameters:
    """Token table + output layer parameters, tied and untied, for a whole table and a small one."""

    vocab_size: int  # V of the whole table
    dim: int  # D
    small_vocab_size: int  # V_small, the words shown
    tied: int  # V·D: the head reads the token table
    untied: int  # 2·V·D: the head owns a second table
    small_tied: int  # V_small·D
    small_untied: int  # 2·V_small·D


def parameters(vocab_size: int, dim: int, small: int) -> HeadParameters:
    """Each layout's parameter count at (V, D) and at (`small`, D), counted on the modules.

    >>> parameters(30522, 384, 12).untied
    23440896
    """
    tied, untied = (embedding_parameters(vocab_size, dim, tied=shared) for shared in (True, False))
    small_tied, small_untied = (embedding_parameters(small, dim, tied=shared) for shared in (True, False))
    return HeadParameters(vocab_size, dim, small, tied, untied, small_tied, small_untied)


@dataclass(frozen=True, eq=False)
class HeadLogits:
    """One head's scores of h over the small vocabulary."""

    logits: Vector  # (V_small,) h·W[i]
    top: str  # the word it scores highest


@dataclass(frozen=True, eq=False)
class TyingView:
    """Both heads' logits for one hidden state over `words`, and each layout's parameters."""

    table: str  # the table the rows come from
    words: list[str]  # the small vocabulary, V_small keys
    a: str  # h starts at this word's row
    b: str  # and moves towards this one's
    t: float  # h = (1 − t)·E[a] + t·E[b]
    seed: int  # the untied head's seed
    h: Vector  # (D,) the mixed hidden state
    tied: HeadLogits  # W = the rows themselves
    untied: HeadLogits  # W = a fresh table drawn from `seed`
    params: HeadParameters  # token table + output layer, tied and untied


@torch.no_grad()
def tied_vs_untied(vectors: Vectors, words: list[str], a: str, b: str, t: float = 0.0, seed: int = 0) -> TyingView:
    """The rows of `words` (V_small, D) as a small vocabulary; h = lerp(E[a], E[b], t) (D,) scored
    by the tied head (W = those rows) and by an untied head drawn from `seed` -> (V_small,) each."""
    for name, word in (("a", a), ("b", b)):
        if word not in words:
            raise InvalidValueError(f"{name} {word!r} must be one of the words: {', '.join(words)}")
    t = check_float("t", t, low=0.0, high=1.0)
    rows = torch.from_numpy(vectors[words])  # (V_small, D), the table's real rows
    h = torch.lerp(rows[words.index(a)], rows[words.index(b)], t)  # (D,)
    heads = [head(h).numpy() for head in tied_and_untied(rows, seed)]  # (V_small,) each
    tied, untied = (HeadLogits(logits, words[int(logits.argmax())]) for logits in heads)
    params = parameters(len(vectors), vectors.vector_size, len(words))
    return TyingView(vectors.name, words, a, b, t, seed, h.numpy(), tied, untied, params)
