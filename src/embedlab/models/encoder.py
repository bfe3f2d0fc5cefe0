"""The whole BERT-family encoder: the input embedding, then N layers that make each row contextual.

    encoder = Encoder.load("minilm")                    # MiniLM: 6 layers, 12 heads, D = 384
    batch = encoder.tokenize(["he sat by the river bank", "she paid the cheque into the bank"])
    out = encoder(batch.ids, batch.mask)
    out.hidden_states[0]       (B, T, D) the input embedding's X (layer 0: no token has seen another)
    out.hidden_states[6]       (B, T, D) after the last layer: each row a mix of its whole sentence
    out.attentions[i]          (B, H, T, T) layer i's softmax weights (row: query, column: key)
    out.sentence_embedding()   (B, D) mean of the last layer over real tokens, L2-normalised

One layer (BERT's, post-LayerNorm):

    a = LayerNorm(x + SelfAttention(x, mask))         every token reads every real token
    y = LayerNorm(a + W₂ GELU(W₁ a + b₁) + b₂)        each token alone: D -> 4D -> D

The embedding row of "bank" is the same in both sentences; attention is what pulls the two apart,
layer by layer (`embedlab context` measures it). The weights are read from the model folder's
safetensors (models.pretrained); `transformers` is needed only by the tests, as the oracle.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tokenizers import Tokenizer
from torch import nn

from embedlab.data.models import read_config, resolve_model
from embedlab.errors import InvalidValueError, check_int, describe
from embedlab.layers.attention import SelfAttention
from embedlab.layers.recipes import InputEmbedding
from embedlab.models.pretrained import bert_config, encoder_names, load_tokenizer, load_weights

ACTIVATIONS = ("gelu",)  # BERT's exact (erf) GELU; the one MiniLM and BERT use


@dataclass(frozen=True)
class EncoderConfig:
    """The encoder layers' shape; the input embedding has its own EmbeddingConfig."""

    dim: int
    n_layers: int
    n_heads: int
    ffn_dim: int  # the feed-forward's inner width, 4·D in BERT and MiniLM
    layer_norm_eps: float = 1e-12

    def __post_init__(self) -> None:
        check_int("dim", self.dim, low=1)
        check_int("n_layers", self.n_layers, low=1)
        check_int("n_heads", self.n_heads, low=1)
        check_int("ffn_dim", self.ffn_dim, low=1)
        if self.dim % self.n_heads:
            raise InvalidValueError(f"dim {self.dim} is not divisible by n_heads {self.n_heads}")

    @classmethod
    def from_bert(cls, config: dict) -> EncoderConfig:
        """A BERT config.json dict -> its EncoderConfig."""
        act = config.get("hidden_act", "gelu")
        if act not in ACTIVATIONS:
            raise InvalidValueError(f"hidden_act {act!r} is not supported; supported: {', '.join(ACTIVATIONS)}")
        try:
            return cls(
                dim=config["hidden_size"],
                n_layers=config["num_hidden_layers"],
                n_heads=config["num_attention_heads"],
                ffn_dim=config["intermediate_size"],
                layer_norm_eps=config.get("layer_norm_eps", 1e-12),
            )
        except KeyError as err:
            raise InvalidValueError(f"config.json lacks the field {err.args[0]!r}") from None


class EncoderLayer(nn.Module):
    """One post-LayerNorm encoder layer: (B, T, D) [+ (B, T) bool mask] -> (B, T, D), (B, H, T, T)."""

    def __init__(self, config: EncoderConfig, device=None, dtype=None) -> None:
        super().__init__()
        c, kw = config, dict(device=device, dtype=dtype)
        self.attention = SelfAttention(c.dim, c.n_heads, **kw)
        self.attention_norm = nn.LayerNorm(c.dim, eps=c.layer_norm_eps, **kw)
        self.ffn_in = nn.Linear(c.dim, c.ffn_dim, **kw)
        self.ffn_out = nn.Linear(c.ffn_dim, c.dim, **kw)
        self.ffn_norm = nn.LayerNorm(c.dim, eps=c.layer_norm_eps, **kw)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        mixed, weights = self.attention(x, mask)  # (B, T, D), (B, H, T, T)
        x = self.attention_norm(x + mixed)
        x = self.ffn_norm(x + self.ffn_out(F.gelu(self.ffn_in(x))))  # (B, T, 4D) inside
        return x, weights


@dataclass(frozen=True)
class EncoderOutput:
    """Every layer of one forward pass.

    hidden_states: n_layers + 1 tensors (B, T, D), the input embedding first.
    attentions: n_layers tensors (B, H, T, T), layer i's weights (what produced hidden_states[i+1]).
    mask: (B, T) bool, True on real tokens.
    """

    hidden_states: tuple[torch.Tensor, ...]
    attentions: tuple[torch.Tensor, ...]
    mask: torch.Tensor

    def sentence_embedding(self, layer: int = -1) -> torch.Tensor:
        """(B, D): the mean of `layer`'s rows over each sentence's real tokens ([CLS] and [SEP]
        included), L2-normalised: how all-MiniLM-L6-v2 turns a sentence into one vector."""
        states = self.hidden_states[layer]  # (B, T, D)
        weights = self.mask.to(states.dtype).unsqueeze(-1)  # (B, T, 1)
        mean = (states * weights).sum(1) / weights.sum(1).clamp_min(1.0)  # (B, D)
        return F.normalize(mean, dim=-1)


