"""Sparse gradients (simulation 10): the rows of dE a batch touches, SGD vs Adam, update counts."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/gradients", tags=["gradients"])
