"""What every page asks first: the served tables, each page's limits and the theme palette.

A page's limits live in its sims module (its LIMITS, read by its route's query bounds and checked
by the library too), and the theme groups and their colours in embedlab.data.themes: the pages read
them here and never retype them.
"""

from __future__ import annotations

from importlib import import_module

from fastapi import APIRouter

from embedlab.data.themes import COLOURS, OTHER, THEMES
from embedlab.lab.deps import LabDep
from embedlab.lab.pages import PAGES
from embedlab.lab.schemas import LabConfig, TableList
from embedlab.sims import lookup

router = APIRouter(prefix="/api", tags=["lab"])

SIMS = {name: import_module(f"embedlab.sims.{name}") for name in PAGES}  # page name -> its sims module


@router.get("/tables", response_model=TableList)
def tables(lab: LabDep) -> dict:
    """The tables this server was started with, by name (loaded on first use)."""
    return {"tables": lab.names}


@router.get("/config", response_model=LabConfig)
def config() -> dict:
    """The pages in the nav's order with their titles, each page's limits (a bound, a [low, high]
    pair, or the choices) and the theme groups with their colours."""
    themes = {"names": list(THEMES), "other": OTHER, "chosen": lookup.CHOSEN, "colours": COLOURS}
    return {"pages": PAGES, "themes": themes, "limits": {name: module.LIMITS for name, module in SIMS.items()}}
