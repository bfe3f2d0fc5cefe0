"""One word in several sentences, followed through every layer of a real encoder (what
`embedlab context` prints and the lab's Static vs contextual page draws, sims/context.py).

    model = ContextModel.load("minilm")
    view = model.compare(["he sat on the river bank", "she paid the cheque into the bank"], "bank")
    view.layers[0].cosines      (n, n) cosine between the occurrences at the input embedding
    view.layers[6].cosines      the same after the last layer: the two "bank"s have drifted apart
    view.layers[6].nearest[0]   the static token rows closest to occurrence 0's layer-6 vector
    view.attention(0, layer=2, head=5)   (T,) what occurrence 0's first piece attends to in encoder
                                         layer 2 (which reads states 2 and makes states 3)
    view.answer(layer=6, vectors=True)   ContextAnswer: what `embedlab context --json` prints

Text is checked at the boundary (check_text): a control character or a lone surrogate is refused
with its position, and a word the tokenizer turns into no pieces (an accent alone, a bidi mark, a
replaced undecodable byte) is refused too, rather than found nowhere.

At layer 0 every occurrence is the same token row plus a position (and segment) row, so the
occurrences differ only by where they stand; each layer then mixes in the rest of the sentence.
A word of several pieces is pooled over them: "mean" (the default) averages its pieces' vectors,
"first" takes its first piece, as BERT's token-classification heads do.

The map puts every real token of every sentence at each layer on that layer's first two principal
axes, each layer turned to line up with the one before (vectors.projection.project_frame), so a slider
over layers moves points only as far as the vectors move.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError, check_choice, check_int
from embedlab.files import Matrix
from embedlab.models.encoder import Batch, Encoder, EncoderOutput
from embedlab.vectors import Vectors
from embedlab.vectors.projection import project_frame

POOLINGS = ("mean", "first")
MIN_TEXTS = 2  # a word is compared across two sentences at least
NEAREST = 5  # static rows listed per occurrence and layer


@dataclass(frozen=True)
class Occurrence:
    """Where the word stands in one sentence."""

    text: int  # the sentence, an index into the texts
    start: int  # its first piece
    end: int  # one past its last piece


@dataclass(frozen=True)
class NearRow:
    """A static token row close to a contextual vector."""

    piece: str  # the token table's key
    cosine: float  # with the contextual vector


@dataclass(frozen=True, eq=False)
class LayerView:
    """The n occurrences at one layer.

    baseline is the level a cosine between the occurrences should be read against: later layers
    share a common direction, so two unrelated tokens have a high cosine there too.
    """

    layer: int  # 0 = the input embedding, L = the states after encoder layer L
    vectors: Matrix | None  # (n, D) float32 pooled vectors (None in answers that leave them out: the lab page)
    norms: tuple[float, ...]  # (n,) their norms
    cosines: Matrix  # (n, n) cosine between every two occurrences
    nearest: tuple[tuple[NearRow, ...], ...]  # per occurrence, the static token rows most similar (cosine)
    baseline: float  # the mean cosine between two different real tokens of the texts at this layer


@dataclass(frozen=True)
class MapToken:
    """One point of the map: a real token of one sentence."""

    text: int  # the sentence
    index: int  # its place among the sentence's pieces
    piece: str


@dataclass(frozen=True, eq=False)
class ContextMap:
    """Every real token of every sentence (sentence order, then piece order), per layer."""

    tokens: tuple[MapToken, ...]  # one per point
    frames: tuple[Matrix, ...]  # per layer, (N, 2) coordinates, each layer turned onto the one before
    variance: tuple[tuple[float, float], ...]  # per layer, the two axes' shares of the variance


@dataclass(frozen=True, eq=False)
class ContextAttention:
    """Every occurrence's attention row in one head of one encoder layer."""

    layer: int  # the encoder layer, 0-based: layer 0 reads the input embedding and makes states 1
    head: int
    rows: tuple[tuple[float, ...], ...]  # per occurrence, (T,) the weights its first piece gives its sentence's pieces


@dataclass(frozen=True, eq=False)
class ContextAnswer:
    """One word followed through an encoder, as the lab page and `embedlab context --json` show it."""

    word: str
    word_pieces: tuple[str, ...]  # the word as the tokenizer splits it
    pooling: str  # how a word of several pieces is pooled: mean | first
    texts: tuple[str, ...]
    pieces: tuple[tuple[str, ...], ...]  # each text's pieces, [CLS] and [SEP] included
    occurrences: tuple[Occurrence, ...]  # every place the word stands, sentence by sentence
    n_layers: int  # encoder layers (the states run 0..n_layers)
    n_heads: int  # attention heads per layer
    layers: tuple[LayerView, ...]  # every layer, or the one asked for
    map: ContextMap | None  # the tokens' map (the lab page), else None
    attention: ContextAttention | None  # one head's attention rows (the lab page), else None


