"""The attention bridge: a real model's rows compared by one of its attention layers, head by head.

    bridge = AttentionBridge.load("minilm")
    view = bridge.compare("the cat sat on the mat")           # layer 0; layer=1…5 for the others
    view.scores        (H, T, T) q·k/√d_k from the layer's query and key projections
    view.raw_scores    (H, T, T) the same dot products without the division
    view.weights       (H, T, T) softmax rows of the scaled scores (what BERT uses)
    view.raw_weights   (H, T, T) softmax rows of the unscaled ones
    view.entropy(view.weights)   (H, T) how spread each query's attention is, in nats
    bridge.head("the cat sat", layer=2, head=4)   what the lab shows: one head's (T, T) matrices and
                                                  every head's averages (a HeadView)

Layer 0 compares the input embedding's output X (token + position + segment rows, then
LayerNorm): the embeddings themselves. Layer i > 0 compares the rows layer i - 1 made, which
already hold some of the sentence (models.encoder runs the layers before it). Without the √d_k
division the scores spread √d_k times wider (√32 ≈ 5.7 for MiniLM's heads) and most softmax rows
collapse onto a single key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch

from embedlab.errors import InvalidValueError, check_int
from embedlab.files import Matrix, Vector
from embedlab.layers.attention import attention_weights, qk_scores
from embedlab.models.encoder import Encoder

MAX_TEXT = 300  # characters of the lab's sentence
MAX_TOKENS = 64  # pieces, [CLS] and [SEP] included: 12 heads × 4 matrices of T×T stay small
MAX_HEAD = 63  # the lab's bounds for a query; the model's own head and layer counts are checked here too
MAX_LAYER = 63
LIMITS = {"text": MAX_TEXT, "tokens": MAX_TOKENS, "head": [0, MAX_HEAD], "layer": [0, MAX_LAYER]}


@dataclass(frozen=True)
class BridgeView:
    """One text through one layer's scores; every tensor is (H, T, T), the batch dimension dropped."""

    text: str
    layer: int  # the encoder layer whose projections scored the rows (0: the input embeddings)
    n_layers: int
    pieces: list[str]
    ids: list[int]
    head_dim: int  # d_k of one head
    scores: torch.Tensor
    raw_scores: torch.Tensor
    weights: torch.Tensor
    raw_weights: torch.Tensor

    @property
    def n_heads(self) -> int:
        return self.scores.shape[0]

    @staticmethod
    def entropy(weights: torch.Tensor) -> torch.Tensor:
        """(..., T) softmax rows -> (...) entropy in nats: 0 for one key, log T for a uniform row."""
        # subtle: a weight that underflowed to 0 contributes 0·log 0 = 0, not NaN.
        return -(weights * weights.clamp_min(torch.finfo(weights.dtype).tiny).log()).sum(-1)


@dataclass(frozen=True)
class HeadSummaries:
    """Every head's averages over the query rows, scaled and unscaled: (H,) each."""

    mean_entropy: Vector  # (H,) mean row entropy of softmax(q·k/√d_k), nats
    raw_mean_entropy: Vector  # (H,) the same for softmax(q·k)
    mean_max_weight: Vector  # (H,) mean largest weight of a row, scaled
    raw_mean_max_weight: Vector  # (H,) the same, unscaled


@dataclass(frozen=True, eq=False)
class HeadView:
    """One head of one layer on one text: its (T, T) scores and weights, scaled and unscaled, each
    row's entropy and largest weight; and every head's averages, to compare it with."""

    text: str  # the sentence
    layer: int  # the encoder layer whose projections scored the rows (0: the input embeddings)
    n_layers: int  # the encoder's layers
    pieces: list[str]  # T pieces, [CLS] and [SEP] included
    ids: list[int]  # their ids
    n_heads: int  # H
    head_dim: int  # d_k of one head
    scale: float  # √d_k, what the scaled scores are divided by
    uniform_entropy: float  # log T: the entropy of a row spread evenly over the keys
    head: int  # the head shown
    scores: Matrix  # (T, T) q·k/√d_k, queries down, keys across
    raw_scores: Matrix  # (T, T) q·k
    weights: Matrix  # (T, T) softmax rows of the scaled scores (what BERT uses)
    raw_weights: Matrix  # (T, T) softmax rows of the unscaled ones
    entropy: Vector  # (T,) each row's entropy in nats, scaled
    raw_entropy: Vector  # (T,) the same, unscaled
    max_weight: Vector  # (T,) each row's largest weight, scaled
    raw_max_weight: Vector  # (T,) the same, unscaled
    heads: HeadSummaries  # every head's averages


