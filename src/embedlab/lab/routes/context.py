"""Static vs contextual (simulation 12): one word in two to four sentences, through MiniLM's layers."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.errors import InvalidValueError
from embedlab.lab.deps import ContextDep
from embedlab.lab.schemas import ContextAnswer, Limit
from embedlab.sims.context import MAX_TEXTS, MAX_TOKENS, MIN_TEXTS, POOLINGS

router = APIRouter(prefix="/api/context", tags=["context"])

MAX_TEXT = 300  # characters of one sentence
MAX_WORD = 50  # characters of the word
MAX_HEAD = 63  # bounds for the query; the model's own head and layer counts are checked by the library
MAX_LAYER = 63
LIMITS: dict[str, Limit] = {
    "texts": [MIN_TEXTS, MAX_TEXTS], "text": MAX_TEXT, "tokens": MAX_TOKENS, "word": MAX_WORD,
    "head": [0, MAX_HEAD], "layer": [0, MAX_LAYER], "pooling": list(POOLINGS),
}  # fmt: skip
EXAMPLE = ["he sat on the river bank and watched the water", "she paid the cheque into the bank"]


@router.get("", response_model=ContextAnswer)
def context(
    model: ContextDep,
    text: Annotated[
        list[str], Query(description=f"{MIN_TEXTS} to {MAX_TEXTS} sentences, each holding the word")
    ] = EXAMPLE,
    word: Annotated[str, Query(min_length=1, max_length=MAX_WORD)] = "bank",
    pooling: Annotated[str, Query(pattern="^(" + "|".join(POOLINGS) + ")$")] = "mean",
    layer: Annotated[int, Query(ge=0, le=MAX_LAYER, description="the encoder layer whose attention is shown")] = 0,
    head: Annotated[int, Query(ge=0, le=MAX_HEAD)] = 0,
) -> dict:
    """The word's vector in each sentence at every layer (0 = the input embedding): cosines between
    the occurrences, norms, the nearest static rows; a 2-D map of every token per layer; and each
    occurrence's attention row in encoder layer `layer`, head `head`."""
    if not MIN_TEXTS <= len(text) <= MAX_TEXTS:
        raise InvalidValueError(f"give {MIN_TEXTS} to {MAX_TEXTS} sentences; got {len(text)}")
    for i, sentence in enumerate(text):
        if len(sentence) > MAX_TEXT:
            raise InvalidValueError(f"text {i} is {len(sentence)} characters long; the limit is {MAX_TEXT}")
    view = model.compare(text, word, pooling=pooling, max_tokens=MAX_TOKENS)
    return {**view.to_dict(), "map": view.map_dict(), "attention": view.attention_dict(layer, head)}
