"""fastText's classifier: the mean of a line's word and n-gram rows, times the output table, into labels.

    clf = Classifier.read("model.bin")               # a supervised .bin (or .ftz), the tool's or ours
    top = clf.predict(LabelledText.of(lines), k=3)   # Predictions: (L, k) label ids and probabilities
    top.labels_of(0)                                 # [("__label__zool.", 0.91), ...]
    meter = clf.test(LabelledText.read("test.txt"), k=1)   # Meter: P@k, R@k, each label's precision...

The model is a bag of embeddings: h = mean of the input rows of a line (its words, their character
n-grams, its word n-grams), then one score per label, u_l·h, read by the loss it was trained with:
softmax over labels, one sigmoid per label (ova, ns), or a path of sigmoids down a Huffman tree of
the labels (hs). Probabilities are reported as the tool reports them, p + 1e-5 (fastText ranks by
log(p + 1e-5) and prints its exp), so our answers and the tool's agree number for number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from embedlab.errors import InvalidValueError, check_float, check_int
from embedlab.models.labelled import Bags, Dictionary, LabelledText
from embedlab.vectors.io.fasttext import read_fasttext
from embedlab.vectors.io.fasttext_model import LOSSES, MODELS, FastTextModel

DECODE_WHOLE = 1 << 26  # a quantized input of at most this many values (256 MB as float32) is decoded whole


@dataclass(frozen=True, eq=False)
class Predictions:
    """Each line's best labels: labels[l, i] is line l's i-th label id (-1: none), probs[l, i] its probability."""

    labels: np.ndarray  # (L, k) int32
    probs: np.ndarray  # (L, k) float32, p + 1e-5 as fastText prints it; 0 where there is no label
    names: list[str]  # (nlabels,) "__label__X"

    def labels_of(self, line: int) -> list[tuple[str, float]]:
        """Line `line`'s predictions as (label, probability), best first."""
        return [(self.names[i], float(p)) for i, p in zip(self.labels[line], self.probs[line], strict=True) if i >= 0]

    def lines(self) -> list[str]:
        """Each line's predictions as `fasttext predict-prob` prints them: "__label__a 0.91 __label__b 0.05"
        (probabilities to 6 significant digits; a line with none is empty)."""
        names = [*self.names, ""]  # -1 (no label) names ""
        columns = [
            [f"{names[i]} {p:.6g}" if i >= 0 else "" for i, p in zip(ids, probs, strict=True)]
            for ids, probs in zip(self.labels.T.tolist(), self.probs.T.tolist(), strict=True)
        ]
        if len(columns) == 1:
            return columns[0]
        return [" ".join(filter(None, parts)) for parts in zip(*columns, strict=True)]


@dataclass
class Meter:
    """fastText's test counts: over all lines, predictions that were right (P@k = right / predicted) and
    gold labels found (R@k = right / gold); the same per label."""

    nlabels: int
    examples: int = 0
    predicted: np.ndarray = field(init=False)  # (nlabels,) int64 times each label was predicted
    right: np.ndarray = field(init=False)  # (nlabels,) int64 ... and was one of the line's labels
    gold: np.ndarray = field(init=False)  # (nlabels,) int64 times each label was a line's label

    def __post_init__(self) -> None:
        self.predicted, self.right, self.gold = (np.zeros(self.nlabels, np.int64) for _ in range(3))

    def log(self, bags: Bags, top: np.ndarray) -> None:
        """Count (L, k) predictions `top` (-1: none) against `bags`' labels."""
        lines = np.repeat(np.arange(len(bags)), np.diff(bags.label_offsets))
        gold = lines * self.nlabels + bags.labels  # each (line, gold label) as one number
        line, found = np.nonzero(top >= 0)
        predicted = top[line, found]
        hit = np.isin(line * self.nlabels + predicted, gold)
        self.examples += len(bags)
        self.predicted += np.bincount(predicted, minlength=self.nlabels)
        self.right += np.bincount(predicted[hit], minlength=self.nlabels)
        self.gold += np.bincount(bags.labels, minlength=self.nlabels)

    @property
    def precision(self) -> float:
        return _ratio(self.right.sum(), self.predicted.sum())

    @property
    def recall(self) -> float:
        return _ratio(self.right.sum(), self.gold.sum())

    def per_label(self) -> list[dict]:
        """Each label's {"f1", "precision", "recall"} (NaN where fastText prints "--------")."""
        return [
            {
                "f1": _ratio(2 * self.right[i], self.predicted[i] + self.gold[i]),
                "precision": _ratio(self.right[i], self.predicted[i]),
                "recall": _ratio(self.right[i], self.gold[i]),
            }
            for i in range(self.nlabels)
        ]


def _ratio(a: int, b: int) -> float:
    return float(a) / float(b) if b else float("nan")


