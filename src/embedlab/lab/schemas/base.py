"""What the lab's own answers share: the strict base model and the type of a limit."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

Limit = int | float | str | list[int] | list[float] | list[str]  # a bound, a [low, high] pair, or the choices


class Answer(BaseModel):
    """A response body: exactly these fields."""

    model_config = ConfigDict(extra="forbid")