@dataclass(frozen=True, eq=False)
class ContextView:
    """One word followed through an encoder, with the encoder's whole output; see the module docstring."""

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

    def answer(
        self,
        layer: int | None = None,
        *,
        vectors: bool = False,
        attention: tuple[int, int] | None = None,
        with_map: bool = False,
    ) -> ContextAnswer:
        """The view as an answer: every layer (or only `layer`), with their pooled vectors if
        `vectors`; the occurrences' attention rows in (encoder layer, head) `attention`; the tokens'
        map if `with_map`."""
        if layer is not None:
            layer = check_int("layer", layer, low=0, high=len(self.layers) - 1)
        layers = self.layers if layer is None else [self.layers[layer]]
        if not vectors:
            layers = [replace(view, vectors=None) for view in layers]
        rows = None
        if attention is not None:
            at, head = attention
            rows = tuple(tuple(self.attention(i, at, head)) for i in range(len(self.occurrences)))
        return ContextAnswer(
            word=self.word,
            word_pieces=tuple(self.word_pieces),
            pooling=self.pooling,
            texts=tuple(self.batch.texts),
            pieces=tuple(map(tuple, self.batch.pieces)),
            occurrences=tuple(self.occurrences),
            n_layers=len(self.output.attentions),
            n_heads=self.n_heads,
            layers=tuple(layers),
            map=self._map_answer() if with_map else None,
            attention=None if attention is None else ContextAttention(*attention, rows),
        )

    def _map_answer(self) -> ContextMap:
        pieces = enumerate(self.batch.pieces)
        tokens = tuple(MapToken(i, j, piece) for i, text in pieces for j, piece in enumerate(text))
        return ContextMap(tokens, tuple(xy for xy, _ in self.map), tuple(variance for _, variance in self.map))


def find_word(pieces: list[str], word_pieces: list[str]) -> list[tuple[int, int]]:
    """Every [start, end) where `word_pieces` stand in `pieces` as a whole word: not inside a
    longer word ("bank" is not found in "bank ##s" nor in "em ##bank"). A word of no pieces is
    nowhere.

    >>> find_word(["[CLS]", "the", "bank", "##s", "bank", "[SEP]"], ["bank"])
    [(4, 5)]
    """
    n, found = len(word_pieces), []
    if n == 0:
        return found
    for start in range(len(pieces) - n + 1):
        end = start + n
        if pieces[start:end] != word_pieces or pieces[start].startswith("##"):
            continue
        if end < len(pieces) and pieces[end].startswith("##"):
            continue
        found.append((start, end))
    return found


def check_text(name: str, text: object) -> str:
    """`text` if it is a string a tokenizer can read: no control character (tab, newline and
    carriage return aside) and no lone surrogate (what undecodable bytes become); else
    InvalidValueError naming the character and where it stands.

    >>> check_text("word", "bank")
    'bank'
    """
    if not isinstance(text, str):
        raise InvalidValueError(f"{name} must be a string; got {type(text).__name__}")
    for i, char in enumerate(text):
        kind = unicodedata.category(char)
        if (kind == "Cc" and char not in "\t\n\r") or kind == "Cs":
            what = "a lone surrogate (an undecodable byte)" if kind == "Cs" else "a control character"
            raise InvalidValueError(f"{name} holds {what}, U+{ord(char):04X}, at character {i}; remove it")
    return text


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
        max_tokens: int | None = None, max_occurrences: int | None = None,
    ) -> ContextView:  # fmt: skip
        """`word` in each of `texts` (it must be in every one), followed through every layer;
        `max_tokens` limits each text's pieces ([CLS] and [SEP] included), `max_occurrences` the
        word's occurrences in all texts together."""
        pooling = check_choice("pooling", pooling, POOLINGS)
        nearest = check_int("nearest", nearest, low=0, high=100)
        if not isinstance(word, str) or not word.strip():
            raise InvalidValueError("word must be a non-empty string")
        if not isinstance(texts, list | tuple) or len(texts) < MIN_TEXTS:
            raise InvalidValueError(f"give at least {MIN_TEXTS} texts to compare the word in; got {len(texts)}")
        word = check_text("word", word).strip()
        for i, text in enumerate(texts):
            check_text(f"text {i}", text)
        word_pieces = self.encoder.tokenizer.encode(word, add_special_tokens=False).tokens
        if not word_pieces:  # the tokenizer drops control and format characters, accents alone, U+FFFD
            raise InvalidValueError(f"the word {word!r} has no pieces in this tokenizer: give a word with letters")
        unknown = getattr(self.encoder.tokenizer.model, "unk_token", None)
        if unknown in word_pieces:  # [UNK] matches every other unknown word: "found" would mean nothing
            raise InvalidValueError(
                f"the word {word!r} is outside this tokenizer's vocabulary: it reads as "
                f"{' '.join(word_pieces)}, which any unknown word matches; give a word it can spell"
            )
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
        if max_occurrences is not None and len(occurrences) > max_occurrences:
            raise InvalidValueError(
                f"the word {word!r} occurs {len(occurrences)} times in these texts; the limit is {max_occurrences}"
            )
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
    close = tuple(tuple(NearRow(p, c) for p, c in table.similar_by_vector(v, topn=k)) if k else () for v in vectors)
    every = F.normalize(states[mask], dim=-1)  # (N, D) every real token of every text
    n = every.shape[0]
    baseline = ((every @ every.T).sum() - n) / (n * n - n)  # the mean off the diagonal
    norms = tuple(vectors.norm(dim=-1).tolist())
    return LayerView(layer, vectors.numpy(), norms, (unit @ unit.T).numpy(), close, baseline.item())
