"""Response models derived from answer dataclasses (lab/schemas/derive.py): each field's JSON type,
its description from the comment after it, and what a dataclass cannot declare."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from pydantic import ValidationError

from embedlab.files import IdVector, Matrix, Vector
from embedlab.lab.schemas import answer_model


@dataclass(frozen=True)
class Inner:
    name: str  # what the inner part is called
    weights: Vector  # (n,) its weights


@dataclass(frozen=True)
class Outer:
    ids: IdVector  # (n,) int64 ids
    grid: Matrix  # (n, m) values
    score: float  # a score that may be undefined (NaN)
    parts: tuple[Inner, ...]  # every inner part
    pair: tuple[int, str]  # a fixed pair
    best: Inner | None = None  # the best part, if any


def _outer() -> Outer:
    inner = Inner("a", np.array([0.5, np.nan], dtype=np.float32))
    return Outer(np.array([3, 1]), np.eye(2), float("nan"), (inner,), (1, "x"), inner)


def test_a_dataclass_with_arrays_validates_as_plain_json():
    model = answer_model(Outer)
    body = model.model_validate(_outer()).model_dump()
    assert body == {
        "ids": [3, 1],
        "grid": [[1.0, 0.0], [0.0, 1.0]],
        "score": None,  # NaN has no JSON form
        "parts": [{"name": "a", "weights": [0.5, None]}],
        "pair": (1, "x"),
        "best": {"name": "a", "weights": [0.5, None]},
    }


def test_the_comment_after_a_field_is_its_description():
    schema = answer_model(Outer).model_json_schema()
    assert schema["properties"]["ids"]["description"] == "(n,) int64 ids"
    assert schema["properties"]["ids"]["items"] == {"type": "integer"}
    inner = schema["$defs"]["Inner"]["properties"]
    assert inner["weights"]["description"] == "(n,) its weights"


def test_a_field_the_dataclass_lacks_is_refused():
    model = answer_model(Inner)
    with pytest.raises(ValidationError, match="extra"):
        model.model_validate({"name": "a", "weights": [1.0], "unexpected": 1})


def test_a_bare_array_field_has_no_json_form():
    @dataclass
    class Bare:
        rows: np.ndarray  # no marker: a Vector? a Matrix?

    with pytest.raises(TypeError, match=r"Bare.rows is a bare np.ndarray: annotate it files.Vector"):
        answer_model(Bare)
    with pytest.raises(TypeError, match="is not a dataclass"):
        answer_model(int)
