"""Static vs contextual (lab page and `embedlab context`): one word in several sentences, followed
through every layer of a real encoder.

    model = ContextModel.load("minilm")
    view = model.compare(["he sat on the river bank", "she paid the cheque into the bank"], "bank")
    view.layers[0].cosines      (n, n) cosine between the occurrences at the input embedding
    view.layers[6].cosines      the same after the last layer: the two "bank"s have drifted apart
    view.layers[6].nearest[0]   the static token rows closest to occurrence 0's layer-6 vector
    view.attention(0, layer=2, head=5)   (T,) what occurrence 0's first piece attends to in encoder
                                         layer 2 (which reads states 2 and makes states 3)

At layer 0 every occurrence is the same token row plus a position (and segment) row, so the
occurrences differ only by where they stand; each layer then mixes in the rest of the sentence.
A word of several pieces is pooled over them: "mean" (the default) averages its pieces' vectors,
"first" takes its first piece, as BERT's token-classification heads do.

The map puts every real token of every sentence at each layer on that layer's first two principal
axes, each layer turned to line up with the one before (vectors.projection.project_frame), so a slider
over layers moves points only as far as the vectors move.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError, check_choice, check_int
from embedlab.models.encoder import Batch, Encoder, EncoderOutput
from embedlab.vectors import Vectors
from embedlab.vectors.projection import project_frame

POOLINGS = ("mean", "first")
MIN_TEXTS, MAX_TEXTS = 2, 4  # the lab page's limits; the command line takes any number from 2
MAX_TOKENS = 64  # pieces per sentence on the lab page, [CLS] and [SEP] included
NEAREST = 5  # static rows listed per occurrence and layer
# The lab page's bounds, listed by /api/config: characters of a sentence and of the word, head and layer.
LIMITS = {
    "texts": [MIN_TEXTS, MAX_TEXTS],
    "text": 300,
    "tokens": MAX_TOKENS,
    "word": 50,
    "head": [0, 63],
    "layer": [0, 63],
    "pooling": list(POOLINGS),
}


@dataclass(frozen=True)
class Occurrence:
    """Where the word stands: sentence `text` (an index into the texts), pieces [start, end)."""

    text: int
    start: int
    end: int

    def to_dict(self) -> dict:
        return {"text": self.text, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class LayerView:
    """The n occurrences at one layer.

    vectors (n, D) pooled; norms (n,); cosines (n, n); nearest: per occurrence, the static token
    rows most similar (cosine) to its vector, as (piece, cosine) pairs. baseline: the mean cosine
    between two different real tokens of the texts at this layer, the level a cosine between the
    occurrences should be read against (later layers share a common direction, so it rises).
    """

    layer: int
    vectors: torch.Tensor
    norms: list[float]
    cosines: list[list[float]]
    nearest: list[list[tuple[str, float]]]
    baseline: float

    def to_dict(self, vectors: bool = False) -> dict:
        out = {"layer": self.layer, "norms": self.norms, "cosines": self.cosines, "baseline": self.baseline,
               "nearest": [[{"piece": p, "cosine": c} for p, c in row] for row in self.nearest]}  # fmt: skip
        if vectors:
            out["vectors"] = self.vectors.tolist()
        return out


@dataclass(frozen=True, eq=False)
class ContextView:
    """One word followed through an encoder; see the module docstring."""

    word: str
    word_pieces: list[str]
    pooling: str
    batch: Batch
    output: EncoderOutput
    occurrences: list[Occurrence]
    layers: list[LayerView]

    @property
    def n_heads(self) -> int:
        return self.output.attentions[0].shape[1]

    def attention(self, occurrence: int, layer: int, head: int) -> list[float]:
        """(T,) the weights occurrence `occurrence`'s first piece gives every piece of its sentence
        in encoder layer `layer` (0-based: layer 0 reads the input embedding and makes states 1)."""
        occurrence = check_int("occurrence", occurrence, low=0, high=len(self.occurrences) - 1)
        layer = check_int("layer", layer, low=0, high=len(self.output.attentions) - 1)
        head = check_int("head", head, low=0, high=self.n_heads - 1)
        at = self.occurrences[occurrence]
        n = len(self.batch.pieces[at.text])
        return self.output.attentions[layer][at.text, head, at.start, :n].tolist()

    @cached_property
    def map(self) -> list[tuple[np.ndarray, tuple[float, float]]]:
        """Per layer, (N, 2) coordinates of every real token of every sentence (sentence order, then
        piece order), aligned layer to layer, with the two axes' shares of the variance."""
        frames, previous = [], None
        for states in self.output.hidden_states:
            rows = states[self.output.mask].numpy()  # (N, D): the real tokens, padding dropped
            previous, variance = project_frame(rows, previous)
            frames.append((previous, variance))
        return frames

    def map_dict(self) -> dict:
        """JSON-ready map: which token each point is, and each layer's coordinates."""
        tokens = [{"text": i, "index": j, "piece": piece}
                  for i, pieces in enumerate(self.batch.pieces) for j, piece in enumerate(pieces)]  # fmt: skip
        return {"tokens": tokens, "frames": [xy.tolist() for xy, _ in self.map],
                "variance": [list(variance) for _, variance in self.map]}  # fmt: skip

    def attention_dict(self, layer: int, head: int) -> dict:
        """JSON-ready: every occurrence's attention row in encoder layer `layer`, head `head`."""
        rows = [self.attention(i, layer, head) for i in range(len(self.occurrences))]
        return {"layer": layer, "head": head, "rows": rows}

    def to_dict(self, layer: int | None = None, vectors: bool = False) -> dict:
        """JSON-ready: the texts' pieces, the occurrences and every layer (or only `layer`)."""
        if layer is not None:
            layer = check_int("layer", layer, low=0, high=len(self.layers) - 1)
        layers = self.layers if layer is None else [self.layers[layer]]
        return {
            "word": self.word,
            "word_pieces": self.word_pieces,
            "pooling": self.pooling,
            "texts": self.batch.texts,
            "pieces": self.batch.pieces,
            "occurrences": [o.to_dict() for o in self.occurrences],
            "n_layers": len(self.output.attentions),
            "n_heads": self.n_heads,
            "layers": [view.to_dict(vectors) for view in layers],
        }


