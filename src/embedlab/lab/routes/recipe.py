"""Input recipe (simulation 3): token, position and segment addends, their sum and LayerNorm
(embedlab.sims.recipe; the recipe and its pipeline come from deps.RecipeDep)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import RecipeDep
from embedlab.lab.schemas import Limit, RecipeAnswer
from embedlab.layers.recipes import RECIPES
from embedlab.sims.recipe import MAX_TOKENS, PRETRAINED, RECIPE_NAMES

router = APIRouter(prefix="/api/recipe", tags=["recipe"])

MAX_TEXT = 200  # characters
MAX_POSITION = 4999  # the longest table served (transformer: 5000 sinusoid rows); each recipe checks its own
LIMITS: dict[str, Limit] = {
    "text": MAX_TEXT, "tokens": MAX_TOKENS, "position": [0, MAX_POSITION], "recipes": list(RECIPE_NAMES),
    "pretrained": PRETRAINED, "segmented": [name for name in RECIPE_NAMES if RECIPES[name].get("n_segments")],
}  # fmt: skip


@router.get("", response_model=RecipeAnswer)
def place(
    recipe: RecipeDep,
    text: Annotated[str, Query(min_length=1, max_length=MAX_TEXT)] = "the cat sat on the mat",
    index: Annotated[int, Query(ge=0, lt=MAX_TOKENS, description="which piece of the text")] = 2,
    position: Annotated[int | None, Query(ge=0, le=MAX_POSITION, description="default: where it stands")] = None,
    segment: Annotated[int | None, Query(ge=0, le=1, description="bert only; default: its own")] = None,
) -> dict:
    """Piece `index` of `text` at `position` under `recipe`: its addends, sum, output and norms."""
    return recipe.place(text, index, position, segment).to_dict()
