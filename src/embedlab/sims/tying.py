"""Tied vs untied (lab simulation 5): logits h·Wᵀ over a small vocabulary of a table's real rows.

The hidden state is a mix of two of those rows, h = (1 − t)·E[a] + t·E[b]. The tied head reads
the rows themselves (W = E); the untied head owns a fresh table drawn from `seed`, as an
untrained model's would. Parameter counts come from the head's own modules (layers.head).

    words = parse_words("cat, dog  king")                       # ['cat', 'dog', 'king']
    view = tied_vs_untied(vectors, words, "cat", "king", t=0.25)
    view.logits["tied"]                                          # (3,) h·E[i]: "cat" scores highest
    view.params.untied == 2 * view.params.tied                   # True: an untied head is a second table
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

import torch

from embedlab.errors import InvalidValueError, check_float
from embedlab.layers.head import embedding_parameters, tied_and_untied
from embedlab.vectors.table import Vectors

DEFAULT_WORDS = "cat, dog, horse, king, queen, prince, paris, london, red, blue, run, walk"
MIN_WORDS, MAX_WORDS = 2, 16  # a vocabulary small enough to show every logit
HEADS = ("tied", "untied")


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

    vocab_size: int
    dim: int
    small_vocab_size: int
    tied: int  # V·D: the head reads the token table
    untied: int  # 2·V·D: the head owns a second table
    small_tied: int
    small_untied: int


def parameters(vocab_size: int, dim: int, small: int) -> HeadParameters:
    """Each layout's parameter count at (V, D) and at (`small`, D), counted on the modules.

    >>> parameters(30522, 384, 12).untied
    23440896
    """
    count = embedding_parameters
    return HeadParameters(vocab_size, dim, small, count(vocab_size, dim, tied=True), count(vocab_size, dim, tied=False),
                          count(small, dim, tied=True), count(small, dim, tied=False))  # fmt: skip


@dataclass(frozen=True, eq=False)
class TyingView:
    """Both heads' logits for one hidden state over `words`."""

    words: list[str]
    a: str
    b: str
    t: float
    seed: int
    h: torch.Tensor  # (D,) the mixed hidden state
    logits: dict[str, torch.Tensor]  # head -> (V_small,) h·W[i]
    params: HeadParameters

    def top(self, head: str) -> str:
        """The word `head` scores highest."""
        return self.words[int(self.logits[head].argmax())]

    def to_dict(self) -> dict:
        """Plain JSON: words, a, b, t, seed, h, per head its logits and top word, and params."""
        heads = {head: {"logits": self.logits[head].tolist(), "top": self.top(head)} for head in HEADS}
        return {"words": self.words, "a": self.a, "b": self.b, "t": self.t, "seed": self.seed, "h": self.h.tolist(),
                **heads, "params": asdict(self.params)}  # fmt: skip


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
    tied, untied = tied_and_untied(rows, seed)
    logits = {"tied": tied(h), "untied": untied(h)}  # (V_small,) each
    return TyingView(words, a, b, t, seed, h, logits, parameters(len(vectors), vectors.vector_size, len(words)))
