"""The training page's request body (its answers are sims.training's dataclasses, derived)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from embedlab.sims.training import MAX_DIM, MAX_EPOCHS, MAX_NAME, MAX_WORDS, METHODS, MIN_WORDS, PageRun

DEFAULTS = PageRun()


class StartRequest(BaseModel):
    """A run to start (sims.training.PageRun): every field bounded (unknown fields, such as threads,
    are refused)."""

    model_config = ConfigDict(extra="forbid")
    corpus: str = Field(DEFAULTS.corpus, min_length=1, max_length=MAX_NAME, description="a built-in corpus name")
    method: Literal[METHODS] = DEFAULTS.method  # type: ignore[valid-type]
    dim: int = Field(DEFAULTS.dim, ge=2, le=MAX_DIM, description=f"row width D, 2..{MAX_DIM}")
    epochs: int = Field(DEFAULTS.epochs, ge=1, le=MAX_EPOCHS, description=f"passes over the corpus, 1..{MAX_EPOCHS}")
    max_words: int = Field(DEFAULTS.max_words, ge=MIN_WORDS, le=MAX_WORDS, description="stop after this many words")
