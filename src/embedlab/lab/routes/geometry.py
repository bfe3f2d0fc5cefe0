"""Geometry (simulation 9): neighbours, analogies, and a pair's dot product taken apart into
‖a‖, ‖b‖ and cos θ (embedlab.sims.geometry)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import TableDep
from embedlab.lab.schemas import Limit, NeighborsAnswer, PairAnswer
from embedlab.sims.geometry import pair as pair_view
from embedlab.vectors.similarity import METRICS

router = APIRouter(prefix="/api/geometry", tags=["geometry"])

MAX_K = 50  # answers per query
MAX_TEXT = 200  # characters of a word or an analogy expression
LIMITS: dict[str, Limit] = {"k": [1, MAX_K], "text": MAX_TEXT, "metrics": list(METRICS)}

K = Annotated[int, Query(ge=1, le=MAX_K, description=f"answers, 1..{MAX_K}")]
Word = Annotated[str, Query(min_length=1, max_length=MAX_TEXT)]
Metric = Annotated[str, Query(pattern="^(" + "|".join(METRICS) + ")$")]


@router.get("/neighbors", response_model=NeighborsAnswer)
def neighbors(vectors: TableDep, word: Word, k: K = 10, metric: Metric = "cosine") -> dict:
    """The k nearest keys to `word` (the word itself left out)."""
    return {"table": vectors.name, **vectors.most_similar(word, topn=k, metric=metric).to_dict()}


@router.get("/analogy", response_model=NeighborsAnswer)
def analogy(vectors: TableDep, expression: Word, k: K = 5, metric: Metric = "cosine") -> dict:
    """`b - a + c` answered by the nearest keys to the arithmetic (its words left out)."""
    return {"table": vectors.name, **vectors.analogy(expression, topn=k, metric=metric).to_dict()}


@router.get("/pair", response_model=PairAnswer)
def pair(vectors: TableDep, a: Word, b: Word) -> dict:
    """a·b, ‖a‖, ‖b‖, cos θ, θ and ‖a − b‖ for two keys' rows."""
    return {"table": vectors.name, **pair_view(vectors, a, b).to_dict()}
