"""Embedding space during training (simulation 7): one live run, its snapshots as they arrive.

The page starts a real word2vec run (embedlab.sims.training.LiveRun) on a built-in corpus, polls
/state for new frames of the theme groups picked, and asks /row for a token's row in one frame.
One run at a time per server: a start while one runs is a 409 (BusyError, answered by the
app's error handler).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import LiveRunDep, ThemeNames
from embedlab.lab.schemas import (
    DIMS,
    MAX_DIM,
    MAX_EPOCHS,
    MAX_NAME,
    MAX_WORDS,
    MIN_WORDS,
    Limit,
    StartRequest,
    TrainingOptions,
    TrainingState,
    WatchedRowAnswer,
)
from embedlab.train.config import RunConfig
from embedlab.train.run import SNAPSHOTS

router = APIRouter(prefix="/api/training", tags=["training"])

MAX_FRAMES = 2 * SNAPSHOTS  # a run has SNAPSHOTS + 2 frames at most; `since` beyond them is a mistake
THREADS = 1  # one numba thread: the server's requests keep the other core
METHODS = ("sgns", "cbow")
LIMITS: dict[str, Limit] = {"dim": [2, MAX_DIM], "epochs": [1, MAX_EPOCHS], "max_words": [MIN_WORDS, MAX_WORDS]}

FrameIndex = Annotated[int, Query(ge=0, le=MAX_FRAMES)]


@router.get("/options", response_model=TrainingOptions)
def options(live: LiveRunDep) -> dict:
    """The corpora this server can train on, the methods, the page's dims and the defaults."""
    return {"corpora": list(live.corpora), "methods": list(METHODS), "dims": list(DIMS), "defaults": StartRequest()}


@router.post("/start", response_model=TrainingState)
def start(live: LiveRunDep, body: StartRequest) -> dict:
    """Start a run; 409 while another runs. -> the state with no frames yet."""
    config = RunConfig(corpus=body.corpus, method=body.method, dim=body.dim, epochs=body.epochs, threads=THREADS)
    live.start(config, max_words=body.max_words)
    return live.state().to_dict()


@router.post("/stop", response_model=TrainingState)
def stop(live: LiveRunDep) -> dict:
    """Stop the run after its current step (waits up to 5 s) -> the state without frames."""
    live.stop(timeout=5.0)
    return live.state(since=MAX_FRAMES).to_dict()


@router.get("/state", response_model=TrainingState)
def state(live: LiveRunDep, since: FrameIndex = 0, themes: ThemeNames = None) -> dict:
    """Status, progress, watched tokens (and their themes) and the frames from index `since` on;
    only the tokens of the `themes` groups when given (default: every watched token).

    Each frame: `coordinates` (W, 2), the rows' PCA turned to line up with the frame before.
    """
    return live.state(since, themes).to_dict()


@router.get("/row", response_model=WatchedRowAnswer)
def row(live: LiveRunDep, token: Annotated[str, Query(min_length=1, max_length=MAX_NAME)], frame: FrameIndex) -> dict:
    """The watched `token`'s row (D,) in frame `frame`, and its norm."""
    return live.row(token, frame).to_dict()
