"""Tied vs untied (simulation 5): logits h·Eᵀ over a small vocabulary and the parameter counts."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/tying", tags=["tying"])
