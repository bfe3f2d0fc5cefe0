"""The Bag of embeddings page's typed text: its top labels, and which input rows each label's score leans on.

    explain_text(run, classifier, "a small fish of the carp family", k=3)   -> BagExplanation

fastText's classifier averages the rows of a line, h = (1/n) Σ_i x_i (a word's row, a word n-gram's
hashed bucket row, "</s>"'s row), and scores label l as u_l · h. The score is therefore a sum of one part
per row, u_l · x_i / n: a row's contribution. A row the line uses twice counts twice; two n-grams that
hash to the same bucket share one row, named by both ("of the | carp family"). Only the softmax loss
reads the scores this way (the page trains with it): p_l = exp(s_l) / Σ_m exp(s_m).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from embedlab.errors import InvalidValueError
from embedlab.files import IdVector, Matrix, Vector
from embedlab.hashing import EOS
from embedlab.hashing.words import word_hashes, word_ngram_buckets
from embedlab.models.bag import Classifier, dense
from embedlab.models.labelled import LABEL, LabelledText

MAX_TEXT = 300  # characters of the typed text
MAX_K = 5  # labels explained at once


@dataclass(frozen=True, eq=False)
class BagExplanation:
    """A text's top labels under one classifier and each input row's part of their scores."""

    run: int  # the run whose classifier answered
    text: str  # the text as one line (whitespace runs made one space)
    tokens: list[str]  # the line as fastText reads it: its words, then "</s>"
    unknown: list[str]  # tokens with no row of their own: words the dictionary lacks, labels (ignored)
    labels: list[str]  # the k best labels, best first, without "__label__"
    probs: Vector  # (k,) their probabilities as fastText prints them (p + 1e-5)
    scores: Vector  # (k,) u_l · h, the scores the softmax reads
    rows: list[str]  # (R,) each input row the line averages: a word, "</s>", or a word n-gram's words
    kinds: list[str]  # (R,) "word" or "ngram" (a hashed bucket row)
    ids: IdVector  # (R,) the rows' ids in the input table (a bucket's is nwords + bucket)
    counts: IdVector  # (R,) times the line uses the row
    contributions: Matrix  # (k, R) u_l · x_r × count / n: each row sums to its label's score
    n: int  # rows averaged, repeats included


def check_text(text: str) -> str:
    """A typed text as one line (runs of whitespace made one space); InvalidValueError when it is too
    long, empty, or holds "</s>" (fastText ends a line there)."""
    if len(text) > MAX_TEXT:
        raise InvalidValueError(f"text is {len(text):,} characters long; the limit is {MAX_TEXT}")
    line = " ".join(text.split())
    if not line:
        raise InvalidValueError("text is empty: type a few words, such as 'a small fish of the carp family'")
    if EOS in line.split():
        raise InvalidValueError(f"text holds '{EOS}', which fastText reads as the end of a line: type one line")
    return line


def explain_text(run: int, classifier: Classifier, text: str, k: int) -> BagExplanation:
    """`text` (one line: check_text) under `classifier` (unquantized, unpruned, trained with softmax)."""
    model, dictionary = classifier.model, classifier.dictionary
    line = LabelledText.of(text + "\n", "the text")  # the newline: "</s>", as `fasttext predict` reads a line
    bags = dictionary.encode(line)
    ids = bags.ids[bags.offsets[0] : bags.offsets[1]].astype(np.int64)  # (n,)
    if len(ids) == 0:
        raise InvalidValueError("no word of the text has a row in this classifier; type words it was trained on")
    tokens = [line.types[t].decode() for t in line.tokens[line.offsets[0] : line.offsets[1]]]
    known = set(dictionary.words)
    names, kinds = _row_names(tokens, known, dictionary.word_ngrams, dictionary.bucket)
    assert len(names) == len(ids), (names, ids)  # the words' rows, then the n-grams', as Dictionary.encode
    unique, first, counts = np.unique(ids, return_index=True, return_counts=True)
    order = np.argsort(first)  # the rows in the order the line first uses them
    unique, first, counts = unique[order], first[order], counts[order]
    rows = dense(model.input)[unique]  # (R, D)
    output = dense(model.output)  # (labels, D)
    top = classifier.predict(line, k=k)
    best = top.labels[0][top.labels[0] >= 0]  # (k',)
    contributions = (output[best] @ rows.T) * counts[None, :] / len(ids)  # (k', R)
    merged = {}  # row id -> every name that lands on it (n-grams sharing a bucket)
    for row, name in zip(ids.tolist(), names, strict=True):
        merged.setdefault(row, []).append(name)
    return BagExplanation(
        run, text, tokens, [t for t in tokens if t != EOS and (t.startswith(LABEL) or t not in known)],
        [classifier.labels[i].removeprefix(LABEL) for i in best], top.probs[0][: len(best)],
        contributions.sum(axis=1), [" | ".join(dict.fromkeys(merged[r])) for r in unique.tolist()],
        [kinds[i] for i in first], unique, counts, contributions, len(ids),
    )  # fmt: skip


def _row_names(tokens: list[str], known: set[str], word_ngrams: int, bucket: int) -> tuple[list[str], list[str]]:
    """Each row a line's tokens give, in Dictionary.encode's order, named: each `known` word's own row,
    then each word n-gram's bucket (by first word, then length) -> (names, kinds)."""
    line = [t for t in tokens if not t.startswith(LABEL)]  # every word, known or not, takes part in n-grams
    names = [t for t in line if t in known]
    kinds = ["word"] * len(names)
    if word_ngrams > 1 and bucket > 0:
        buckets = word_ngram_buckets(word_hashes([t.encode() for t in line]), word_ngrams, bucket)
        grams = [
            " ".join(line[i : j + 1]) for i in range(len(line)) for j in range(i + 1, min(len(line), i + word_ngrams))
        ]
        assert len(grams) == len(buckets)
        names += grams
        kinds += ["ngram"] * len(grams)
    return names, kinds
