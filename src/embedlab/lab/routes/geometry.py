"""Geometry (simulation 9): the tables served, neighbours, analogies, and a pair's dot product
taken apart into ‖a‖, ‖b‖ and cos θ."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from embedlab.vectors.analysis import pair_geometry

router = APIRouter(prefix="/api", tags=["geometry"])

MAX_K = 50  # answers per query
MAX_TEXT = 200  # characters of a word or an analogy expression

K = Annotated[int, Query(ge=1, le=MAX_K, description=f"answers, 1..{MAX_K}")]
Word = Annotated[str, Query(min_length=1, max_length=MAX_TEXT)]
Metric = Annotated[str, Query(pattern="^(cosine|dot|euclidean)$")]


@router.get("/tables")
def tables(request: Request) -> dict:
    """The tables this server was started with, by name (loaded on first use)."""
    return {"tables": request.app.state.lab.names}


@router.get("/geometry/neighbors")
def neighbors(request: Request, table: str, word: Word, k: K = 10, metric: Metric = "cosine") -> dict:
    """The k nearest keys to `word` (the word itself left out)."""
    answer = request.app.state.lab.table(table).most_similar(word, topn=k, metric=metric)
    return {"table": table, **answer.to_dict()}


@router.get("/geometry/analogy")
def analogy(request: Request, table: str, expression: Word, k: K = 5, metric: Metric = "cosine") -> dict:
    """`b - a + c` answered by the nearest keys to the arithmetic (its words left out)."""
    answer = request.app.state.lab.table(table).analogy(expression, topn=k, metric=metric)
    return {"table": table, **answer.to_dict()}


@router.get("/geometry/pair")
def pair(request: Request, table: str, a: Word, b: Word) -> dict:
    """a·b, ‖a‖, ‖b‖, cos θ, θ and ‖a − b‖ for two keys' rows."""
    vectors = request.app.state.lab.table(table)
    parts = pair_geometry(vectors, a, b).to_dict()
    return {"table": table, "a": a, "b": b, **parts, "distance": vectors.similarity(a, b, metric="euclidean")}
