"""Tied vs untied (simulation 5): logits h·Wᵀ over a small vocabulary of a served table's rows
(MiniLM's real token table by default) and the parameter counts (embedlab.sims.tying)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import DefaultTableDep
from embedlab.lab.schemas import Limit, TyingAnswer
from embedlab.sims.tying import DEFAULT_WORDS, MAX_WORDS, MIN_WORDS, parse_words, tied_vs_untied

router = APIRouter(prefix="/api/tying", tags=["tying"])

MAX_TEXT = 400  # characters of the word list
MAX_SEED = 2**31 - 1
LIMITS: dict[str, Limit] = {"words": [MIN_WORDS, MAX_WORDS], "text": MAX_TEXT, "default_words": DEFAULT_WORDS}

Words = Annotated[str, Query(min_length=1, max_length=MAX_TEXT,
                             description=f"{MIN_WORDS}..{MAX_WORDS} keys, comma or space separated")]  # fmt: skip
Word = Annotated[str, Query(min_length=1, max_length=100, description="one of `words`")]
Mix = Annotated[float, Query(ge=0.0, le=1.0, description="t in h = (1 − t)·E[a] + t·E[b], 0..1")]
Seed = Annotated[int, Query(ge=0, le=MAX_SEED)]


@router.get("", response_model=TyingAnswer)
def logits(vectors: DefaultTableDep, words: Words = DEFAULT_WORDS, a: Word = "cat", b: Word = "dog", t: Mix = 0.0,
           seed: Seed = 0) -> dict:  # fmt: skip
    """Tied and untied logits of h over `words`, and each layout's parameters for the whole table."""
    return {"table": vectors.name, **tied_vs_untied(vectors, parse_words(words), a, b, t, seed).to_dict()}
