"""Distillation: an encoder's vocabulary, each token passed through it alone, becomes a static table
(Model2Vec's method). Lessons 003 and 004 contrast a static table (one row a token, blind to context)
with the encoder's contextual rows; this crosses back, trading context for a lookup.

    model = distill("minilm", dim=256)           # -> vectors.static.StaticModel
    distill("minilm", pooling="mean", weighting="zipf")   # Model2Vec's recipe, row for row
    model.encode(["a sentence"])                  (1, 256)

The steps, each a function:

    token_outputs(encoder, ids, pooling)   (N,) token ids -> (N, H) or (N, 2H): the encoder's last layer
                                    on "[CLS] t [SEP]", pooled (POOLINGS below)
    word_outputs(encoder, words, pooling)  the same for whole words added to the vocabulary, each word's
                                    pieces through the encoder at once (train.distill_vocabulary)
    pca(x, dim)                     (N, H) -> (N, dim): centred, projected on the top principal axes
    sif_weights(p, a)               (V,) token probabilities -> a / (a + p): frequent pieces count less
    zipf_probabilities(V)           Model2Vec's stand-in for counts: p ∝ 1 / (rank + 2), the rank a token's
                                    id in the static model's vocabulary
    count_probabilities(tokenizer, lines)   real counts instead: each piece's share of a corpus's pieces

The static model's vocabulary (train.distill_vocabulary.Vocabulary) is the teacher's less the tokens no
text produces ([unusedN] in BERT's), as Model2Vec's is, then any added words: its tokenizer.json is the
teacher's with the ids renumbered and without the post-processor (no reader adds [CLS] and [SEP]).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import torch
from tokenizers import Tokenizer

from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError, check_int
from embedlab.files import cache_dir
from embedlab.models.encoder import Encoder
from embedlab.train.distill_vocabulary import Vocabulary
from embedlab.train.resumable import kept_rows, model_key
from embedlab.vectors.similarity import unit_rows
from embedlab.vectors.static import StaticModel

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


def word_outputs(
    encoder: Encoder,
    words: Sequence[str],
    pooling: str,
    batch: int = 256,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """(W,) words -> (W, H) float32 ((W, 2H) for "token+input"): the last layer on "[CLS] pieces [SEP]",
    pooled as token_outputs pools one token's (a word of one piece gets its token's row): "mean" over
    every position (Model2Vec's), "token" over the word's pieces, "token+input" that and the mean of the
    pieces' input rows, each at unit length, side by side. Words of like length share a batch."""
    check_int("batch", batch, low=1)
    _check_choice("pooling", pooling, POOLINGS)
    encodings = encoder.tokenizer.encode_batch(list(words))  # with [CLS] and [SEP]
    order = sorted(range(len(words)), key=lambda i: len(encodings[i].ids))
    table = encoder.embedding.token.weight.detach()
    out = np.empty((len(words), encoder.config.dim * (2 if pooling == "token+input" else 1)), dtype=np.float32)
    with torch.no_grad():
        for start in range(0, len(order), batch):
            chosen = order[start : start + batch]
            width = max(len(encodings[i].ids) for i in chosen)
            ids = torch.zeros(len(chosen), width, dtype=torch.long)  # [PAD] is 0 in BERT vocabularies
            mask = torch.zeros(len(chosen), width, dtype=torch.bool)
            for row, i in enumerate(chosen):
                ids[row, : len(encodings[i].ids)] = torch.tensor(encodings[i].ids)
                mask[row, : len(encodings[i].ids)] = True
            pieces = mask.clone()
            pieces[:, 0] = False  # [CLS]
            pieces[torch.arange(len(chosen)), mask.sum(1) - 1] = False  # [SEP]
            last = encoder(ids, mask).hidden_states[-1]  # (B, T, H)
            over = (mask if pooling == "mean" else pieces).unsqueeze(-1).float()
            pooled = ((last * over).sum(1) / over.sum(1)).numpy()
            if pooling == "token+input":
                rows = ((table[ids] * pieces.unsqueeze(-1).float()).sum(1) / pieces.sum(1, keepdim=True)).numpy()
                pooled = np.concatenate([unit_rows(pooled), unit_rows(rows)], axis=1)
            out[chosen] = pooled
            if progress:
                progress(len(chosen))
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
    words: Sequence[str] = (),
    batch: int = BATCH,
    progress: Callable[[int], None] | None = None,
    keep: bool = True,
) -> StaticModel:
    """An encoder (a built-in name or a BERT-family folder) -> its static model of width `dim` (at
    most the encoder's): every token's output row (token_outputs, pooled as `pooling`) and each added
    word's (`words`: whole words for the vocabulary, train.distill_vocabulary), PCA to `dim`, each row
    times its SIF weight (`weighting` "zipf": Model2Vec's rank proxy; "counts": the pieces' shares of
    `corpus`, a built-in name or a text file; "none"), stored as float16 or float32. The outputs are
    kept in the cache chunk by chunk (train.resumable) unless `keep` is False: a distillation cut short
    resumes, and another of the same teacher and pooling (a new width, weighting) skips the encoder."""
    _check_choice("weighting", weighting, WEIGHTINGS)
    _check_choice("pooling", pooling, POOLINGS)
    check_sif(sif)
    lines = open_corpus(corpus) if weighting == "counts" else None  # a bad corpus is refused before the work
    encoder = Encoder.load(model)
    check_int("dim", dim, low=1, high=encoder.config.dim)
    vocabulary = Vocabulary.of(encoder.tokenizer, words)
    reduced = pca(vocabulary_outputs(encoder, vocabulary, pooling, batch, progress, keep), dim)
    reduced *= token_weights(vocabulary.tokenizer, weighting, sif, lines)[:, None].astype(np.float32)
    config = {"teacher": str(model), "pooling": pooling, "apply_pca": dim, "weighting": weighting,
              "sif_coefficient": sif if weighting != "none" else None, "removed_tokens": vocabulary.removed,
              "added_words": len(vocabulary.words)}  # fmt: skip
    if weighting == "counts":
        config["counts_corpus"] = str(corpus)
    rows = reduced.astype(np.float16) if float16 else reduced
    return StaticModel(vocabulary.tokenizer, rows, normalize=True, config=config)


