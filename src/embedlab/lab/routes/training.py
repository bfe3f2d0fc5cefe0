"""Embedding space during training (simulation 7): one live run, its snapshots as they arrive.

The page starts a real word2vec run (embedlab.sims.training.LiveRun) on a built-in corpus, polls
/state for new frames, and asks /row for a token's row in one frame. One run at a time per server:
a start while one runs is a 409.
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from embedlab.sims.training import LiveRun, RunBusyError
from embedlab.train.config import RunConfig
from embedlab.train.run import SNAPSHOTS

router = APIRouter(prefix="/api/training", tags=["training"])

DIMS = (2, 8, 32, 100, 300)  # the page's choices; any width in 2..MAX_DIM is accepted
MAX_DIM = 300
MAX_EPOCHS = 10
MIN_WORDS, MAX_WORDS = 1_000, 5_000_000  # the word limit: ~45 s at the 116k words/s of one thread
MAX_TEXT = 100  # characters of a corpus or token name
MAX_FRAMES = 2 * SNAPSHOTS  # a run has SNAPSHOTS + 2 frames at most; `since` beyond them is a mistake
THREADS = 1  # one numba thread: the server's requests keep the other core


class StartRequest(BaseModel):
    """A run to start: every field bounded (unknown fields, such as threads, are refused)."""

    model_config = ConfigDict(extra="forbid")
    corpus: str = Field("enwiki-sample", min_length=1, max_length=MAX_TEXT, description="a built-in corpus name")
    method: Literal["sgns", "cbow"] = "sgns"
    dim: int = Field(8, ge=2, le=MAX_DIM, description=f"row width D, 2..{MAX_DIM}")
    epochs: int = Field(3, ge=1, le=MAX_EPOCHS, description=f"passes over the corpus, 1..{MAX_EPOCHS}")
    max_words: int = Field(MAX_WORDS, ge=MIN_WORDS, le=MAX_WORDS, description="stop after this many words")


def live_run(request: Request) -> LiveRun:
    """The app's one LiveRun, its folders under the lab's cache (closed at shutdown)."""
    lab = request.app.state.lab
    return lab.service("training", lambda: LiveRun(lab.cache_dir / "training"))


@router.get("/options")
def options(request: Request) -> dict:
    """The corpora this server can train on, the methods, the page's dims and every limit."""
    return {"corpora": list(live_run(request).corpora), "methods": ["sgns", "cbow"], "dims": list(DIMS),
            "limits": {"dim": [2, MAX_DIM], "epochs": [1, MAX_EPOCHS], "max_words": [MIN_WORDS, MAX_WORDS]},
            "defaults": StartRequest().model_dump()}  # fmt: skip


@router.post("/start")
def start(request: Request, body: StartRequest) -> JSONResponse:
    """Start a run; 409 while another runs. -> the state with no frames yet."""
    live = live_run(request)
    config = RunConfig(corpus=body.corpus, method=body.method, dim=body.dim, epochs=body.epochs, threads=THREADS)
    try:
        live.start(config, max_words=body.max_words)
    except RunBusyError as err:
        return JSONResponse({"error": str(err)}, status_code=409)
    return JSONResponse(live.state().to_dict())


@router.post("/stop")
def stop(request: Request) -> dict:
    """Stop the run after its current step (waits up to 5 s) -> the state without frames."""
    live = live_run(request)
    live.stop(timeout=5.0)
    return live.state(since=MAX_FRAMES).to_dict()


@router.get("/state")
def state(request: Request, since: Annotated[int, Query(ge=0, le=MAX_FRAMES)] = 0) -> dict:
    """Status, progress, watched tokens (and their themes) and the frames from index `since` on.

    Each frame: `coordinates` (W, 2), the rows' PCA turned to line up with the frame before.
    """
    return live_run(request).state(since).to_dict()


@router.get("/row")
def row(
    request: Request,
    token: Annotated[str, Query(min_length=1, max_length=MAX_TEXT)],
    frame: Annotated[int, Query(ge=0, le=MAX_FRAMES)],
) -> dict:
    """The watched `token`'s row (D,) in frame `frame`, and its norm."""
    snapshot = live_run(request).frame(frame)
    values = snapshot.row(token)
    return {
        "token": token,
        "frame": frame,
        "done": snapshot.done,
        "row": values.tolist(),
        "norm": float(np.linalg.norm(values.astype(np.float64))),
    }
