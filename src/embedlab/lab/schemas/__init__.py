"""The lab's request and response bodies, as /openapi.json documents them.

Responses mirror the library's `to_dict()` outputs field for field (extra="forbid": a field the
library adds and a model here lacks fails the route's tests instead of going undocumented).
Vectors are lists of floats, matrices lists of rows. Every name is importable from here.

base.py       Answer (the strict base), Vector, Matrix, Limit
tables.py     the lab's tables and themes, lookup, size, geometry, sparse gradients
inputs.py     input recipe, patches, tying, scale, attention
training.py   the training page's request body (StartRequest)
projector.py  the projector's key list (ProjectorKeys), a body sent as bytes
"""

from embedlab.lab.schemas.base import Answer, Limit, Matrix, Vector
from embedlab.lab.schemas.derive import answer_model
from embedlab.lab.schemas.inputs import (
    AttentionAnswer,
    HeadLogits,
    HeadSummaries,
    PatchAnswer,
    PatchOptions,
    RecipeAnswer,
    ScaleAnswer,
    TilingAnswer,
    TyingAnswer,
    TyingParameters,
)
from embedlab.lab.schemas.projector import (
    ProjectorKeys,
)
from embedlab.lab.schemas.tables import (
    BatchAnswer,
    LabConfig,
    Moves,
    NeighborsAnswer,
    PairAnswer,
    Scored,
    SizeAnswer,
    StepsAnswer,
    TableList,
    Themes,
    UpdateBand,
    UpdatePoints,
    UpdatesAnswer,
)
from embedlab.lab.schemas.training import (
    StartRequest,
)

__all__ = [
    "answer_model",
    "ProjectorKeys",
    "Answer",
    "AttentionAnswer",
    "BatchAnswer",
    "HeadLogits",
    "HeadSummaries",
    "LabConfig",
    "Limit",
    "Matrix",
    "Moves",
    "NeighborsAnswer",
    "PairAnswer",
    "PatchAnswer",
    "PatchOptions",
    "RecipeAnswer",
    "ScaleAnswer",
    "Scored",
    "SizeAnswer",
    "StartRequest",
    "StepsAnswer",
    "TableList",
    "Themes",
    "TilingAnswer",
    "TyingAnswer",
    "TyingParameters",
    "UpdateBand",
    "UpdatePoints",
    "UpdatesAnswer",
    "Vector",
]
