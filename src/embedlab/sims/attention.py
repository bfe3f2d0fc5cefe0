"""The attention bridge: a real model's input embeddings compared by its first attention layer.

    bridge = AttentionBridge.load("minilm")
    view = bridge.compare("the cat sat on the mat")
    view.scores        (H, T, T) q·k/√d_k from layer 0's query and key projections
    view.raw_scores    (H, T, T) the same dot products without the division
    view.weights       (H, T, T) softmax rows of the scaled scores (what BERT uses)
    view.raw_weights   (H, T, T) softmax rows of the unscaled ones
    view.entropy(view.weights)   (H, T) how spread each query's attention is, in nats

X is the input embedding's output (token + position + segment rows, then LayerNorm), exactly
what BERT feeds its layer 0. Without the √d_k division the scores spread √d_k times wider
(√32 ≈ 5.7 for MiniLM's heads) and most softmax rows collapse onto a single key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch

from embedlab.data.models import resolve_model
from embedlab.errors import InvalidValueError, check_int
from embedlab.layers.attention import attention_weights, qk_scores
from embedlab.models.pipeline import Pipeline
from embedlab.models.pretrained import QueryKey, load_query_key


@dataclass(frozen=True)
class BridgeView:
    """One text through layer 0's scores; every tensor is (H, T, T), the batch dimension dropped."""

    text: str
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

    def to_dict(self, head: int) -> dict:
        """JSON-ready: head `head`'s (T, T) scores and weights with each row's entropy and largest
        weight, and every head's mean entropy and mean largest weight, scaled and unscaled."""
        head = check_int("head", head, low=0, high=self.n_heads - 1)
        entropy, raw_entropy = self.entropy(self.weights), self.entropy(self.raw_weights)  # (H, T)
        top, raw_top = self.weights.amax(-1), self.raw_weights.amax(-1)  # (H, T)
        return {
            "text": self.text,
            "pieces": self.pieces,
            "ids": self.ids,
            "n_heads": self.n_heads,
            "head_dim": self.head_dim,
            "scale": math.sqrt(self.head_dim),
            "uniform_entropy": math.log(len(self.ids)),
            "head": head,
            "scores": self.scores[head].tolist(),
            "raw_scores": self.raw_scores[head].tolist(),
            "weights": self.weights[head].tolist(),
            "raw_weights": self.raw_weights[head].tolist(),
            "entropy": entropy[head].tolist(),
            "raw_entropy": raw_entropy[head].tolist(),
            "max_weight": top[head].tolist(),
            "raw_max_weight": raw_top[head].tolist(),
            "heads": {
                "mean_entropy": entropy.mean(-1).tolist(),
                "raw_mean_entropy": raw_entropy.mean(-1).tolist(),
                "mean_max_weight": top.mean(-1).tolist(),
                "raw_mean_max_weight": raw_top.mean(-1).tolist(),
            },
        }


class AttentionBridge:
    """A model's tokenizer and input embedding (a Pipeline) with one layer's q/k projections."""

    def __init__(self, pipeline: Pipeline, query_key: QueryKey) -> None:
        dim = pipeline.embedding.config.dim
        if query_key.w_q.shape[0] != dim:
            raise InvalidValueError(
                f"the projections take rows of width {query_key.w_q.shape[0]}; the embedding makes {dim}"
            )
        self.pipeline = pipeline
        self.query_key = query_key

    @classmethod
    def load(cls, name_or_path: str | Path, layer: int = 0) -> AttentionBridge:
        """A built-in model name ("minilm") or a BERT-family folder; `layer` picks the encoder layer
        whose projections are used (only layer 0 sees the input embeddings themselves)."""
        folder = resolve_model(name_or_path)
        return cls(Pipeline.load(folder), load_query_key(folder, layer))

    @torch.no_grad()
    def compare(self, text: str, max_tokens: int | None = None) -> BridgeView:
        """Tokenize `text` (at most `max_tokens` pieces, [CLS] and [SEP] included), embed it, and
        score every query piece against every key piece in each head."""
        walk = self.pipeline.walk(text)
        if max_tokens is not None and len(walk.ids) > max_tokens:
            raise InvalidValueError(f"the text is {len(walk.ids)} tokens long; the limit is {max_tokens}")
        x = walk.rows()["output"]  # (T, D): after LayerNorm, as BERT's layer 0 receives it
        qk = self.query_key
        raw = qk_scores(x, qk.w_q, qk.w_k, qk.b_q, qk.b_k, scale=False, n_heads=qk.n_heads)  # (H, T, T)
        scores = qk_scores(x, qk.w_q, qk.w_k, qk.b_q, qk.b_k, n_heads=qk.n_heads)  # (H, T, T)
        return BridgeView(
            text=text,
            pieces=walk.pieces,
            ids=walk.ids,
            head_dim=qk.head_dim,
            scores=scores,
            raw_scores=raw,
            weights=attention_weights(scores),
            raw_weights=attention_weights(raw),
        )
