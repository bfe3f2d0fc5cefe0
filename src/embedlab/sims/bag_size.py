"""The Bag of embeddings page's quantization: the classifier's P@1 and bytes as a .bin, and after
fastText's `quantize` as a .ftz.

    measure(run, classifier, train, test, QuantizeSettings(cutoff=10_000, dsub=2), root, threads=2)
        -> QuantizeAnswer: before (.bin) and after (.ftz), each its P@1 on the held-out lines and its bytes

As `fasttext quantize -cutoff C -dsub S [-qnorm] [-retrain]`: with 0 < cutoff < the input rows, keep
"</s>" and the cutoff - 1 other rows of largest norm (words and n-gram buckets alike); with retrain, train
the kept rows again on the training lines (the quantize command's rate and epochs); then product-quantize
the input rows in sub-vectors of dsub columns, 256 centroids each (one byte a sub-vector), norms apart
with qnorm. The bytes are those of the files as written (vectors.io.fasttext.write_fasttext).
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from embedlab.errors import InvalidValueError, check_int
from embedlab.models.bag import Classifier
from embedlab.models.labelled import LabelledText
from embedlab.train.supervised import retrain
from embedlab.vectors.fasttext_quantize import prune, quantize_model
from embedlab.vectors.io.fasttext import write_fasttext
from embedlab.vectors.io.fasttext_model import FastTextModel
from embedlab.vectors.quantize import KSUB, QuantizedMatrix

DSUBS = (1, 2, 4, 8)  # columns per sub-vector: fastText's default is 2
MIN_CUTOFF = KSUB  # each sub-space's 256 centroids need as many rows; 0 keeps every row
MAX_CUTOFF = 250_000  # above the largest model's rows (18,000 lines, 200,000 buckets): keeps every row
# k-means costs D x min(rows, 65,536) x 256 x 25 iterations whatever dsub is. Measured on 2 busy cores:
# 1.8 s for 10,000 rows at D 32, 6.7 s for every row of the default model (111,216 rows, D 32), 23 s for
# every row of the largest (229,061 rows, D 100)


@dataclass(frozen=True)
class QuantizeSettings:
    """fastText's quantize flags the page offers, the page's defaults."""

    cutoff: int = 10_000  # input rows kept (0: all; else MIN_CUTOFF..MAX_CUTOFF)
    dsub: int = 2  # columns per sub-vector, one of DSUBS, dividing the rows' width
    qnorm: bool = False  # quantize each row's norm apart (one byte more a row)
    retrain: bool = False  # train the kept rows again before quantizing (with a cutoff)

    def check(self) -> None:
        """InvalidValueError naming a flag out of its range."""
        check_int("cutoff", self.cutoff, low=0, high=MAX_CUTOFF)
        if 0 < self.cutoff < MIN_CUTOFF:
            raise InvalidValueError(
                f"cutoff must be 0 (keep every row) or {MIN_CUTOFF}..{MAX_CUTOFF} (each sub-space's {KSUB} "
                f"centroids need as many rows); got {self.cutoff}"
            )
        if self.dsub not in DSUBS:
            raise InvalidValueError(f"dsub must be one of {', '.join(map(str, DSUBS))}; got {self.dsub}")

    def check_model(self, dim: int) -> None:
        """InvalidValueError unless dsub divides the rows' width `dim`."""
        if dim % self.dsub:
            fit = ", ".join(str(d) for d in DSUBS if dim % d == 0)
            raise InvalidValueError(f"dsub {self.dsub} does not divide the rows' width {dim}: choose {fit}")


@dataclass(frozen=True)
class ModelSize:
    """One form of the classifier: its P@1 on the held-out lines and its bytes."""

    format: str  # ".bin" or ".ftz"
    p1: float  # P@1 on the held-out lines
    bytes: int  # the file as written
    rows: int  # input rows: words and n-gram buckets
    words: int  # word rows among them
    input_bytes: int  # the input matrix: float32 rows, or codes, centroids (and norm codes)
    output_bytes: int  # the output matrix (one row a label, float32)


@dataclass(frozen=True)
class QuantizeAnswer:
    """The classifier before and after quantization."""

    run: int  # the run whose classifier was quantized
    settings: QuantizeSettings
    before: ModelSize  # the .bin
    after: ModelSize  # the .ftz
    pruned: bool  # the cutoff dropped rows (it is below the input rows)
    retrained: bool  # the kept rows were trained again (retrain with a cutoff that dropped rows)
    seconds: float  # time to prune, retrain and quantize


def p_at_1(classifier: Classifier, text: LabelledText) -> tuple[np.ndarray, np.ndarray]:
    """The lines `fasttext test` counts (a label the model knows, one row or more), one label each ->
    (gold, predicted) (L',) int32 label ids. P@1 is (gold == predicted).mean()."""
    bags = classifier.dictionary.encode(text)
    counted = (np.diff(bags.label_offsets) > 0) & (np.diff(bags.offsets) > 0)
    gold = bags.labels[bags.label_offsets[:-1][counted]]  # each gcide line has one label: its first
    return gold, classifier.predict(text, k=1).labels[counted, 0]


def precision_at_1(classifier: Classifier, text: LabelledText) -> float:
    gold, predicted = p_at_1(classifier, text)
    return float(np.mean(gold == predicted)) if len(gold) else float("nan")


def model_size(model: FastTextModel, test: LabelledText, root: Path) -> ModelSize:
    """`model`'s P@1 on `test` and its bytes as a .bin (a .ftz when quantized), written in a temporary
    folder under `root` and removed."""
    root.mkdir(parents=True, exist_ok=True)
    format = ".ftz" if model.quantized else ".bin"
    with tempfile.TemporaryDirectory(dir=root) as folder:
        nbytes = write_fasttext(model, Path(folder) / f"model{format}").stat().st_size
    return ModelSize(format, precision_at_1(Classifier(model), test), nbytes, len(model.input), model.nwords,
                     _bytes(model.input), _bytes(model.output))  # fmt: skip


def measure(run: int, classifier: Classifier, train: LabelledText, test: LabelledText, settings: QuantizeSettings,
            before: ModelSize, root: Path, threads: int = 2) -> QuantizeAnswer:  # fmt: skip
    """`classifier` (unquantized, `before` its model_size) after `settings`' quantization."""
    model = classifier.model
    t0 = time.perf_counter()
    pruned = 0 < settings.cutoff < len(model.input)
    if pruned and settings.retrain:
        kept = retrain(prune(model, settings.cutoff), train, threads=threads)
        quantized = quantize_model(kept, settings.dsub, settings.qnorm)
    else:
        quantized = quantize_model(model, settings.dsub, settings.qnorm, cutoff=settings.cutoff)
    seconds = time.perf_counter() - t0
    after = model_size(quantized, test, root)
    return QuantizeAnswer(run, settings, before, after, pruned, pruned and settings.retrain, seconds)


def _bytes(matrix: np.ndarray | QuantizedMatrix) -> int:
    return int(matrix.nbytes)
