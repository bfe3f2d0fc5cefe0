"""Attention bridge (simulation 11): MiniLM's q·k scores in any layer and head."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import BridgeDep
from embedlab.lab.schemas import AttentionAnswer, Limit

router = APIRouter(prefix="/api/attention", tags=["attention"])

MAX_TEXT = 300  # characters of the sentence
MAX_TOKENS = 64  # pieces, [CLS] and [SEP] included: 12 heads × 4 matrices of T×T stay small
MAX_HEAD = 63  # bounds for the query; the model's own head and layer counts are checked by the library
MAX_LAYER = 63
LIMITS: dict[str, Limit] = {"text": MAX_TEXT, "tokens": MAX_TOKENS, "head": [0, MAX_HEAD], "layer": [0, MAX_LAYER]}


@router.get("", response_model=AttentionAnswer)
def attention(
    bridge: BridgeDep,
    text: Annotated[str, Query(min_length=1, max_length=MAX_TEXT)] = "the cat sat on the mat because it was tired",
    head: Annotated[int, Query(ge=0, le=MAX_HEAD)] = 0,
    layer: Annotated[int, Query(ge=0, le=MAX_LAYER)] = 0,
) -> dict:
    """Encoder layer `layer`'s q·k/√d_k and q·k for head `head` (layer 0: on the sentence's input
    embeddings), both softmaxes with each row's entropy and largest weight, and every head's
    averages of those."""
    return bridge.compare(text, layer=layer, max_tokens=MAX_TOKENS).to_dict(head)
