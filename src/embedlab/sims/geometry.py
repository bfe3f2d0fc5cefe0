"""Geometry (lab simulation 9): a word's neighbours and an analogy's answers under the metric the
page picks (cosine, dot or euclidean: the table's own queries, Vectors.most_similar and
Vectors.analogy), and a pair's dot product taken apart into ‖a‖, ‖b‖ and cos θ, beside their
distance.

    neighbours(vectors, "king", k=5, metric="dot").found.keys      long rows rank higher under dot
    analogy(vectors, "king - man + woman").found.keys[0]           'queen'
    view = pair(vectors, "cat", "dog")
    view.parts.dot == view.parts.norm_a * view.parts.norm_b * view.parts.cosine    # up to rounding
    view.distance                                                                 # ‖cat − dog‖
    defaults(vectors)                      the page's first queries, all answerable on this table

A page opens on queries the served table can answer: the first of DEFAULT_WORDS (analogies, pairs)
whose keys it has, else its most frequent words; the user's own queries are kept where it has them.
"""

from __future__ import annotations

from dataclasses import dataclass

from embedlab.errors import InvalidValueError
from embedlab.vectors.analysis import DotDecomposition, pair_geometry
from embedlab.vectors.frequency import word_rows
from embedlab.vectors.neighbors import Neighbors
from embedlab.vectors.query import signed_terms
from embedlab.vectors.similarity import METRICS
from embedlab.vectors.table import Vectors

MAX_K = 50  # answers per query
MAX_TEXT = 200  # characters of a word or an analogy expression
LIMITS = {"k": [1, MAX_K], "text": MAX_TEXT, "metrics": list(METRICS)}
# The queries a page opens on, best first; each is used only where the table has all its keys.
DEFAULT_WORDS = ("king", "france", "january", "city")
DEFAULT_ANALOGIES = ("king - man + woman", "paris - france + germany", "father - man + woman")
DEFAULT_PAIRS = (("cat", "dog"), ("king", "queen"), ("january", "february"), ("man", "woman"))


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


@dataclass(frozen=True)
class Defaults:
    """Queries one table can answer: a word, an analogy and a pair."""

    table: str  # the table's name
    word: str  # a key for the neighbours
    expression: str  # "b - a + c" for the analogy
    a: str  # the pair's first key
    b: str  # and its second


def defaults(
    vectors: Vectors, word: str | None = None, expression: str | None = None, a: str | None = None, b: str | None = None
) -> Defaults:
    """The queries given, each kept where `vectors` has all its keys and replaced where it lacks one:
    by the first default it can answer, else by its most frequent words (word_rows: the first, the
    first three as "w0 - w1 + w2", the first two as the pair). A table of one key pairs it with itself."""
    frequent = [vectors.index_to_key[row] for row in word_rows(vectors.index_to_key, 3)]
    frequent += vectors.index_to_key[: 3 - len(frequent)]  # a table with fewer words: any keys
    frequent += frequent[-1:] * (3 - len(frequent))  # fewer than three keys: repeat the last

    def first(choices, fallback):
        return next((c for c in choices if c is not None and all(k in vectors for k in _keys(c))), fallback)

    pair = (a, b) if a is not None and b is not None else None
    return Defaults(
        vectors.name,
        first((word, *DEFAULT_WORDS), frequent[0]),
        first((expression, *DEFAULT_ANALOGIES), f"{frequent[0]} - {frequent[1]} + {frequent[2]}"),
        *first((pair, *DEFAULT_PAIRS), (frequent[0], frequent[1])),
    )


def _keys(query: str | tuple[str, ...]) -> list[str]:
    """A query's keys: a pair's two, an analogy's terms, a word itself; none for an expression that
    does not parse (so it is replaced, not kept)."""
    if isinstance(query, tuple):
        return list(query)
    try:
        terms = signed_terms(query)
    except InvalidValueError:
        return [query] if query.strip() else [" "]  # no table has the key " "
    return [key for key, _ in terms]