class Classifier:
    """A supervised fastText model, ready to predict. `model` is what its .bin holds."""

    def __init__(self, model: FastTextModel) -> None:
        if model.args["model"] != MODELS["supervised"]:
            raise InvalidValueError(
                "a classifier needs a supervised fastText model (trained with `fasttext supervised` or "
                "`embedlab classify train`); this one holds word vectors"
            )
        self.model = model
        self.dictionary = Dictionary.of_model(model)
        self.loss = {code: name for name, code in LOSSES.items()}[model.args["loss"]]
        self._tree = huffman_tree(self.dictionary.label_counts) if self.loss == "hs" else None
        rows = model.input
        if not isinstance(rows, np.ndarray) and rows.shape[0] * rows.shape[1] <= DECODE_WHOLE:
            rows = rows.decode()  # a .ftz pruned to its cutoff: decoded once, not each line's rows again
        self._input = rows  # (rows, D) float32, or a quantized table too large to decode

    @classmethod
    def read(cls, path: str | Path) -> Classifier:
        return cls(read_fasttext(path))

    @property
    def labels(self) -> list[str]:
        return self.dictionary.labels

    def predict(self, text: LabelledText, k: int = 1, threshold: float = 0.0) -> Predictions:
        """(L, k) best labels of each line of `text` with probability >= threshold."""
        return self._predict(self.dictionary.encode(text), k, threshold)

    def test(self, text: LabelledText, k: int = 1, threshold: float = 0.0) -> Meter:
        """P@k and R@k of `text`'s lines against their labels, as `fasttext test` counts them (a line
        with no label or no row is not counted)."""
        bags = self.dictionary.encode(text)
        counted = (np.diff(bags.label_offsets) > 0) & (np.diff(bags.offsets) > 0)
        top = self._predict(bags, k, threshold).labels
        meter = Meter(len(self.labels))
        meter.log(_subset(bags, counted), top[counted])
        return meter

    def _predict(self, bags: Bags, k: int, threshold: float) -> Predictions:
        from embedlab.models.bag_kernels import predict_bags  # numba, imported only here

        k = min(check_int("k", k, low=1), len(self.labels))
        threshold = check_float("threshold", threshold, low=0.0, high=1.0)
        ids, rows = _rows_for(self._input, bags.ids)
        left, right = self._tree if self._tree is not None else (np.empty(0, np.int64),) * 2
        labels = np.empty((len(bags), k), np.int32)
        scores = np.empty((len(bags), k), np.float32)
        output, code = dense(self.model.output), LOSSES[self.loss]
        predict_bags(ids, bags.offsets, rows, output, code, k, np.float32(threshold), left, right, labels, scores)
        probs = np.where(labels >= 0, np.exp(scores), 0.0).astype(np.float32)
        return Predictions(labels, probs, self.labels)


def _subset(bags: Bags, keep: np.ndarray) -> Bags:
    """The lines `keep` (L,) bool of `bags` (labels only: what Meter reads)."""
    lengths = np.diff(bags.label_offsets)
    labels = bags.labels[np.repeat(keep, lengths)]
    offsets = np.concatenate([[0], np.cumsum(lengths[keep])]).astype(np.int64)
    return Bags(bags.ids[:0], offsets, labels, offsets, bags.tokens[keep])


def dense(matrix: object) -> np.ndarray:
    """A float32 matrix, or a quantized one decoded."""
    return matrix if isinstance(matrix, np.ndarray) else matrix.decode()


def _rows_for(matrix: object, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ids, rows) to average: the matrix itself, or of a large quantized one only the rows `ids` use."""
    if isinstance(matrix, np.ndarray):
        return ids, matrix
    used, at = np.unique(ids, return_inverse=True)
    return at.astype(np.int32), matrix.rows(used)


def huffman_tree(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """fastText's label tree for hs from (nlabels,) counts, most frequent first -> left, right (2n-1,)
    int64 children of each node (-1 for a leaf); leaves are labels 0..n-1, node n+i is output row i,
    the root is 2n-2. Built as fastText's buildTree: the two lightest of the remaining leaves (taken
    from the end) and inner nodes merge, ties going to the inner node."""
    n = len(counts)
    weight = np.full(2 * n - 1, 1e15)
    weight[:n] = counts
    left = np.full(2 * n - 1, -1, np.int64)
    right = np.full(2 * n - 1, -1, np.int64)
    leaf, node = n - 1, n
    for i in range(n, 2 * n - 1):
        pair = []
        for _ in range(2):
            if leaf >= 0 and weight[leaf] < weight[node]:
                pair.append(leaf)
                leaf -= 1
            else:
                pair.append(node)
                node += 1
        left[i], right[i] = pair
        weight[i] = weight[pair[0]] + weight[pair[1]]
    return left, right


def tree_paths(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each label's path to the root: (n+1,) offsets, (P,) int32 output rows, (P,) bool branch (True:
    a right child), leaf upwards, as fastText's paths and codes."""
    n = len(left) // 2 + 1
    parent = np.full(len(left), -1, np.int64)
    is_right = np.zeros(len(left), bool)
    for i in range(n, len(left)):
        parent[left[i]], parent[right[i]] = i, i
        is_right[right[i]] = True
    rows, codes, offsets = [], [], [0]
    for label in range(n):
        j = label
        while parent[j] >= 0:
            rows.append(parent[j] - n)
            codes.append(is_right[j])
            j = parent[j]
        offsets.append(len(rows))
    return np.array(offsets, np.int64), np.array(rows, np.int32), np.array(codes, bool)
