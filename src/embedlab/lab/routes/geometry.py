"""Geometry (simulation 9): neighbours and analogies under a chosen metric, and a pair's dot
product taken apart into ‖a‖, ‖b‖ and cos θ (embedlab.sims.geometry)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import TableDep, one_of
from embedlab.lab.schemas import answer_model
from embedlab.sims.geometry import (
    LIMITS,
    MAX_K,
    MAX_TEXT,
    Defaults,
    PairView,
    Ranked,
    analogy,
    defaults,
    neighbours,
    pair,
)

router = APIRouter(prefix="/api/geometry", tags=["geometry"])

K = Annotated[int, Query(ge=1, le=MAX_K, description=f"answers, 1..{MAX_K}")]
Word = Annotated[str, Query(min_length=1, max_length=MAX_TEXT)]
Metric = Annotated[str, one_of(LIMITS["metrics"], "cosine, dot or euclidean")]


@router.get("/neighbors", response_model=answer_model(Ranked))
def neighbors(vectors: TableDep, word: Word, k: K = 10, metric: Metric = "cosine") -> Ranked:
    """The k nearest keys to `word` under `metric` (the word itself left out)."""
    return neighbours(vectors, word, k, metric)


@router.get("/analogy", response_model=answer_model(Ranked))
def solve(vectors: TableDep, expression: Word, k: K = 5, metric: Metric = "cosine") -> Ranked:
    """`b - a + c` answered by the nearest keys to the arithmetic under `metric` (its words left out)."""
    return analogy(vectors, expression, k, metric)


@router.get("/pair", response_model=answer_model(PairView))
def two_keys(vectors: TableDep, a: Word, b: Word) -> PairView:
    """a·b, ‖a‖, ‖b‖, cos θ, θ and ‖a − b‖ for two keys' rows."""
    return pair(vectors, a, b)


Kept = Annotated[str | None, Query(min_length=1, max_length=MAX_TEXT, description="kept if the table has its keys")]


@router.get("/defaults", response_model=answer_model(Defaults))
def opening(vectors: TableDep, word: Kept = None, expression: Kept = None, a: Kept = None, b: Kept = None) -> Defaults:
    """Queries this table answers: those given where it has their keys, else its defaults."""
    return defaults(vectors, word, expression, a, b)
