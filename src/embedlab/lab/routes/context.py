"""Static vs contextual (simulation 12): one word in two to four sentences, through MiniLM's layers."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import HEAVY, ContextDep, one_of
from embedlab.lab.schemas import answer_model
from embedlab.sims import context as sims
from embedlab.sims.context import MAX_HEAD, MAX_LAYER, MAX_TEXTS, MAX_WORD, MIN_TEXTS, POOLINGS, ContextAnswer

router = APIRouter(prefix="/api/context", tags=["context"])

EXAMPLE = ["he sat on the river bank and watched the water", "she paid the cheque into the bank"]


@router.get("", response_model=answer_model(ContextAnswer), dependencies=[HEAVY])
def context(
    model: ContextDep,
    text: Annotated[
        list[str], Query(description=f"{MIN_TEXTS} to {MAX_TEXTS} sentences, each holding the word")
    ] = EXAMPLE,
    word: Annotated[str, Query(min_length=1, max_length=MAX_WORD)] = "bank",
    pooling: Annotated[str, one_of(POOLINGS)] = "mean",
    layer: Annotated[int, Query(ge=0, le=MAX_LAYER, description="the encoder layer whose attention is shown")] = 0,
    head: Annotated[int, Query(ge=0, le=MAX_HEAD)] = 0,
) -> ContextAnswer:
    """The word's vector in each sentence at every layer (0 = the input embedding): cosines between
    the occurrences, norms, the nearest static rows; a 2-D map of every token per layer; and each
    occurrence's attention row in encoder layer `layer` (0-based: it makes the states of layer
    `layer` + 1), head `head`. At most MAX_OCCURRENCES occurrences in all sentences together."""
    return sims.page_answer(model, text, word, pooling, layer, head)
