"""Strategy arena (simulation 13): a real race's results, or a quick race started from the page.

One race at a time per server: a start while one runs is a 409 (BusyError, answered by the
app's error handler). The page polls GET /api/arena for progress while a race runs.
"""

from __future__ import annotations

from fastapi import APIRouter

from embedlab.lab.deps import ArenaDep
from embedlab.lab.schemas import answer_model
from embedlab.sims.arena import ArenaState

router = APIRouter(prefix="/api/arena", tags=["arena"])


@router.get("", response_model=answer_model(ArenaState))
def state(arena: ArenaDep) -> ArenaState:
    """The running race's progress (if any), the best finished race found (a full race run with
    `embedlab arena --out CACHE/lab/arena/full`, else the quick race) and the budget sweep found
    (`embedlab arena --sweep --out CACHE/lab/arena/sweep`, else `sweep-quick`; null before any)."""
    return arena.state()


@router.post("/start", response_model=answer_model(ArenaState))
def start(arena: ArenaDep) -> ArenaState:
    """Start (or resume) the quick race in the background; 409 while one runs."""
    return arena.start()
