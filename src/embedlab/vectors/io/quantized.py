"""Any table as a product-quantized fastText model (.ftz): the quantizer of `fasttext quantize`
(vectors/quantize.py), for word vectors as well as for classifiers.

    write_ftz(table, "t.ftz", dsub=2, qnorm=False)   a plain Table: its rows quantized, maxn 0 (no n-grams)
    quantize_word_model(model, dsub=2, qnorm=False)  a skipgram/cbow FastTextModel -> the same, its input quantized
    check_quantizer(format, dsub, qnorm)             refuse dsub or qnorm for a format that stores every number

The fastText tool quantizes classifiers only (`fasttext quantize` on a skipgram or cbow model stops
with "For now we only support quantization of supervised models"), but it reads a quantized word-
vector model as it reads any .ftz: its loader takes the quantization flag as written whatever the
model, and `print-word-vectors` and `nn` add decoded rows (QuantMatrix::addRowToVector) as they add
plain ones. tests/vectors/test_quantized_export.py holds the tool to that for plain, subword and
qnorm files.

What such a file holds: the Args of a skipgram model (a plain table: maxn 0 and no buckets, so every
word is its own row alone; a subword table: its minn, maxn and buckets, its word and bucket rows
quantized together, as fastText quantizes its input matrix), the words and counts, the input
matrix's codes and codebooks, and an output matrix of zeros quantized to one byte a row (qout, a
single sub-space of the full width whose 256 centroids are zeros). Word vectors never read the
output; a zero one is what a .bin written from a table holds too (FastTextModel.from_arrays), here at
1 byte a row instead of 4·D, so the file's size is the quantized table's. Neither can be trained on.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from embedlab.errors import InvalidValueError, check_int
from embedlab.vectors.io.fasttext import write_fasttext
from embedlab.vectors.io.fasttext_model import MODELS, TRAINED, FastTextModel
from embedlab.vectors.io.table import Table, check_finite_to_write
from embedlab.vectors.quantize import KSUB, SEED, ProductQuantizer, QuantizedMatrix, quantize

DSUB = 2  # fastText's -dsub default: 2 columns a byte
QUANTIZED_FORMATS = ("ftz",)  # the formats that quantize: every other stores each number as written
MODELS_BY_CODE = {code: name for name, code in MODELS.items()}  # 2 -> "skipgram"


def check_quantizer(format: str, dsub: int | None, qnorm: bool) -> None:
    """Refuse `dsub` (None: not given) or `qnorm` for a `format` that does not quantize."""
    if format not in QUANTIZED_FORMATS and (dsub is not None or qnorm):
        given = " and ".join(name for name, on in (("dsub", dsub is not None), ("qnorm", qnorm)) if on)
        raise InvalidValueError(
            f"{given} set product quantization, which only the ftz format (a .ftz) stores; the {format} format "
            "keeps every number as it is"
        )


def zero_output(rows: int, dim: int) -> QuantizedMatrix:
    """(rows, dim) zeros as a QuantizedMatrix of one sub-space of the full width: a code byte a row
    and 256 zero centroids, 1 byte a row where a float32 zero row is 4 * dim."""
    return QuantizedMatrix(np.zeros((rows, 1), np.uint8), ProductQuantizer(dim, dim, np.zeros(KSUB * dim, np.float32)))


def quantize_word_model(
    model: FastTextModel, dsub: int | None = DSUB, qnorm: bool = False, seed: int = SEED
) -> FastTextModel:
    """A word-vector (skipgram or cbow) `model`, unquantized -> the same model with its input matrix
    product-quantized in sub-vectors of `dsub` columns (None: DSUB; with qnorm, each row's norm apart)
    and its output replaced by zero_output: what write_fasttext writes as a .ftz. The input needs at
    least 256 rows and a width that dsub divides (quantize's checks)."""
    if MODELS_BY_CODE.get(model.args["model"]) not in TRAINED:
        raise InvalidValueError(
            f"this model is a classifier (model code {model.args['model']}): quantize it as fastText does, "
            "with fasttext_quantize.quantize_model (embedlab classify quantize)"
        )
    if isinstance(model.input, QuantizedMatrix):
        raise InvalidValueError("the model is already quantized: quantize the unquantized model it was made from")
    dsub = DSUB if dsub is None else check_int("dsub", dsub, low=1)
    if model.dim % dsub:  # quantize refuses it too; here it is named as the caller's option
        raise InvalidValueError(
            f"dsub {dsub} must divide the table's width {model.dim}: each code stands for dsub columns", param="dsub"
        )
    if len(model.input) < KSUB:
        rows = "rows" if model.max_n == 0 else "word and n-gram bucket rows"
        raise InvalidValueError(
            f"the table has {len(model.input):,} {rows}; product quantization needs at least {KSUB}, as each "
            f"sub-space learns {KSUB} centroids from them: store a table this small as it is (a .bin or .txt)"
        )
    input = quantize(model.input, dsub, qnorm, seed)
    return dataclasses.replace(model, input=input, output=zero_output(model.nwords, model.dim))


def plain_model(table: Table) -> FastTextModel:
    """A Table as a skipgram fastText model without n-grams (maxn 0, no buckets): each word's vector
    is its own row, as fastText's getWordVector reads it. Counts 1 each where the table has none."""
    dim = table.vectors.shape[1]
    return FastTextModel.from_arrays(
        table.keys, table.vectors, np.zeros((0, dim), np.float32), table.counts, min_n=0, max_n=0
    )


def write_ftz(
    table: Table,
    path: str | Path,
    replace: bool = True,
    *,
    dsub: int | None = DSUB,
    qnorm: bool = False,
    seed: int = SEED,
) -> list[Path]:
    """Write `table` product-quantized as a .ftz (plain_model, quantize_word_model) -> [path].

    Everything that could stop the write is checked before the file is touched: NaN or ±inf rows,
    keys fastText cannot hold (empty, with whitespace or NUL), fewer than 256 rows, a dsub that does
    not divide the width. replace False: only if nothing is at `path` when it is created.
    """
    path = Path(path)
    check_finite_to_write(path, table.keys, table.vectors)
    model = quantize_word_model(plain_model(table), dsub, qnorm, seed)
    return [write_fasttext(model, path, replace)]
