"""Attention bridge (simulation 11): MiniLM's first-layer q·k scores on its input embeddings."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import BridgeDep
from embedlab.lab.schemas import AttentionAnswer, Limit

router = APIRouter(prefix="/api/attention", tags=["attention"])

MAX_TEXT = 300  # characters of the sentence
MAX_TOKENS = 64  # pieces, [CLS] and [SEP] included: 12 heads × 4 matrices of T×T stay small
MAX_HEAD = 63  # a bound for the query; the model's own head count is checked by the library
LIMITS: dict[str, Limit] = {"text": MAX_TEXT, "tokens": MAX_TOKENS, "head": [0, MAX_HEAD]}


@router.get("", response_model=AttentionAnswer)
def attention(
    bridge: BridgeDep,
    text: Annotated[str, Query(min_length=1, max_length=MAX_TEXT)] = "the cat sat on the mat because it was tired",
    head: Annotated[int, Query(ge=0, le=MAX_HEAD)] = 0,
) -> dict:
    """Layer 0's q·k/√d_k and q·k for head `head` on the sentence's input embeddings, both
    softmaxes with each row's entropy and largest weight, and every head's averages of those."""
    return bridge.compare(text, max_tokens=MAX_TOKENS).to_dict(head)