def vocabulary_outputs(
    encoder: Encoder,
    vocabulary: Vocabulary,
    pooling: str = POOLING,
    batch: int = BATCH,
    progress: Callable[[int], None] | None = None,
    keep: bool = True,
) -> np.ndarray:
    """(V, H) or (V, 2H) float32: the outputs of the vocabulary's kept tokens (token_outputs) then of its
    words (word_outputs), each kept in the cache chunk by chunk when `keep` (train.resumable)."""
    _check_choice("pooling", pooling, POOLINGS)
    width = encoder.config.dim * (2 if pooling == "token+input" else 1)
    kept, words = vocabulary.kept, list(vocabulary.words)
    folder = cache_dir() / "distill" / f"outputs-{model_key(encoder)}-{pooling}-{len(kept)}" if keep else None
    tokens = kept_rows(folder, len(kept), width, lambda a, b: token_outputs(encoder, kept[a:b], pooling, batch),
                       OUTPUTS_CHUNK, progress)  # fmt: skip
    if not words:
        return tokens
    named = hashlib.md5("\n".join(words).encode()).hexdigest()[:16]  # the words, in order, name their rows
    folder = cache_dir() / "distill" / f"words-{model_key(encoder)}-{pooling}-{named}" if keep else None
    added = kept_rows(folder, len(words), width, lambda a, b: word_outputs(encoder, words[a:b], pooling),
                      OUTPUTS_CHUNK, progress)  # fmt: skip
    return np.concatenate([tokens, added])


def token_weights(
    tokenizer: Tokenizer, weighting: str, sif: float = SIF, lines: Iterable[str] | None = None
) -> np.ndarray:
    """(V,) the weight of each of the tokenizer's tokens: SIF of its Zipf probability (its id the rank),
    of its share of `lines` ("counts"), or 1 ("none")."""
    _check_choice("weighting", weighting, WEIGHTINGS)
    size = tokenizer.get_vocab_size(with_added_tokens=True)
    if weighting == "none":
        return np.ones(size)
    if weighting == "zipf":
        return sif_weights(zipf_probabilities(size), sif)
    if lines is None:
        raise InvalidValueError("weighting counts needs the lines to count")
    return sif_weights(count_probabilities(tokenizer, lines), sif)


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
