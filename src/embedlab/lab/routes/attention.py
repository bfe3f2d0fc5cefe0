"""Attention bridge (simulation 11): MiniLM's first-layer q·k scores on its input embeddings."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/attention", tags=["attention"])
