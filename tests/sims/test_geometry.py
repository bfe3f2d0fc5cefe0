"""sims.geometry: a pair's dot product, norms, cosine, angle and distance against torch on the
table's own rows, and a worked example; neighbours and analogies under each metric are the table's own queries."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from embedlab.errors import UnknownNameError
from embedlab.files import json_safe
from embedlab.sims.geometry import analogy, defaults, neighbours, pair
from embedlab.vectors import Vectors
from embedlab.vectors.similarity import METRICS

# float64 sums of 384 products, in torch's order vs ours
FP64 = 1e-12


def test_a_worked_pair():
    view = pair(Vectors(["a", "b"], np.array([[3.0, 4.0], [4.0, 3.0]], dtype=np.float32)), "a", "b")
    assert (view.parts.dot, view.parts.norm_a, view.parts.norm_b) == (24.0, 5.0, 5.0)
    assert view.parts.cosine == pytest.approx(0.96) and view.distance == pytest.approx(math.sqrt(2), rel=1e-6)
    assert view.parts.angle_degrees == pytest.approx(math.degrees(math.acos(0.96)))


@pytest.mark.parametrize("a, b", [("cat", "dog"), ("king", "paris"), ("the", "the")])
def test_pair_is_torchs_geometry(minilm_vectors, a, b):
    view = pair(minilm_vectors, a, b)
    x, y = (torch.from_numpy(minilm_vectors[k].astype(np.float64)) for k in (a, b))
    parts = view.parts
    assert parts.dot == pytest.approx(torch.dot(x, y).item(), abs=FP64, rel=FP64)
    norms = [torch.linalg.vector_norm(v).item() for v in (x, y)]
    assert [parts.norm_a, parts.norm_b] == pytest.approx(norms, abs=FP64, rel=FP64)
    assert parts.cosine == pytest.approx(F.cosine_similarity(x, y, dim=0).item(), abs=1e-12)
    assert parts.product == pytest.approx(parts.dot, rel=1e-12)
    assert view.distance == pytest.approx(torch.dist(x, y).item(), rel=1e-5, abs=1e-6)  # the table's float32 metric


def test_the_answer_as_json(minilm_vectors):
    out = json_safe(pair(minilm_vectors, "cat", "dog"))
    assert list(out) == ["table", "a", "b", "parts", "distance"] and isinstance(out["distance"], float)
    assert list(out["parts"]) == ["dot", "norm_a", "norm_b", "cosine", "angle_degrees", "product"]
    assert (out["table"], out["a"], out["b"]) == ("minilm", "cat", "dog")
    assert all(isinstance(value, float) for value in out["parts"].values())


@pytest.mark.parametrize("metric", METRICS)
def test_neighbours_and_analogies_are_the_tables_own_queries(minilm_vectors, metric):
    ranked = neighbours(minilm_vectors, "king", k=6, metric=metric)
    assert ranked.found == minilm_vectors.most_similar("king", topn=6, metric=metric)
    assert ranked.table == "minilm" and ranked.higher_is_better == (metric != "euclidean")
    solved = analogy(minilm_vectors, "king - man + woman", k=3, metric=metric)
    assert solved.found == minilm_vectors.analogy("king - man + woman", topn=3, metric=metric)
    scores = list(ranked.found.scores)
    assert scores == sorted(scores, reverse=ranked.higher_is_better)  # best first: distances rise, scores fall


def test_the_metrics_rank_differently(minilm_vectors):
    # dot rewards long rows, cosine does not: on MiniLM's table the two lists of 10 differ
    by_dot, by_cosine = (neighbours(minilm_vectors, "king", 10, m).found.keys for m in ("dot", "cosine"))
    assert by_dot != by_cosine


def test_an_unknown_key_is_named(minilm_vectors):
    with pytest.raises(UnknownNameError, match="unknown key 'kign'"):
        pair(minilm_vectors, "kign", "king")


def _table(keys):
    return Vectors(keys, np.eye(len(keys), dtype=np.float32))


def test_defaults_are_what_the_table_can_answer(minilm_vectors):
    opened = defaults(minilm_vectors)
    assert (opened.word, opened.expression, opened.a, opened.b) == ("king", "king - man + woman", "cat", "dog")
    # a table without cat: the next default pair it has; without any default: its first words, by row
    small = _table(["[PAD]", "the", "!", "of", "king", "man", "woman", "queen"])
    assert (defaults(small).a, defaults(small).b, defaults(small).expression) == ("king", "queen", "king - man + woman")
    bare = _table(["[PAD]", "the", "##s", "of", "and", "x"])
    opened = defaults(bare)
    assert (opened.word, opened.expression, opened.a, opened.b) == ("the", "the - of + and", "the", "of")
    # each is answerable: an unknown key would raise (the page's 404)
    assert neighbours(bare, opened.word, k=2).found.keys and analogy(bare, opened.expression, k=1).found.keys


def test_defaults_keep_the_queries_the_table_has():
    table = _table(["the", "of", "king", "man", "woman", "queen", "rome"])
    kept = defaults(table, word="rome", expression="queen - woman + man", a="of", b="rome")
    assert (kept.word, kept.expression, kept.a, kept.b) == ("rome", "queen - woman + man", "of", "rome")
    swapped = defaults(table, word="paris", expression="paris - rome + x", a="of", b="paris")
    assert (swapped.word, swapped.expression, swapped.a, swapped.b) == ("king", "king - man + woman", "king", "queen")
    assert defaults(table, expression="king - - man").expression == "king - man + woman"  # unparsed: replaced
    one = defaults(_table(["[PAD]"]))  # no word at all: any key, paired with itself
    assert (one.word, one.a, one.b, one.expression) == ("[PAD]", "[PAD]", "[PAD]", "[PAD] - [PAD] + [PAD]")
