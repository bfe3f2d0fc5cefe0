"""Geometry (lab simulation 9): a word's neighbours and an analogy's answers under the metric the
page picks (cosine, dot or euclidean: the table's own queries, Vectors.most_similar and
Vectors.analogy), and a pair's dot product taken apart into ‖a‖, ‖b‖ and cos θ, beside their
distance.

    neighbours(vectors, "king", k=5, metric="dot").found.keys      long rows rank higher under dot
    analogy(vectors, "king - man + woman").found.keys[0]           'queen'
    view = pair(vectors, "cat", "dog")
    view.parts.dot == view.parts.norm_a * view.parts.norm_b * view.parts.cosine    # up to rounding
    view.distance                                                                 # ‖cat − dog‖
"""

from __future__ import annotations

from dataclasses import dataclass

from embedlab.vectors.analysis import DotDecomposition, pair_geometry
from embedlab.vectors.neighbors import Neighbors
from embedlab.vectors.similarity import METRICS
from embedlab.vectors.table import Vectors

MAX_K = 50  # answers per query
MAX_TEXT = 200  # characters of a word or an analogy expression
LIMITS = {"k": [1, MAX_K], "text": MAX_TEXT, "metrics": list(METRICS)}


@dataclass(frozen=True)
class Ranked:
    """A query's answers on one table, best first."""

    table: str  # the table's name
    found: Neighbors  # the answers (keys, scores), the metric, the query and the input keys left out
    higher_is_better: bool  # False for euclidean: its scores are distances, the smallest first


def neighbours(vectors: Vectors, word: str, k: int = 10, metric: str = "cosine") -> Ranked:
    """The k keys nearest `word` under `metric` (the word itself left out)."""
    found = vectors.most_similar(word, topn=k, metric=metric)
    return Ranked(vectors.name, found, found.higher_is_better)


def analogy(vectors: Vectors, expression: str, k: int = 5, metric: str = "cosine") -> Ranked:
    """`b - a + c` answered by the k keys nearest the arithmetic under `metric` (its words left out)."""
    found = vectors.analogy(expression, topn=k, metric=metric)
    return Ranked(vectors.name, found, found.higher_is_better)


@dataclass(frozen=True)
class PairView:
    """Two keys' rows: a·b = ‖a‖ ‖b‖ cos θ, θ in degrees, and ‖a − b‖."""

    table: str  # the table's name
    a: str  # the first key
    b: str  # the second key
    parts: DotDecomposition  # dot, norm_a, norm_b, cosine, angle_degrees, product (float64)
    distance: float  # ‖a − b‖, the table's euclidean metric


def pair(vectors: Vectors, a: str, b: str) -> PairView:
    """Keys `a` and `b` of a table (V, D) -> their rows' dot product taken apart, and their distance."""
    return PairView(vectors.name, a, b, pair_geometry(vectors, a, b), vectors.similarity(a, b, metric="euclidean"))
