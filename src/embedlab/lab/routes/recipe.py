"""Input recipe (simulation 3): token, position and segment addends, their sum and LayerNorm."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/recipe", tags=["recipe"])
