"""What every lab answer shares: the strict base model and the types of vectors and limits."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

Vector = list[float]
Matrix = list[list[float]]
Limit = int | float | str | list[int] | list[float] | list[str]  # a bound, a [low, high] pair, or the choices


class Answer(BaseModel):
    """A response body: exactly these fields."""

    model_config = ConfigDict(extra="forbid")
