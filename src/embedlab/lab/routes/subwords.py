"""Subword explorer (simulation 8): a word's pieces under 1K, 8K and 32K vocabularies."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/subwords", tags=["subwords"])
