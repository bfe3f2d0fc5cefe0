"""The lab's request bodies and its own answers, as /openapi.json documents them.

A page's answer is written once, as a dataclass in its sims module with a comment after each
field; `answer_model(cls)` derives the response model from it (derive.py), so no answer is
retyped here. What stays here is what no sims module returns: request bodies and the lab's own
answers. Every name is importable from here.

base.py       Answer (the strict base), Limit
derive.py     answer_model: a route's response model derived from a sims dataclass
tables.py     the lab's own answers: the served tables, the limits and the themes
training.py   the training page's request body (StartRequest)
bag.py        the Bag of embeddings page's request body (BagRequest)
projector.py  the projector's key list (ProjectorKeys), a body sent as bytes
"""

from embedlab.lab.schemas.bag import BagRequest
from embedlab.lab.schemas.base import Answer, Limit
from embedlab.lab.schemas.derive import answer_model
from embedlab.lab.schemas.projector import ProjectorKeys
from embedlab.lab.schemas.tables import LabConfig, TableList, Themes
from embedlab.lab.schemas.training import StartRequest

__all__ = [
    "Answer",
    "BagRequest",
    "LabConfig",
    "Limit",
    "ProjectorKeys",
    "StartRequest",
    "TableList",
    "Themes",
    "answer_model",
]
