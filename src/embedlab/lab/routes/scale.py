"""Scale balance (simulation 6): token rows at their initial scale against sinusoidal positions."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/scale", tags=["scale"])
