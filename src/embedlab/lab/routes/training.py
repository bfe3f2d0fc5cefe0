"""Embedding space during training (simulation 7): one live run, its snapshots as they arrive.

The page starts a real word2vec run (embedlab.sims.training.LiveRun) on a built-in corpus, polls
/state for new frames of the theme groups picked, and asks /row for a token's row in one frame.
One run at a time per server: a start while one runs is a 409 (BusyError, answered by the
app's error handler).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import LiveRunDep, ThemeNames, Token
from embedlab.lab.schemas import StartRequest, answer_model
from embedlab.sims.training import MAX_FRAMES, PageRun, TrainingOptions, TrainingState, WatchedRow

router = APIRouter(prefix="/api/training", tags=["training"])


FrameIndex = Annotated[int, Query(ge=0, le=MAX_FRAMES)]


@router.get("/options", response_model=answer_model(TrainingOptions))
def options(live: LiveRunDep) -> TrainingOptions:
    """The corpora this server can train on, the methods, the page's dims and the defaults."""
    return live.options()


@router.post("/start", response_model=answer_model(TrainingState))
def start(live: LiveRunDep, body: StartRequest) -> TrainingState:
    """Start a run; 409 while another runs. -> the state with no frames yet."""
    return live.start_page_run(PageRun(**body.model_dump()))


@router.post("/stop", response_model=answer_model(TrainingState))
def stop(live: LiveRunDep) -> TrainingState:
    """Stop the run after its current step (waits up to 5 s) -> the state without frames."""
    return live.stop(timeout=5.0)


@router.get("/state", response_model=answer_model(TrainingState))
def state(live: LiveRunDep, since: FrameIndex = 0, themes: ThemeNames = None) -> TrainingState:
    """Status, progress, watched tokens (and their themes) and the frames from index `since` on;
    only the tokens of the `themes` groups when given (default: every watched token).

    Each frame: `coordinates` (W, 2), the rows' PCA turned to line up with the frame before.
    """
    return live.state(since, themes)


@router.get("/row", response_model=answer_model(WatchedRow))
def row(live: LiveRunDep, token: Token, frame: FrameIndex) -> WatchedRow:
    """The watched `token`'s row (D,) in frame `frame`, and its norm."""
    return live.row(token, frame)