@dataclass(frozen=True)
class Batch:
    """Texts tokenized and padded to one length T.

    ids, segment_ids: (B, T) int64; mask: (B, T) bool, True on real tokens; pieces: each text's
    real pieces ([CLS] … [SEP]), without padding.
    """

    texts: list[str]
    pieces: list[list[str]]
    ids: torch.Tensor
    segment_ids: torch.Tensor
    mask: torch.Tensor


class Encoder(nn.Module):
    """(B, T) ids [+ (B, T) bool mask, (B, T) segment ids] -> EncoderOutput.

    `embedding` is the model's InputEmbedding (layer 0's X), `layers` its EncoderLayers;
    `tokenizer` (set by `load`) turns texts into a padded Batch.
    """

    def __init__(self, embedding: InputEmbedding, config: EncoderConfig, tokenizer: Tokenizer | None = None) -> None:
        super().__init__()
        if embedding.config.dim != config.dim:
            raise InvalidValueError(
                f"the embedding makes rows of width {embedding.config.dim}; the layers take {config.dim}"
            )
        self.config = config
        self.embedding = embedding
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.n_layers))
        self.tokenizer = tokenizer

    @classmethod
    def load(cls, name_or_path: str | Path) -> Encoder:
        """A built-in model name ("minilm") or a BERT-family folder -> its encoder with the real
        weights and tokenizer, in eval mode."""
        folder = resolve_model(name_or_path)
        config = read_config(folder)
        encoder = cls(InputEmbedding(bert_config(config)), EncoderConfig.from_bert(config), load_tokenizer(folder))
        return load_weights(encoder, folder, encoder_names(encoder.config.n_layers)).eval()

    def tokenize(self, texts: list[str]) -> Batch:
        """Texts -> a Batch padded with id 0 to the longest; each text must fit the position table."""
        if self.tokenizer is None:
            raise InvalidValueError("this encoder has no tokenizer: build it with Encoder.load")
        if not isinstance(texts, list | tuple) or not texts:
            raise InvalidValueError(f"texts must be a non-empty list of strings; got {describe(texts)}")
        for i, text in enumerate(texts):
            if not isinstance(text, str) or not text.strip():
                raise InvalidValueError(f"text {i} must be a non-empty string; got {text!r}")
        encodings = self.tokenizer.encode_batch(list(texts))
        max_len = self.embedding.config.max_len
        for i, enc in enumerate(encodings):
            if len(enc.ids) > max_len:
                raise InvalidValueError(f"text {i} is {len(enc.ids)} tokens long; this model takes at most {max_len}")
        T = max(len(enc.ids) for enc in encodings)
        ids = torch.zeros(len(texts), T, dtype=torch.long)  # 0 is [PAD] in BERT vocabularies
        segments = torch.zeros_like(ids)
        mask = torch.zeros(len(texts), T, dtype=torch.bool)
        for i, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[i, :n], segments[i, :n], mask[i, :n] = torch.tensor(enc.ids), torch.tensor(enc.type_ids), True
        return Batch(list(texts), [list(enc.tokens) for enc in encodings], ids, segments, mask)

    def forward(
        self, ids: torch.Tensor, mask: torch.Tensor | None = None, segment_ids: torch.Tensor | None = None
    ) -> EncoderOutput:
        """(B, T) ids, (B, T) bool mask (default: every token real) -> every layer's states and weights."""
        x = self.embedding(ids, segment_ids)  # (B, T, D): validates the ids
        if mask is None:
            mask = torch.ones(x.shape[:-1], dtype=torch.bool, device=x.device)
        states, attentions = [x], []
        for layer in self.layers:
            x, weights = layer(x, mask)
            states.append(x)
            attentions.append(weights)
        return EncoderOutput(tuple(states), tuple(attentions), mask)

    @torch.no_grad()
    def encode(self, texts: list[str]) -> tuple[Batch, EncoderOutput]:
        """Tokenize and run `texts` in one padded batch, without gradients."""
        batch = self.tokenize(texts)
        return batch, self(batch.ids, batch.mask, batch.segment_ids)

    def sentence_vectors(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """texts (N,) -> (N, D) float32 sentence embeddings (EncoderOutput.sentence_embedding), in
        batches of texts of similar length (sorted by characters: little padding), in input order."""
        check_int("batch_size", batch_size, low=1)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.config.dim), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chosen = order[start : start + batch_size]
            out[chosen] = self.encode([texts[i] for i in chosen])[1].sentence_embedding().numpy()
        return out
