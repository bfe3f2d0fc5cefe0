"""fastText's `quantize` command on a FastTextModel: keep the rows of largest norm, then
product-quantize (quantize.py) the input matrix, and the output with -qout.

    prune(model, cutoff)          -> FastTextModel of "</s>", then the cutoff - 1 other input rows of largest norm
    quantize_model(model, dsub=2, qnorm=False, qout=False, cutoff=0, seed=1234)   -> FastTextModel, as a .ftz holds

prune is fastText's selectEmbeddings and Dictionary::prune: the kept words stay in their order
(the dropped ones leave the dictionary), every label stays, and the kept n-gram rows follow the
words in the order they were selected, pruneidx mapping each kept bucket to its row among them.
Equal norms are broken by row index (fastText's std::sort leaves them in no set order).
fastText's -retrain (training the pruned rows again before quantizing) is the trainer's: prune,
train, then quantize_model.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from embedlab.errors import InvalidValueError, check_int
from embedlab.vectors.io.fasttext_model import MODELS, FastTextModel
from embedlab.vectors.quantize import SEED, QuantizedMatrix, quantize

EOS = "</s>"  # fastText's end-of-line token: selectEmbeddings keeps its row first, whatever its norm


def prune(model: FastTextModel, cutoff: int) -> FastTextModel:
    """A supervised `model` (unquantized) -> the same model with `cutoff` input rows: "</s>"'s (when
    it is a word), then those of largest L2 norm, words and n-gram buckets alike; the input matrix
    becomes (kept words + P, D) and pruneidx the P kept buckets' (bucket, row) pairs. For example
    words "</s>", "a", "b" and buckets 0, 1, 2 whose rows have norms 0, 1, 3 and 2, 5, 0.5, cut to 3:
    words "</s>", "b" (then the labels), rows "</s>"'s, "b"'s, bucket 1's, pruneidx [[1, 0]].
    """
    _check_supervised(model, "prune")
    if not isinstance(model.input, np.ndarray):
        raise InvalidValueError("cannot prune a quantized model: prune the unquantized model it was made from")
    cutoff = check_int("cutoff", cutoff, low=1)
    nwords = model.nwords
    x = model.input  # (R, D)
    norms = np.sqrt(np.einsum("ij,ij->i", x, x, dtype=np.float64)).astype(np.float32)  # (R,) as fastText's l2NormRow
    order = np.argsort(-norms, kind="stable")  # largest first, ties by row
    words = model.words[:nwords]
    if EOS in words:
        eos = words.index(EOS)
        order = np.concatenate([[eos], order[order != eos]])
    chosen = order[:cutoff]
    kept_words = np.sort(chosen[chosen < nwords])  # (W,) word rows, in dictionary order
    kept_rows = chosen[chosen >= nwords] - nwords  # (P,) n-gram rows, in selection order
    buckets = kept_rows if model.pruneidx is None else _buckets_of_rows(model.pruneidx)[kept_rows]
    pruneidx = np.stack([buckets, np.arange(len(buckets))], axis=1).astype(np.int32)  # (P, 2)
    entries = np.concatenate([kept_words, np.arange(nwords, len(model.words))])  # kept words, then every label
    return dataclasses.replace(
        model,
        words=[model.words[i] for i in entries],
        counts=model.counts[entries],
        entry_types=model.entry_types[entries],
        input=np.ascontiguousarray(x[np.concatenate([kept_words, nwords + kept_rows])]),
        pruneidx=pruneidx,
    )


def _check_supervised(model: FastTextModel, what: str) -> None:
    """fastText quantizes classifiers only: a word-vector model's output has a row per word, which
    pruning words would leave behind."""
    if model.args["model"] != MODELS["supervised"]:
        raise InvalidValueError(
            f"cannot {what} this model: fastText quantizes supervised models (classifiers) only, and this one's "
            f"model code is {model.args['model']} (supervised is {MODELS['supervised']})"
        )


def _buckets_of_rows(pruneidx: np.ndarray) -> np.ndarray:
    """(P, 2) (bucket, row) pairs -> (P,) the bucket of each kept row."""
    buckets = np.empty(len(pruneidx), np.int64)
    buckets[pruneidx[:, 1]] = pruneidx[:, 0]
    return buckets


def quantize_model(
    model: FastTextModel,
    dsub: int = 2,
    qnorm: bool = False,
    qout: bool = False,
    cutoff: int = 0,
    seed: int = SEED,
) -> FastTextModel:
    """`model` as `fasttext quantize` leaves it (without -retrain): pruned to `cutoff` input rows
    when 0 < cutoff < its input rows, its input quantized in sub-vectors of `dsub` (with qnorm,
    norms apart), and with qout its output too, in sub-vectors of 2 as fastText's (which needs
    at least 256 output rows: a classifier of 256 labels or more). Written, it is a .ftz."""
    _check_supervised(model, "quantize")
    if isinstance(model.input, QuantizedMatrix):
        raise InvalidValueError("the model is already quantized: quantize the unquantized model it was made from")
    cutoff = check_int("cutoff", cutoff, low=0)
    if 0 < cutoff < len(model.input):
        model = prune(model, cutoff)
    input = quantize(model.input, dsub, qnorm, seed)
    output = quantize(model.output, 2, qnorm, seed) if qout else model.output
    return dataclasses.replace(model, input=input, output=output)
