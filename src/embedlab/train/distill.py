"""Distillation: an encoder's vocabulary, each token passed through it alone, becomes a static table
(Model2Vec's method). Lessons 003 and 004 contrast a static table (one row a token, blind to context)
with the encoder's contextual rows; this crosses back, trading context for a lookup.

    model = distill("minilm", dim=256)           # -> vectors.static.StaticModel
    distill("minilm", pooling="mean", weighting="zipf")   # Model2Vec's recipe, row for row
    model.encode(["a sentence"])                  (1, 256)

The steps, each a function:

    token_outputs(encoder, ids, pooling)   (N,) token ids -> (N, H) or (N, 2H): the encoder's last layer
                                    on "[CLS] t [SEP]", pooled (POOLINGS below)
    pca(x, dim)                     (N, H) -> (N, dim): centred, projected on the top principal axes
    sif_weights(p, a)               (V,) token probabilities -> a / (a + p): frequent pieces count less
    zipf_probabilities(V)           Model2Vec's stand-in for counts: p ∝ 1 / (rank + 2), the rank a token's
                                    place in the vocabulary once the [unusedN] rows are out
    count_probabilities(tokenizer, lines)   real counts instead: each piece's share of a corpus's pieces

Tokens that never come out of the tokenizer ([unusedN] rows of BERT vocabularies) keep a zero row:
the table stays aligned with the teacher's tokenizer, whose tokenizer.json serves unchanged but for
its post-processor, dropped (as Model2Vec drops it) so that no reader adds [CLS] and [SEP] to a text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import numpy as np
import torch
from tokenizers import Tokenizer

from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError, check_int
from embedlab.files import cache_dir
from embedlab.models.encoder import Encoder
from embedlab.train.resumable import kept_rows, model_key
from embedlab.vectors.similarity import unit_rows
from embedlab.vectors.static import StaticModel

UNUSED = re.compile(r"\[unused\d+\]")  # BERT's placeholder rows: never produced from text
# "zipf": Model2Vec's rank proxy; "counts": measured on COUNTS_CORPUS (enwiki-sample: not gcide, whose
# definitions two of the instruments are made of, so no instrument's own text informs the weights)
WEIGHTINGS = ("zipf", "counts", "none")
COUNTS_CORPUS = "enwiki-sample"
# how a token's three output rows become one: "mean" of the three (Model2Vec's), the "token"'s
# own position, or "token+input": that row and the token's input row, each at unit length, side by side
# (2H wide before PCA). WordSim-7 on MiniLM at 256 dims: 46.4, 49.5 and 51.8; the defaults, token+input
# with counts, lead Model2Vec's recipe (mean, zipf) on the reverse dictionary too (docs/distill.md).
POOLINGS = ("mean", "token", "token+input")
POOLING, WEIGHTING = "token+input", "counts"
SIF = 1e-4  # Model2Vec's default coefficient a: a piece of probability a is weighted 1/2
BATCH = 1024  # token sequences a forward pass (three positions each: small)
OUTPUTS_CHUNK = 4096  # token outputs a kept chunk (train.resumable): about 6 MB, 8 chunks for BERT


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
    """(size,) Model2Vec's stand-in for counts: the r-th token (from 0) has probability ∝ 1 / (r + 2).
    A WordPiece vocabulary lists its pieces roughly by frequency, so this down-weights punctuation and
    single letters (BERT's ids 999-1995) and "the" most; its [unusedN] rows must be out of the ranking
    first, or they take the highest weights' places."""
    inverse = 1.0 / np.arange(2, size + 2, dtype=np.float64)
    return inverse / inverse.sum()


def count_probabilities(tokenizer: Tokenizer, lines: Iterable[str], chunk: int = 10_000) -> np.ndarray:
    """(V,) each piece's share of the pieces `tokenizer` makes of `lines` (no special tokens), add-one
    smoothed: (count + 1) / (total + V), so a piece the corpus never shows weighs as a rare one."""
    size = tokenizer.get_vocab_size(with_added_tokens=True)
    counts = np.zeros(size, dtype=np.int64)
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) == chunk:
            counts += _piece_counts(tokenizer, batch, size)
            batch = []
    counts += _piece_counts(tokenizer, batch, size)
    return (counts + 1) / (counts.sum() + size)


def _piece_counts(tokenizer: Tokenizer, lines: list[str], size: int) -> np.ndarray:
    ids = [i for e in tokenizer.encode_batch(lines, add_special_tokens=False) for i in e.ids]
    return np.bincount(np.array(ids, dtype=np.int64), minlength=size)


def sif_weights(probabilities: np.ndarray, a: float = SIF) -> np.ndarray:
    """(V,) probabilities -> (V,) a / (a + p): Arora et al.'s smooth inverse frequency."""
    return check_sif(a) / (check_sif(a) + np.asarray(probabilities, dtype=np.float64))


