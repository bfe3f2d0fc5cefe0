"""Input recipe (simulation 3): token, position and segment addends, their sum and LayerNorm, and
the cosine between the sentence's X rows; any addend can be left out of the sum
(embedlab.sims.recipe; the recipe and its pipeline come from deps.RecipeDep)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import RecipeDep
from embedlab.lab.schemas import Limit, RecipeAnswer
from embedlab.layers.recipes import ADDEND_NAMES, RECIPES
from embedlab.sims.recipe import MAX_TOKENS, PRETRAINED, RECIPE_NAMES

router = APIRouter(prefix="/api/recipe", tags=["recipe"])

MAX_TEXT = 200  # characters
MAX_POSITION = 4999  # the longest table served (transformer: 5000 sinusoid rows); each recipe checks its own
LIMITS: dict[str, Limit] = {
    "text": MAX_TEXT, "tokens": MAX_TOKENS, "position": [0, MAX_POSITION], "recipes": list(RECIPE_NAMES),
    "pretrained": PRETRAINED, "segmented": [name for name in RECIPE_NAMES if RECIPES[name].get("n_segments")],
    "addends": list(ADDEND_NAMES),
}  # fmt: skip


@router.get("", response_model=RecipeAnswer)
def place(
    recipe: RecipeDep,
    text: Annotated[str, Query(min_length=1, max_length=MAX_TEXT)] = "the cat sat on the mat",
    index: Annotated[int, Query(ge=0, lt=MAX_TOKENS, description="which piece of the text")] = 2,
    position: Annotated[int | None, Query(ge=0, le=MAX_POSITION, description="default: where it stands")] = None,
    segment: Annotated[int | None, Query(ge=0, le=1, description="bert only; default: its own")] = None,
    addends: Annotated[
        list[str] | None,
        Query(max_length=len(ADDEND_NAMES), description="repeated: the addends summed; default: all the recipe has"),
    ] = None,
) -> dict:
    """Piece `index` of `text` at `position` under `recipe`: the addends summed, their sum, the output
    and norms; the whole text's X as a cosine matrix and the groups of pieces with equal X rows.

    `addends=` given empty (no addend ticked) is refused by the library, naming the recipe's addends."""
    if addends is not None:
        addends = [name for name in addends if name]  # "addends=" alone: none
    return recipe.place(text, index, position, segment, addends).to_dict()
