"""Distillation: an encoder's vocabulary, each token passed through it alone, becomes a static table
(Model2Vec's method). Lessons 003 and 004 contrast a static table (one row a token, blind to context)
with the encoder's contextual rows; this crosses back, trading context for a lookup.

    model = distill("minilm", dim=256)           # -> vectors.static.StaticModel
    model.encode(["a sentence"])                  (1, 256)

The steps, each a function:

    token_outputs(encoder, ids, pooling)   (N,) token ids -> (N, H) or (N, 2H): the encoder's last layer
                                    on "[CLS] t [SEP]", pooled (POOLINGS below)
    pca(x, dim)                     (N, H) -> (N, dim): centred, projected on the top principal axes
    sif_weights(p, a)               (V,) token probabilities -> a / (a + p): frequent pieces count less
    zipf_probabilities(V)           Model2Vec's stand-in for counts: p ∝ 1 / (rank + 2), rank = token id

Tokens that never come out of the tokenizer ([unusedN] rows of BERT vocabularies) keep a zero row:
the table stays aligned with the teacher's tokenizer, whose tokenizer.json serves unchanged but for
its post-processor, dropped (as Model2Vec drops it) so that no reader adds [CLS] and [SEP] to a text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import torch
from tokenizers import Tokenizer

from embedlab.errors import InvalidValueError, check_int
from embedlab.models.encoder import Encoder
from embedlab.vectors.similarity import unit_rows
from embedlab.vectors.static import StaticModel

UNUSED = re.compile(r"\[unused\d+\]")  # BERT's placeholder rows: never produced from text
WEIGHTINGS = ("zipf", "none")
# how a token's three output rows become one: "mean" of the three (Model2Vec's default), the "token"'s
# own position, or "token+input": that row and the token's input row, each at unit length, side by side
# (2H wide before PCA). WordSim-7 on MiniLM at 256 dims: 46.4, 49.5 and 51.6 (docs/distill.md).
POOLINGS = ("mean", "token", "token+input")
SIF = 1e-4  # Model2Vec's default coefficient a: a piece of probability a is weighted 1/2
BATCH = 1024  # token sequences a forward pass (three positions each: small)


def token_outputs(
    encoder: Encoder,
    ids: np.ndarray,
    pooling: str = "mean",
    batch: int = BATCH,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """(N,) token ids -> (N, H) float32 ((N, 2H) for "token+input"): the last layer on [CLS] t [SEP]
    (the special ids from the tokenizer's own post-processor), pooled as `pooling` says (POOLINGS).
    `progress(n)` is told each batch's size."""
    check_int("batch", batch, low=1)
    _check_choice("pooling", pooling, POOLINGS)
    cls_id, sep_id = _specials(encoder)
    out = np.empty((len(ids), encoder.config.dim), dtype=np.float32)
    with torch.no_grad():
        for start in range(0, len(ids), batch):
            chunk = torch.as_tensor(ids[start : start + batch], dtype=torch.long)
            sequences = torch.stack([torch.full_like(chunk, cls_id), chunk, torch.full_like(chunk, sep_id)], dim=1)
            last = encoder(sequences).hidden_states[-1]  # (B, 3, H)
            out[start : start + len(chunk)] = (last.mean(dim=1) if pooling == "mean" else last[:, 1]).numpy()
            if progress:
                progress(len(chunk))
    if pooling == "token+input":
        rows = encoder.embedding.token.weight.detach().numpy()[ids]  # (N, H) the input table's rows
        out = np.concatenate([unit_rows(out), unit_rows(rows.astype(np.float32))], axis=1)
    return out


def pca(x: np.ndarray, dim: int) -> np.ndarray:
    """(N, H) -> (N, dim) float32: x centred and projected on its top `dim` principal axes (float64
    covariance), each axis's sign chosen so that its largest score is positive (a stable result)."""
    check_int("dim", dim, low=1, high=x.shape[1])
    centred = x.astype(np.float64) - x.mean(axis=0, dtype=np.float64)
    values, vectors = np.linalg.eigh(centred.T @ centred)  # ascending
    axes = vectors[:, ::-1][:, :dim]  # (H, dim), largest variance first
    scores = centred @ axes
    signs = np.sign(scores[np.abs(scores).argmax(axis=0), np.arange(dim)])
    return (scores * np.where(signs == 0, 1.0, signs)).astype(np.float32)


def zipf_probabilities(size: int) -> np.ndarray:
    """(size,) Model2Vec's stand-in for counts: token id r has probability ∝ 1 / (r + 2)."""
    inverse = 1.0 / np.arange(2, size + 2, dtype=np.float64)
    return inverse / inverse.sum()


def sif_weights(probabilities: np.ndarray, a: float = SIF) -> np.ndarray:
    """(V,) probabilities -> (V,) a / (a + p): Arora et al.'s smooth inverse frequency."""
    if not 0 < a < 1:
        raise InvalidValueError(f"sif must be in (0, 1); got {a}", param="sif")
    return a / (a + np.asarray(probabilities, dtype=np.float64))


def distill(
    model: str = "minilm",
    dim: int = 256,
    pooling: str = "mean",
    weighting: str = "zipf",
    sif: float = SIF,
    float16: bool = True,
    batch: int = BATCH,
    progress: Callable[[int], None] | None = None,
) -> StaticModel:
    """An encoder (a built-in name or a BERT-family folder) -> its static model of width `dim` (at
    most the encoder's): every token's output row (token_outputs, pooled as `pooling`), PCA to `dim`,
    each row times its SIF weight (`weighting` "zipf": Model2Vec's rank proxy; "none"), stored as
    float16 or float32."""
    _check_choice("weighting", weighting, WEIGHTINGS)
    _check_choice("pooling", pooling, POOLINGS)
    encoder = Encoder.load(model)
    check_int("dim", dim, low=1, high=encoder.config.dim)
    tokenizer = encoder.tokenizer
    size = tokenizer.get_vocab_size(with_added_tokens=True)
    tokens = [tokenizer.id_to_token(i) for i in range(size)]
    kept = np.array([i for i, t in enumerate(tokens) if not UNUSED.fullmatch(t)], dtype=np.int64)
    outputs = token_outputs(encoder, kept, pooling, batch, progress)
    reduced = pca(outputs, dim)
    if weighting == "zipf":
        reduced *= sif_weights(zipf_probabilities(size), sif)[kept, None].astype(np.float32)
    rows = np.zeros((size, dim), dtype=np.float32)
    rows[kept] = reduced
    tokenizer = Tokenizer.from_str(tokenizer.to_str())  # a copy without the post-processor: a text's pieces
    tokenizer.post_processor = None  # are its own, never [CLS] and [SEP], in sentence-transformers too
    config = {"teacher": str(model), "pooling": pooling, "apply_pca": dim, "weighting": weighting,
              "sif_coefficient": sif if weighting != "none" else None, "removed_tokens": size - len(kept)}  # fmt: skip
    return StaticModel(tokenizer, rows.astype(np.float16) if float16 else rows, normalize=True, config=config)


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InvalidValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}", param=name)


def _specials(encoder: Encoder) -> tuple[int, int]:
    """The ids the tokenizer puts around one text ([CLS] and [SEP] for BERT)."""
    ids = encoder.tokenizer.encode("a").ids  # [CLS] a [SEP]
    inner = encoder.tokenizer.encode("a", add_special_tokens=False).ids
    if len(ids) != len(inner) + 2 or ids[1:-1] != inner:
        raise InvalidValueError("the teacher's tokenizer does not put one token on each side of a text")
    return ids[0], ids[-1]
