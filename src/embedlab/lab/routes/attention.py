"""Attention bridge (simulation 11): MiniLM's first-layer q·k scores on its input embeddings."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from embedlab.data.models import model_dir
from embedlab.models.pretrained import load_query_key
from embedlab.sims.attention import AttentionBridge

router = APIRouter(prefix="/api/attention", tags=["attention"])

MODEL = "minilm"  # the built-in model whose layer 0 is shown
MAX_TEXT = 300  # characters of the sentence
MAX_TOKENS = 64  # pieces, [CLS] and [SEP] included: 12 heads × 4 matrices of T×T stay small
MAX_HEAD = 63  # a bound for the query; the model's own head count is checked by the library


@router.get("")
def attention(
    request: Request,
    text: Annotated[str, Query(min_length=1, max_length=MAX_TEXT)] = "the cat sat on the mat because it was tired",
    head: Annotated[int, Query(ge=0, le=MAX_HEAD)] = 0,
) -> dict:
    """Layer 0's q·k/√d_k and q·k for head `head` on the sentence's input embeddings, both
    softmaxes with each row's entropy and largest weight, and every head's averages of those."""
    lab = request.app.state.lab
    bridge = lab.service(f"attention:{MODEL}",
                         lambda: AttentionBridge(lab.pipeline(MODEL), load_query_key(model_dir(MODEL))))  # fmt: skip
    return bridge.compare(text, max_tokens=MAX_TOKENS).to_dict(head)
