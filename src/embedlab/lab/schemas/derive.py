"""Response models derived from the library's answer dataclasses, so an answer's fields are
written once: in `sims/` (or `vectors/`, `sizing`, ...), with a comment after each field.

    @dataclass(frozen=True)
    class RowLookup:                 # sims/lookup.py
        key: str
        row: Vector  # (D,) float32, E[i]

    @router.get("/row", response_model=answer_model(RowLookup))
    def row(...) -> RowLookup: ...   # the route returns the dataclass itself

`answer_model(cls)` reads the dataclass's type hints and turns each into what JSON holds:
`Vector`/`Matrix`/`IdVector` (files.JsonArray) -> nested lists, tuples -> lists, a nested
dataclass -> its own derived model, floats -> float or null (NaN and ±inf have no JSON form).
The comment after a field becomes its description in /openapi.json. A bare `np.ndarray` field
has no JSON form to derive: naming it raises TypeError when the route module is imported.
The model validates what the route returns after `files.json_safe` (arrays -> lists), and, like
every answer, forbids fields it does not declare.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
import typing
from functools import cache
from typing import Annotated, Any, Literal, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from embedlab.files import JsonArray, json_safe

_FIELD_COMMENT = re.compile(r"^    (\w+)\s*:[^#]*#\s*(.+?)\s*$")  # a field of the class body, its comment


class DerivedAnswer(BaseModel):
    """The base of every derived model: exactly the dataclass's fields, JSON-safe values in."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _json_safe(cls, data: Any) -> Any:
        return json_safe(data)


@cache
def answer_model(cls: type) -> type[BaseModel]:
    """The pydantic model that documents and checks the JSON form of the dataclass `cls`."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls, include_extras=True)
    docs = field_docs(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        kind = json_type(hints[f.name], f"{cls.__qualname__}.{f.name}")
        fields[f.name] = (kind, Field(description=docs.get(f.name)))
    model = create_model(cls.__name__, __base__=DerivedAnswer, __module__=cls.__module__, **fields)
    model.__doc__ = inspect.getdoc(cls) if cls.__doc__ and not cls.__doc__.startswith(cls.__name__ + "(") else None
    return model


def json_type(hint: Any, where: str) -> Any:
    """The type of what JSON holds for a value of type `hint` (`where` names it in errors)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Annotated:
        marker = next((a for a in args[1:] if isinstance(a, JsonArray)), None)
        if marker is None:
            return json_type(args[0], where)
        item: Any = float | None if marker.item is float else marker.item
        for _ in range(marker.ndim):
            item = list[item]
        return item
    if hint is np.ndarray or origin is np.ndarray:
        raise TypeError(f"{where} is a bare np.ndarray: annotate it files.Vector, Matrix, IdVector or IdMatrix")
    if hint is float:
        return float | None
    if dataclasses.is_dataclass(hint):
        return answer_model(hint)
    if origin in (list, tuple, set, frozenset):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return tuple[tuple(json_type(a, where) for a in args)]  # fixed length: (a, b)
        return list[json_type(args[0], where)] if args else list
    if origin is dict:
        return dict[args[0], json_type(args[1], where)] if args else dict
    if origin in (Union, types.UnionType):
        return Union[tuple(json_type(a, where) for a in args)]  # noqa: UP007 (a runtime union of derived types)
    if origin is Literal or hint in (int, str, bool, type(None), Any):
        return hint
    return hint  # anything else is left to pydantic, which raises at import if it cannot


def field_docs(cls: type) -> dict[str, str]:
    """field -> the comment after it in the class body (`dim: int  # D` -> {"dim": "D"})."""
    try:
        lines = inspect.getsource(cls).splitlines()
    except (OSError, TypeError):  # no source (a class made at run time)
        return {}
    names = {f.name for f in dataclasses.fields(cls)}
    docs = {}
    for line in lines:
        match = _FIELD_COMMENT.match(line)
        if match and match.group(1) in names and match.group(1) not in docs:
            docs[match.group(1)] = match.group(2)
    return docs
