"""Projector: every row of a served table on one WebGL map (embedlab.sims.projector).

The page asks /info first, then fetches the map's coordinates and a colouring as binary arrays
(little-endian, row-major; the dtype and shape in the X-Dtype and X-Shape headers): a million
points in 3-D are 12 MB as float32, several times that as JSON lists of lists. Keys come once as
a JSON list, for hover text and search. A key searched or clicked comes back with its nearest rows
in the full space and the ranks the map gives them. Another served table can be compared with the
one shown (vectors.compare): a summary, the largest movers, and each row's displacement as a colour.
"""

from __future__ import annotations

import json
from typing import Annotated

import numpy as np
from fastapi import APIRouter, Query, Response

from embedlab.lab.deps import MAX_NAME, LabDep, ProjectorDep
from embedlab.lab.schemas import CompareAnswer, FocusAnswer, Limit, ProjectorInfo, ProjectorKeys
from embedlab.sims.projector import DIMS, MAX_ROWS, NAMES, PALETTE, SCHEMES
from embedlab.vectors.projection import PROJECTIONS

router = APIRouter(prefix="/api/projector", tags=["projector"])

MAX_K = 100  # neighbours of a searched key
MAX_MOVERS = 100  # the largest movers a comparison lists
MAX_TOKEN = 100  # characters of a searched key
LIMITS: dict[str, Limit] = {"k": [1, MAX_K], "token": MAX_TOKEN, "rows": MAX_ROWS, "dims": list(DIMS),
                            "methods": list(PROJECTIONS), "schemes": list(SCHEMES), "top": [1, MAX_MOVERS]}  # fmt: skip

Method = Annotated[str, Query(pattern="^(" + "|".join(PROJECTIONS) + ")$", description="pca (default) or umap")]
Dims = Annotated[int, Query(ge=min(DIMS), le=max(DIMS), description="2 or 3")]
Scheme = Annotated[str, Query(pattern="^(" + "|".join(SCHEMES) + ")$", description="band, theme or norm")]
Token = Annotated[str, Query(min_length=1, max_length=MAX_TOKEN, description=f"a key, 1..{MAX_TOKEN} characters")]
K = Annotated[int, Query(ge=1, le=MAX_K, description=f"neighbours, 1..{MAX_K}")]
Other = Annotated[str, Query(min_length=1, max_length=MAX_NAME, description="the served table to compare with")]
Top = Annotated[int, Query(ge=1, le=MAX_MOVERS, description=f"movers listed, 1..{MAX_MOVERS}")]


class Binary(Response):
    """Raw little-endian array bytes (and nothing else in /openapi.json's description of the route)."""

    media_type = "application/octet-stream"


def binary(array: np.ndarray, **headers: str) -> Binary:
    """An array as raw little-endian bytes; its dtype and shape in the X-Dtype and X-Shape headers."""
    array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    shape = ",".join(map(str, array.shape))
    return Binary(array.tobytes(), headers={"X-Dtype": array.dtype.name, "X-Shape": shape, **headers})


@router.get("/info", response_model=ProjectorInfo)
def info(projector: ProjectorDep) -> dict:
    """The table's size, the colourings it offers (by band only with corpus counts), what each code
    of a colouring means and the colour of each name."""
    vectors = projector.vectors
    names = {scheme: NAMES[scheme] for scheme in projector.schemes}
    return {"table": vectors.name, "rows": len(vectors), "dim": vectors.vector_size,
            "schemes": list(projector.schemes), "names": names, "colours": PALETTE}  # fmt: skip


@router.get("/keys", response_model=ProjectorKeys)
def keys(lab: LabDep, projector: ProjectorDep) -> Response:
    """Every key, in row order, as one JSON list (serialised once per table; returned as bytes, so
    a million keys are not validated again on every request)."""
    name = projector.vectors.name
    body = lab.service(f"projector-keys:{name}", lambda: json.dumps(projector.vectors.index_to_key).encode())
    return Response(body, media_type="application/json")


@router.get("/layout", response_class=Binary)
def layout(projector: ProjectorDep, method: Method = "pca", dims: Dims = 2) -> Binary:
    """(V, dims) float32 coordinates of every row; the caption says how the map was made."""
    answer = projector.layout(method, dims)
    return binary(answer.coordinates, **{"X-Caption": answer.caption(), "X-Seconds": f"{answer.seconds:.3f}"})


@router.get("/colours", response_class=Binary)
def colours(projector: ProjectorDep, by: Scheme = "theme") -> Binary:
    """(V,) each row's colour value: uint8 codes into /info's names (band, theme) or float32 norms."""
    return binary(projector.colours(by).values)


@router.get("/focus", response_model=FocusAnswer)
def focus(projector: ProjectorDep, key: Token, k: K = 10, method: Method = "pca", dims: Dims = 2) -> dict:
    """A key's row, count, point, its k nearest rows by cosine in the full space with their ranks on
    the map, the map's own k nearest points, and how many the two lists share."""
    return {"table": projector.vectors.name, "method": method, "dims": dims,
            **projector.focus(key, k, method, dims).to_dict()}  # fmt: skip


@router.get("/compare", response_model=CompareAnswer)
def compare(lab: LabDep, projector: ProjectorDep, other: Other, k: K = 10, top: Top = 20) -> dict:
    """The table against `other`, key by key: shared keys, Procrustes residual, mean displacement and
    Jaccard@k of neighbour lists, and the `top` largest movers with their neighbours in both."""
    summary = projector.compare(lab.table(other), k).to_dict()
    return {**summary, "movers": summary["movers"][:top]}


@router.get("/displacement", response_class=Binary)
def displacement(lab: LabDep, projector: ProjectorDep, other: Other, k: K = 10) -> Binary:
    """(V,) float32 how far each row moved against `other` after alignment (0..2); NaN where `other`
    lacks the key."""
    return binary(projector.displacement(lab.table(other), k))
