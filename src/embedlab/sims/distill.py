"""Static from contextual (a lab page): MiniLM distilled into a static table, step by step, and sentences
seen by both. The work is train/distill.py's and train/static_fit.py's, shared with `embedlab distill`.

    steps = DistillSteps.build(encoder)          the four stages, each a StaticModel (built once a lab)
    page_answer(encoder, steps, texts, "weights")   both similarity matrices and how well they agree
    steps.figures()                              each stage on WordSim-7 and the reverse dictionary

The stages follow Model2Vec's recipe, whose steps each move a figure: "outputs" (each token's output
row, the mean over [CLS] t [SEP]), "pca" (reduced to 256 dims), "weights" (times Zipf SIF weights:
`embedlab distill --pooling mean --weighting zipf` saves this) and "fitted" (the rows then fitted to
the teacher's vectors of FIT_TEXTS enwiki-sample sentences, as `--train` does with more).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from embedlab.errors import InvalidValueError
from embedlab.files import Matrix
from embedlab.models.encoder import Encoder
from embedlab.train.distill import pca, token_weights, vocabulary_outputs
from embedlab.train.distill_vocabulary import Vocabulary
from embedlab.train.static_fit import fit_table, teacher_targets, training_texts
from embedlab.vectors.instruments import reverse_dictionary, wordsim7
from embedlab.vectors.similarity import unit_rows
from embedlab.vectors.static import StaticModel
from embedlab.vectors.stats import pearson, spearman

STEPS = {"outputs": "token outputs", "pca": "PCA to 256", "weights": "SIF weights", "fitted": "fitted"}
DIM = 256
FIT_TEXTS = 2000  # sentences the teacher reads for the page's fitted stage: ~25 s once a machine
MIN_TEXTS, MAX_TEXTS = 2, 8
MAX_TEXT = 300  # characters of one sentence
RESAMPLES = 200  # the steps' bootstrap intervals: enough for a chart's error bars
LIMITS: dict[str, Any] = {"texts": [MIN_TEXTS, MAX_TEXTS], "text": MAX_TEXT, "steps": list(STEPS),
                          "titles": list(STEPS.values())}  # fmt: skip


@dataclass(frozen=True)
class StepFigure:
    """One stage on two instruments, each with its 95% bootstrap interval."""

    step: str  # "outputs", "pca", "weights" or "fitted"
    title: str  # the stage as the page names it
    dim: int  # the rows' width
    wordsim7: float  # WordSim-7: mean Spearman × 100 over seven word-pair sets
    wordsim7_interval: tuple[float, float]
    recall10: float  # gcide reverse dictionary: recall@10 × 100 of 5,000 headwords
    recall10_interval: tuple[float, float]


@dataclass(frozen=True)
class StepFigures:
    """Every stage, in order, and the bootstrap's resamples."""

    steps: list[StepFigure]
    resamples: int


@dataclass
class DistillSteps:
    """Each stage of the distillation as a static model, and its figures once measured."""

    models: dict[str, StaticModel]
    measured: list[StepFigure] = field(default_factory=list)

    @classmethod
    def build(cls, encoder: Encoder) -> DistillSteps:
        vocabulary = Vocabulary.of(encoder.tokenizer)
        outputs = vocabulary_outputs(encoder, vocabulary, "mean")  # kept in the cache: the encoder runs once a machine
        config = {"teacher": "minilm", "pooling": "mean", "weighting": "zipf"}
        reduced = pca(outputs, DIM)
        weighted = reduced * token_weights(vocabulary.tokenizer, "zipf")[:, None].astype(np.float32)
        stages = [StaticModel(vocabulary.tokenizer, rows, True, config) for rows in (outputs, reduced, weighted)]
        texts = training_texts("enwiki-sample", FIT_TEXTS)
        fitted, _ = fit_table(stages[-1], texts, teacher_targets(encoder, texts))
        return cls(dict(zip(STEPS, [*stages, fitted], strict=True)))

    def figures(self) -> StepFigures:
        """Each stage on WordSim-7 and the reverse dictionary, measured on the first call."""
        if not self.measured:
            for step, model in self.models.items():
                words = wordsim7(model.encode, resamples=RESAMPLES)
                reverse = reverse_dictionary(model.encode, resamples=RESAMPLES)
                self.measured.append(StepFigure(step, STEPS[step], model.dim, words.score, words.interval,
                    reverse.figures["recall@10"], reverse.intervals["recall@10"]))  # fmt: skip
        return StepFigures(list(self.measured), RESAMPLES)


@dataclass(frozen=True, eq=False)
class DistillAnswer:
    """The sentences' cosine matrices under the teacher and under one stage, and their agreement."""

    texts: list[str]
    step: str  # the stage shown: "outputs", "pca", "weights" or "fitted"
    teacher: Matrix  # (n, n) cosines of MiniLM's mean-pooled sentence vectors
    static: Matrix  # (n, n) cosines of the stage's sentence vectors (the mean of the pieces' rows)
    pieces: list[list[str]]  # each sentence's pieces as the static model reads them
    spearman: float | None  # of the n(n-1)/2 pairs' cosines, teacher against stage (None below 3 pairs)
    pearson: float | None


def page_answer(encoder: Encoder, steps: DistillSteps, texts: list[str], step: str = "weights") -> DistillAnswer:
    """`texts` (MIN_TEXTS..MAX_TEXTS of at most MAX_TEXT characters) under the teacher and stage `step`."""
    texts = [t.strip() for t in texts if t.strip()]
    if not MIN_TEXTS <= len(texts) <= MAX_TEXTS:
        raise InvalidValueError(f"give {MIN_TEXTS} to {MAX_TEXTS} sentences; got {len(texts)}")
    for i, text in enumerate(texts):
        if len(text) > MAX_TEXT:
            raise InvalidValueError(f"sentence {i + 1} is {len(text)} characters long; the limit is {MAX_TEXT}")
    if step not in STEPS:
        raise InvalidValueError(f"step must be one of {', '.join(STEPS)}; got {step!r}")
    model = steps.models[step]
    teacher = _cosines(encoder.sentence_vectors(texts))
    static = _cosines(model.encode(texts))
    upper = np.triu_indices(len(texts), 1)
    agree = len(upper[0]) >= 3  # a rank correlation of one or two pairs says nothing
    vocab = model.tokenizer
    pieces = [[vocab.id_to_token(i) for i in ids] for ids in model.tokenize(texts)]
    rho, r = (_finite(f(teacher[upper], static[upper])) if agree else None for f in (spearman, pearson))
    return DistillAnswer(texts, step, teacher, static, pieces, rho, r)


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None  # a constant column (every cosine equal) has no correlation


def _cosines(vectors: np.ndarray) -> np.ndarray:
    unit = unit_rows(np.asarray(vectors, dtype=np.float64))
    return unit @ unit.T
