"""Patches (simulation 4): a real photograph cut into patches and projected by PatchEmbedding."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/patches", tags=["patches"])
