"""What every page asks first: the served tables, each page's limits and the theme palette.

A page's limits live in its sims module (its LIMITS, read by its route's query bounds and checked
by the library too), and the theme groups and their colours in embedlab.data.themes: the pages read
them here and never retype them.
"""

from __future__ import annotations

from fastapi import APIRouter

from embedlab.data.themes import COLOURS, OTHER, THEMES
from embedlab.lab.deps import LabDep
from embedlab.lab.schemas import LabConfig, TableList
from embedlab.sims import (
    arena,
    attention,
    context,
    geometry,
    gradients,
    lookup,
    patches,
    projector,
    recipe,
    scale,
    size,
    subwords,
    training,
    tying,
)

router = APIRouter(prefix="/api", tags=["lab"])

NAV = (
    lookup,
    size,
    recipe,
    patches,
    tying,
    scale,
    training,
    subwords,
    geometry,
    gradients,
    attention,
    context,
    arena,
    projector,
)  # each page's sims module, in the nav's order
PAGES = {module.__name__.rsplit(".", 1)[-1]: module for module in NAV}  # page name -> its sims module


@router.get("/tables", response_model=TableList)
def tables(lab: LabDep) -> dict:
    """The tables this server was started with, by name (loaded on first use)."""
    return {"tables": lab.names}


@router.get("/config", response_model=LabConfig)
def config() -> dict:
    """Each page's limits (a bound, a [low, high] pair, or the choices) and the theme groups with
    their colours."""
    themes = {"names": list(THEMES), "other": OTHER, "chosen": lookup.CHOSEN, "colours": COLOURS}
    return {"themes": themes, "limits": {name: module.LIMITS for name, module in PAGES.items()}}
