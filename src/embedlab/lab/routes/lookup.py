"""Lookup (simulation 1): a token's row, a 2-D map of a themed set, one-hot × E."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/lookup", tags=["lookup"])
