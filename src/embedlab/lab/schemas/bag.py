"""The Bag of embeddings page's request body (its answers are sims.bag's dataclasses, derived)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from embedlab.sims.bag import LIMITS, BagSettings

DEFAULTS = BagSettings()


def _range(name: str) -> str:
    low, high = LIMITS[name]
    return f"{low}..{high}"


class BagRequest(BaseModel):
    """A classifier run to start (sims.bag.BagSettings). Each value's range is checked by sims.bag, whose
    400 names the value and the range; unknown fields (threads, say) are refused."""

    model_config = ConfigDict(extra="forbid")
    lines: int = Field(DEFAULTS.lines, description=f"training lines, {_range('lines')}")
    dim: int = Field(DEFAULTS.dim, description=f"row width D, {_range('dim')}")
    epochs: int = Field(DEFAULTS.epochs, description=f"passes over the lines, {_range('epochs')}")
    word_ngrams: int = Field(DEFAULTS.word_ngrams, description=f"the longest word n-gram, {_range('word_ngrams')}")
    bucket: int = Field(DEFAULTS.bucket, description=f"hashed n-gram rows, {_range('bucket')}")
    lr: float = Field(DEFAULTS.lr, description=f"the starting rate, {_range('lr')}")
