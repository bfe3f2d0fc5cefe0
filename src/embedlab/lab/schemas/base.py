"""What the lab's own answers share: the strict base model and the type of a limit."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

# a bound, a [low, high] pair, the choices, or per choice its named lists (the recipes' special tokens)
Limit = int | float | str | list[int] | list[float] | list[str] | dict[str, dict[str, list[str]]]


class Answer(BaseModel):
    """A response body: exactly these fields."""

    model_config = ConfigDict(extra="forbid")