def check_sif(a: float) -> float:
    """The SIF coefficient, checked: strictly between 0 and 1."""
    if not 0 < a < 1:
        raise InvalidValueError(f"sif must be in (0, 1); got {a}", param="sif")
    return a


def distill(
    model: str = "minilm",
    dim: int = 256,
    pooling: str = POOLING,
    weighting: str = WEIGHTING,
    sif: float = SIF,
    corpus: str = COUNTS_CORPUS,
    float16: bool = True,
    batch: int = BATCH,
    progress: Callable[[int], None] | None = None,
    keep: bool = True,
) -> StaticModel:
    """An encoder (a built-in name or a BERT-family folder) -> its static model of width `dim` (at
    most the encoder's): every token's output row (token_outputs, pooled as `pooling`), PCA to `dim`,
    each row times its SIF weight (`weighting` "zipf": Model2Vec's rank proxy; "counts": the pieces'
    shares of `corpus`, a built-in name or a text file; "none"), stored as float16 or float32. The token
    outputs are kept in the cache chunk by chunk (train.resumable) unless `keep` is False: a distillation
    cut short resumes, and another of the same teacher and pooling (a new width, weighting) skips the
    encoder."""
    _check_choice("weighting", weighting, WEIGHTINGS)
    _check_choice("pooling", pooling, POOLINGS)
    check_sif(sif)
    lines = open_corpus(corpus) if weighting == "counts" else None  # a bad corpus is refused before the work
    encoder = Encoder.load(model)
    check_int("dim", dim, low=1, high=encoder.config.dim)
    kept, outputs = vocabulary_outputs(encoder, pooling, batch, progress, keep)
    reduced = pca(outputs, dim)
    reduced *= token_weights(encoder.tokenizer, kept, weighting, sif, lines)[:, None].astype(np.float32)
    config = {"teacher": str(model), "pooling": pooling, "apply_pca": dim, "weighting": weighting,
              "sif_coefficient": sif if weighting != "none" else None}  # fmt: skip
    if weighting == "counts":
        config["counts_corpus"] = str(corpus)
    static = static_model(encoder, kept, reduced, config)
    return StaticModel(static.tokenizer, static.rows.astype(np.float16), True, static.config) if float16 else static


def vocabulary_outputs(
    encoder: Encoder,
    pooling: str = POOLING,
    batch: int = BATCH,
    progress: Callable[[int], None] | None = None,
    keep: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """(kept token ids (K,), their outputs (K, H) or (K, 2H)): every token of the encoder's vocabulary but
    [unusedN] through token_outputs, kept in the cache chunk by chunk when `keep` (train.resumable)."""
    _check_choice("pooling", pooling, POOLINGS)
    tokens = [encoder.tokenizer.id_to_token(i) for i in range(encoder.tokenizer.get_vocab_size(with_added_tokens=True))]
    kept = np.array([i for i, t in enumerate(tokens) if not UNUSED.fullmatch(t)], dtype=np.int64)
    folder = cache_dir() / "distill" / f"outputs-{model_key(encoder)}-{pooling}-{len(kept)}" if keep else None
    width = encoder.config.dim * (2 if pooling == "token+input" else 1)
    make = lambda start, stop: token_outputs(encoder, kept[start:stop], pooling, batch)  # noqa: E731
    return kept, kept_rows(folder, len(kept), width, make, OUTPUTS_CHUNK, progress)


def static_model(encoder: Encoder, kept: np.ndarray, rows: np.ndarray, config: dict) -> StaticModel:
    """A float32 StaticModel over the encoder's whole vocabulary: `rows` (K, D) at the `kept` ids, zero
    rows elsewhere, and a copy of its tokenizer without the post-processor (a text's pieces are its
    own, never [CLS] and [SEP], in sentence-transformers too)."""
    size = encoder.tokenizer.get_vocab_size(with_added_tokens=True)
    table = np.zeros((size, rows.shape[1]), dtype=np.float32)
    table[kept] = rows
    tokenizer = Tokenizer.from_str(encoder.tokenizer.to_str())
    tokenizer.post_processor = None
    return StaticModel(tokenizer, table, normalize=True, config={**config, "removed_tokens": size - len(kept)})


def token_weights(
    tokenizer: Tokenizer, kept: np.ndarray, weighting: str, sif: float = SIF, lines: Iterable[str] | None = None
) -> np.ndarray:
    """(K,) the weight of each kept token id (`kept`, ascending): SIF of its Zipf probability (its place
    among the kept), of its share of `lines` ("counts"), or 1 ("none")."""
    _check_choice("weighting", weighting, WEIGHTINGS)
    if weighting == "none":
        return np.ones(len(kept))
    if weighting == "zipf":
        return sif_weights(zipf_probabilities(len(kept)), sif)
    if lines is None:
        raise InvalidValueError("weighting counts needs the lines to count")
    probabilities = count_probabilities(tokenizer, lines)[kept]
    return sif_weights(probabilities / probabilities.sum(), sif)


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
