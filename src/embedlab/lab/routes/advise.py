"""Advise: lesson 001's decision chart walked to a recipe, with this project's evidence beside each
branch (embedlab.sims.advise)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import one_of
from embedlab.lab.schemas import answer_model
from embedlab.sims.advise import (
    LIMITS,
    MAX_BATCH,
    MAX_DIM,
    MAX_IMAGE,
    MAX_LANGUAGES,
    MAX_SEQ,
    MAX_TEXT,
    Advice,
    advice,
)

router = APIRouter(prefix="/api/advise", tags=["advise"])


Size = Annotated[str, Query(max_length=MAX_TEXT, description="a number with an optional unit: 125M, 7B; 300MiB")]


@router.get("", response_model=answer_model(Advice))
def walk(
    modality: Annotated[str, one_of(LIMITS["modalities"])] = "text",
    languages: Annotated[int, Query(ge=1, le=MAX_LANGUAGES)] = 1,
    params: Size = "125M",
    seq_len: Annotated[int, Query(ge=1, le=MAX_SEQ, description="T, tokens per sequence (text)")] = 1024,
    positions: Annotated[str, one_of(LIMITS["positions"])] = "rotary",
    image_size: Annotated[int, Query(ge=1, le=MAX_IMAGE, description="H = W in pixels (image)")] = 224,
    detail: Annotated[str, one_of(LIMITS["details"])] = "standard",
    memory: Size = "",
    batch: Annotated[int, Query(ge=1, le=MAX_BATCH)] = 1,
    dtype: Annotated[str, one_of(LIMITS["dtypes"])] = "fp32",
    dim: Annotated[int, Query(ge=0, le=MAX_DIM, description="D; 0: the nearest real model's width")] = 0,
) -> Advice:
    """The recipe the chart leads to, its sizes, and the path with each branch's evidence and verdict."""
    return advice(modality, languages, params, seq_len, positions, image_size, detail, memory, batch, dtype, dim)