def find_word(pieces: list[str], word_pieces: list[str]) -> list[tuple[int, int]]:
    """Every [start, end) where `word_pieces` stand in `pieces` as a whole word: not inside a
    longer word ("bank" is not found in "bank ##s" nor in "em ##bank").

    >>> find_word(["[CLS]", "the", "bank", "##s", "bank", "[SEP]"], ["bank"])
    [(4, 5)]
    """
    n, found = len(word_pieces), []
    for start in range(len(pieces) - n + 1):
        end = start + n
        if pieces[start:end] != word_pieces or pieces[start].startswith("##"):
            continue
        if end < len(pieces) and pieces[end].startswith("##"):
            continue
        found.append((start, end))
    return found


class ContextModel:
    """An encoder with its static token table as Vectors (for the nearest rows), loaded once."""

    def __init__(self, encoder: Encoder) -> None:
        if encoder.tokenizer is None:
            raise InvalidValueError("the encoder has no tokenizer: build it with Encoder.load")
        self.encoder = encoder
        weight = encoder.embedding.token.weight.detach()  # (V, D)
        keys = [encoder.tokenizer.id_to_token(i) for i in range(weight.shape[0])]
        self.table = Vectors(keys, weight, name="token table")

    @classmethod
    def load(cls, name_or_path: str | Path = "minilm") -> ContextModel:
        """A built-in model name or a BERT-family folder."""
        return cls(Encoder.load(name_or_path))

    @torch.no_grad()
    def compare(
        self, texts: list[str], word: str, pooling: str = "mean", nearest: int = NEAREST,
        max_tokens: int | None = None,
    ) -> ContextView:  # fmt: skip
        """`word` in each of `texts` (it must be in every one), followed through every layer;
        `max_tokens` limits each text's pieces ([CLS] and [SEP] included)."""
        pooling = check_choice("pooling", pooling, POOLINGS)
        nearest = check_int("nearest", nearest, low=0, high=100)
        if not isinstance(word, str) or not word.strip():
            raise InvalidValueError("word must be a non-empty string")
        if not isinstance(texts, list | tuple) or len(texts) < MIN_TEXTS:
            raise InvalidValueError(f"give at least {MIN_TEXTS} texts to compare the word in; got {len(texts)}")
        word = word.strip()
        word_pieces = self.encoder.tokenizer.encode(word, add_special_tokens=False).tokens
        batch = self.encoder.tokenize(list(texts))
        occurrences = []
        for i, pieces in enumerate(batch.pieces):
            if max_tokens is not None and len(pieces) > max_tokens:
                raise InvalidValueError(f"text {i} is {len(pieces)} tokens long; the limit is {max_tokens}")
            spans = find_word(pieces, word_pieces)
            if not spans:
                raise InvalidValueError(
                    f"the word {word!r} (pieces: {' '.join(word_pieces)}) is not in text {i}: {' '.join(pieces)}"
                )
            occurrences += [Occurrence(i, start, end) for start, end in spans]
        output = self.encoder(batch.ids, batch.mask, batch.segment_ids)
        layers = [
            _layer_view(layer, states, output.mask, occurrences, pooling, self.table, nearest)
            for layer, states in enumerate(output.hidden_states)
        ]
        return ContextView(word, word_pieces, pooling, batch, output, occurrences, layers)


def _layer_view(
    layer: int, states: torch.Tensor, mask: torch.Tensor, occurrences: list[Occurrence], pooling: str,
    table: Vectors, k: int,
) -> LayerView:  # fmt: skip
    """(B, T, D) states, (B, T) mask -> the occurrences' pooled vectors and what they say at this layer."""
    end = (lambda o: o.start + 1) if pooling == "first" else (lambda o: o.end)
    vectors = torch.stack([states[o.text, o.start : end(o)].mean(0) for o in occurrences])  # (n, D)
    unit = F.normalize(vectors, dim=-1)
    close = [list(table.similar_by_vector(v, topn=k)) if k else [] for v in vectors]
    every = F.normalize(states[mask], dim=-1)  # (N, D) every real token of every text
    n = every.shape[0]
    baseline = ((every @ every.T).sum() - n) / (n * n - n)  # the mean off the diagonal
    return LayerView(layer, vectors, vectors.norm(dim=-1).tolist(), (unit @ unit.T).tolist(), close, baseline.item())
