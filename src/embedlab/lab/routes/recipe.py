"""Input recipe (simulation 3): token, position and segment addends, their sum and LayerNorm.

"bert" is MiniLM's real input embedding; "gpt2" and "transformer" are fresh layers of the same
size (MiniLM's vocabulary and width, seed 0) fed MiniLM's token ids, so the three compare.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Query, Request

from embedlab.errors import InvalidValueError
from embedlab.models.pipeline import Pipeline

router = APIRouter(prefix="/api/recipe", tags=["recipe"])

RECIPE_NAMES = ("bert", "gpt2", "transformer")
SEED = 0  # fresh recipes: the same layers at every start
MAX_TEXT = 200  # characters
MAX_TOKENS = 64  # pieces, [CLS] and [SEP] included
MAX_POSITION = 4999  # the longest table served (transformer: 5000 sinusoid rows); each recipe checks its own


def pipeline(request: Request, name: str) -> Pipeline:
    """The recipe's pipeline, built once per app; bert is MiniLM's own (shared with other simulations)."""
    lab = request.app.state.lab
    if name == "bert":
        return lab.pipeline("minilm")
    return lab.service(f"recipe:{name}", lambda: Pipeline.fresh(name, "minilm", seed=SEED))


@router.get("")
def place(
    request: Request,
    recipe: Annotated[str, Query(pattern="^(" + "|".join(RECIPE_NAMES) + ")$")] = "bert",
    text: Annotated[str, Query(min_length=1, max_length=MAX_TEXT)] = "the cat sat on the mat",
    index: Annotated[int, Query(ge=0, lt=MAX_TOKENS, description="which piece of the text")] = 2,
    position: Annotated[int | None, Query(ge=0, le=MAX_POSITION, description="default: where it stands")] = None,
    segment: Annotated[int | None, Query(ge=0, le=1, description="bert only; default: its own")] = None,
) -> dict:
    """Piece `index` of `text` at `position` under `recipe`: its addends, sum, output and norms."""
    pipe = pipeline(request, recipe)
    walk = pipe.walk(text)
    if len(walk.ids) > MAX_TOKENS:
        raise InvalidValueError(f"the text is {len(walk.ids)} tokens long; the lab takes at most {MAX_TOKENS}")
    placed = pipe.place(walk, index, position, segment)
    return {"recipe": recipe, "pretrained": recipe == "bert", "config": asdict(pipe.embedding.config),
            "pieces": walk.pieces, "ids": walk.ids, "index": index, **placed.to_dict()}  # fmt: skip
