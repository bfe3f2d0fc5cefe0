"""The lab's request and response bodies, as /openapi.json documents them.

A page's answer is written once, as a dataclass in its sims module; `answer_model(cls)` derives the
response model from it (derive.py). The models here are requests, the lab's own answers, and the
answers of the pages not yet derived, which mirror the library's `to_dict()` outputs field for field
(extra="forbid": a field the library adds and a model here lacks fails the route's tests instead of
going undocumented). Vectors are lists of floats, matrices lists of rows. Every name is importable
from here.

base.py       Answer (the strict base), Vector, Matrix, Limit
derive.py     answer_model: a route's response model derived from a sims dataclass
tables.py     the lab's own answers: the served tables, the limits and the themes
inputs.py     static vs contextual
training.py   training, subwords, the strategy arena
projector.py  the projector: a whole table's map, a key's neighbours on it, two tables compared
"""

from embedlab.lab.schemas.base import Answer, Limit, Matrix, Vector
from embedlab.lab.schemas.derive import answer_model
from embedlab.lab.schemas.inputs import (
    ContextAnswer,
    ContextAttention,
    ContextLayer,
    ContextMap,
    MapToken,
    NearestRow,
    OccurrenceAnswer,
)
from embedlab.lab.schemas.projector import (
    CompareAnswer,
    FocusAnswer,
    MapNeighbour,
    Mover,
    ProjectorInfo,
    ProjectorKeys,
)
from embedlab.lab.schemas.tables import (
    LabConfig,
    TableList,
    Themes,
)
from embedlab.lab.schemas.training import (
    DIMS,
    MAX_DIM,
    MAX_EPOCHS,
    MAX_NAME,
    MAX_WORDS,
    MIN_WORDS,
    ArenaEvent,
    ArenaState,
    CorpusVocabularies,
    FrameAnswer,
    LeftOutAnswer,
    PieceAnswer,
    RungAnswer,
    SplitAnswer,
    SplitView,
    StartRequest,
    SubwordTableAnswer,
    TrainingOptions,
    TrainingState,
    VocabulariesAnswer,
    VocabularyState,
    WatchedRowAnswer,
)

__all__ = [
    "answer_model",
    "CompareAnswer",
    "FocusAnswer",
    "Mover",
    "MapNeighbour",
    "ProjectorInfo",
    "ProjectorKeys",
    "Answer",
    "ArenaEvent",
    "ArenaState",
    "ContextAnswer",
    "ContextAttention",
    "ContextLayer",
    "ContextMap",
    "CorpusVocabularies",
    "DIMS",
    "FrameAnswer",
    "LabConfig",
    "LeftOutAnswer",
    "Limit",
    "MAX_DIM",
    "MAX_EPOCHS",
    "MAX_NAME",
    "MAX_WORDS",
    "MIN_WORDS",
    "MapToken",
    "Matrix",
    "NearestRow",
    "OccurrenceAnswer",
    "PieceAnswer",
    "RungAnswer",
    "SplitAnswer",
    "SplitView",
    "StartRequest",
    "SubwordTableAnswer",
    "TableList",
    "Themes",
    "TrainingOptions",
    "TrainingState",
    "Vector",
    "VocabulariesAnswer",
    "VocabularyState",
    "WatchedRowAnswer",
]
