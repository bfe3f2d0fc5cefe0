"""Embedding space during training (simulation 7): one live run, its snapshots as they arrive."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/training", tags=["training"])
