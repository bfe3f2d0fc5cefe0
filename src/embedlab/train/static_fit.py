"""Fitting a distilled table to its teacher's sentence vectors (the step Model2Vec's tokenlearn adds).

Plain distillation passes each token through the encoder alone, so a row never sees the company its
piece keeps in real text. This step shows the teacher real sentences and moves the rows until their
mean points where the teacher's mean-pooled vector points:

    texts = training_texts("enwiki-sample", 20_000)     sentences of a corpus, spread over it
    targets = teacher_targets(encoder, texts)           (N, H): the teacher's sentence vectors, kept on
                                                        disk chunk by chunk (a killed run resumes)
    fitted, report = fit_table(static, texts, targets)  the rows trained; the held-out cosine before and after

The fit, in its order:
1. the targets are centred and reduced by PCA to the table's width D (their own top axes), then
   unit length: the student is asked for a direction, as cosine compares only directions;
2. a D × D map M is solved by least squares from the distilled table's sentence vectors to those
   targets, and every row is multiplied by it: the table starts in the targets' coordinates, already
   as close as a linear map makes it (rows of pieces the texts never show are carried over this way);
3. the rows are trained by Adam on 1 − cos(mean of the sentence's rows, target), a tenth of the texts
   held out; the epoch with the best held-out cosine is kept (early stopping).

A sentence vector remains the plain mean of its pieces' rows: a weight per piece (tokenlearn learns
one) is the row's length, so the rows carry it and the folder format is unchanged.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError, check_float, check_int
from embedlab.files import cache_dir
from embedlab.models.encoder import Encoder
from embedlab.train.resumable import kept_rows, model_key
from embedlab.vectors.similarity import unit_rows
from embedlab.vectors.static import StaticModel

CHUNK = 512  # texts a kept chunk of targets
MIN_WORDS, MAX_WORDS = 5, 64  # a sentence, not a heading; short enough for the teacher to read whole
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
HELD_OUT = 10  # every 10th text is held out for early stopping
TEXTS = 20_000  # sentences the teacher reads: about 4 minutes of a 2-core CPU (docs/distill.md)
EPOCHS, LR = 20, 3e-3
PATIENCE = 3  # epochs without a better held-out cosine before the fit stops (measured: best at 2 to 6)


@dataclass(frozen=True)
class FitReport:
    """Mean cosine between the student's and the (reduced) teacher's vectors on the held-out texts:
    `start` after the linear map alone, `best` at the kept epoch (`epoch`, from 1; 0: none helped);
    `ran` of at most `epochs` (the fit stops after PATIENCE epochs without a better one)."""

    texts: int
    held_out: int
    start: float
    best: float
    epoch: int
    ran: int
    epochs: int


def training_texts(corpus: str, count: int) -> list[str]:
    """`count` sentences of `corpus` (a built-in name or a text file) to fit on: its lines split at
    sentence ends, those of MIN_WORDS to MAX_WORDS words, each once, `count` of them (or all there are)
    evenly spaced from its first line to its last. "gcide" is the dictionary less the paragraphs the
    instruments are made of (data.gcide.unscored_paragraphs): no measured item is trained on."""
    from embedlab.data.corpora import open_corpus
    from embedlab.data.gcide import unscored_paragraphs

    count = check_int("count", count, low=1)
    lines = unscored_paragraphs() if corpus == "gcide" else open_corpus(corpus)
    sentences = dict.fromkeys(
        s for line in lines for s in _SENTENCE_END.split(line) if MIN_WORDS <= len(s.split()) <= MAX_WORDS
    )
    if not sentences:
        raise InvalidValueError(f"corpus {corpus} has no sentence of {MIN_WORDS} to {MAX_WORDS} words to fit on")
    eligible = list(sentences)
    step = len(eligible) / min(count, len(eligible))
    return [eligible[int(i * step)] for i in range(min(count, len(eligible)))]


def teacher_targets(
    encoder: Encoder,
    texts: Sequence[str],
    folder: Path | None = None,
    batch: int = 32,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """(N,) texts -> (N, H) float32: the encoder's mean-pooled sentence vectors, kept CHUNK texts at a time
    in `folder` (train.resumable; by default a folder of the cache named by the teacher and the texts),
    so a run cut short resumes and a second run reads them back."""
    if folder is None:
        digest = hashlib.md5("".join(f"{t}\n" for t in texts).encode("utf-8")).hexdigest()[:16]
        folder = cache_dir() / "distill" / f"targets-{model_key(encoder)}-{len(texts)}-{digest}"
    return kept_rows(
        Path(folder),
        len(texts),
        encoder.config.dim,
        lambda start, stop: encoder.sentence_vectors(list(texts[start:stop]), batch_size=batch),
        CHUNK,
        progress,
    )


def fit_table(
    static: StaticModel,
    texts: Sequence[str],
    targets: np.ndarray,
    *,
    epochs: int = EPOCHS,
    lr: float = LR,
    batch: int = 256,
    patience: int = PATIENCE,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> tuple[StaticModel, FitReport]:
    """A copy of `static` whose rows are fitted to `targets` (N, H) of `texts` (N,) as the module says;
    `progress(n)` is told each batch's texts. -> (the fitted model, its FitReport)."""
    check_int("epochs", epochs, low=1)
    check_int("patience", patience, low=1)
    check_float("lr", lr, low=0.0)
    check_int("batch", batch, low=1)
    targets = np.asarray(targets, dtype=np.float64)
    if targets.ndim != 2 or len(targets) != len(texts):
        raise InvalidValueError(f"need one target row a text: {len(texts)} texts, targets of shape {targets.shape}")
    pieces = static.tokenize(list(texts))
    used = [i for i, p in enumerate(pieces) if p]  # a text with no known piece has no vector to fit
    held = np.array([i % HELD_OUT == HELD_OUT - 1 for i in range(len(used))])
    if len(used) < 2 * HELD_OUT or targets.shape[1] < static.dim:
        raise InvalidValueError(
            f"fitting a {static.dim}-wide table needs {2 * HELD_OUT} or more texts with known pieces "
            f"(got {len(used)}) and targets at least as wide (got {targets.shape[1]})"
        )
    goal = _reduced(targets[used], static.dim)  # (n, D) unit rows
    pieces = [pieces[i] for i in used]
    rows = static.rows.astype(np.float32)
    start_vectors = _mean_rows(torch.from_numpy(rows), pieces).numpy()
    mapping, *_ = np.linalg.lstsq(unit_rows(start_vectors)[~held], goal[~held], rcond=None)  # (D, D)
    table = torch.nn.Parameter(torch.from_numpy((rows @ mapping).astype(np.float32)))
    goal_t = torch.from_numpy(goal.astype(np.float32))
    train, valid = np.flatnonzero(~held), np.flatnonzero(held)

    def held_cosine() -> float:
        with torch.no_grad():
            vectors = _mean_rows(table, [pieces[i] for i in valid])
            return float(F.cosine_similarity(vectors, goal_t[valid]).mean())

    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam([table], lr=lr)
    start = best = held_cosine()
    best_rows, best_epoch = table.detach().clone(), 0
    epoch = 0
    while epoch < epochs and epoch - best_epoch < patience:
        epoch += 1
        for chunk in torch.randperm(len(train), generator=generator).split(batch):
            ids = train[chunk.numpy()]
            vectors = _mean_rows(table, [pieces[i] for i in ids])
            loss = 1.0 - F.cosine_similarity(vectors, goal_t[ids]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if progress:
                progress(len(ids))
        score = held_cosine()
        if score > best:
            best, best_rows, best_epoch = score, table.detach().clone(), epoch
    fitted = best_rows.numpy()
    out = fitted.astype(static.rows.dtype) if static.rows.dtype == np.float16 else fitted
    config = {**static.config, "fitted_on": len(texts), "fit_epochs": best_epoch}
    report = FitReport(len(used), int(held.sum()), start, best, best_epoch, epoch, epochs)
    return StaticModel(static.tokenizer, out, normalize=static.normalize, config=config), report


def _reduced(targets: np.ndarray, dim: int) -> np.ndarray:
    """(n, H) -> (n, dim) unit rows: centred, on their own top `dim` principal axes."""
    centred = targets - targets.mean(axis=0)
    _, vectors = np.linalg.eigh(centred.T @ centred)
    return unit_rows(centred @ vectors[:, ::-1][:, :dim])


def _mean_rows(table: torch.Tensor, pieces: list[list[int]]) -> torch.Tensor:
    """(V, D) table, B lists of piece ids (each non-empty) -> (B, D) each list's mean row."""
    flat = torch.tensor([i for p in pieces for i in p], dtype=torch.long)
    offsets = torch.tensor([0, *np.cumsum([len(p) for p in pieces[:-1]])], dtype=torch.long)
    return F.embedding_bag(flat, table, offsets, mode="mean")