def one_head(view: BridgeView, head: int) -> HeadView:
    """A BridgeView (H, T, T) cut to head `head` (T, T), with every head's row averages (H,)."""
    head = check_int("head", head, low=0, high=view.n_heads - 1)
    entropy, raw_entropy = view.entropy(view.weights), view.entropy(view.raw_weights)  # (H, T)
    top, raw_top = view.weights.amax(-1), view.raw_weights.amax(-1)  # (H, T)
    return HeadView(
        text=view.text,
        layer=view.layer,
        n_layers=view.n_layers,
        pieces=view.pieces,
        ids=view.ids,
        n_heads=view.n_heads,
        head_dim=view.head_dim,
        scale=math.sqrt(view.head_dim),
        uniform_entropy=math.log(len(view.ids)),
        head=head,
        scores=view.scores[head].numpy(),
        raw_scores=view.raw_scores[head].numpy(),
        weights=view.weights[head].numpy(),
        raw_weights=view.raw_weights[head].numpy(),
        entropy=entropy[head].numpy(),
        raw_entropy=raw_entropy[head].numpy(),
        max_weight=top[head].numpy(),
        raw_max_weight=raw_top[head].numpy(),
        heads=HeadSummaries(*(x.mean(-1).numpy() for x in (entropy, raw_entropy, top, raw_top))),
    )


class AttentionBridge:
    """A model's whole encoder, read one attention layer at a time."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder

    @classmethod
    def load(cls, name_or_path: str | Path) -> AttentionBridge:
        """A built-in model name ("minilm") or a BERT-family folder."""
        return cls(Encoder.load(name_or_path))

    @property
    def n_layers(self) -> int:
        return self.encoder.config.n_layers

    def head(self, text: str, layer: int = 0, head: int = 0, max_tokens: int | None = MAX_TOKENS) -> HeadView:
        """`compare(text, layer, max_tokens)` cut to one head (one_head)."""
        return one_head(self.compare(text, layer, max_tokens), head)

    @torch.no_grad()
    def compare(self, text: str, layer: int = 0, max_tokens: int | None = None) -> BridgeView:
        """Tokenize `text` (at most `max_tokens` pieces, [CLS] and [SEP] included), run it up to
        encoder layer `layer`, and score every query piece against every key piece in each head."""
        layer = check_int("layer", layer, low=0, high=self.n_layers - 1)
        if not isinstance(text, str) or not text.strip():
            raise InvalidValueError("text must be a non-empty string")
        batch = self.encoder.tokenize([text])
        T = batch.ids.shape[1]
        if max_tokens is not None and T > max_tokens:
            raise InvalidValueError(f"the text is {T} tokens long; the limit is {max_tokens}")
        x = self.encoder(batch.ids, batch.mask, batch.segment_ids).hidden_states[layer][0]  # (T, D): the layer's input
        attention = self.encoder.layers[layer].attention
        # nn.Linear stores (out, in); qk_scores takes W in the Q = X W convention, hence the .T
        q, k = attention.query, attention.key
        args = (x, q.weight.T, k.weight.T, q.bias, k.bias)
        raw = qk_scores(*args, scale=False, n_heads=attention.n_heads)  # (H, T, T)
        scores = qk_scores(*args, n_heads=attention.n_heads)  # (H, T, T)
        return BridgeView(
            text=text,
            layer=layer,
            n_layers=self.n_layers,
            pieces=batch.pieces[0],
            ids=batch.ids[0].tolist(),
            head_dim=x.shape[-1] // attention.n_heads,
            scores=scores,
            raw_scores=raw,
            weights=attention_weights(scores),
            raw_weights=attention_weights(raw),
        )
