"""Projector: every row of a served table on one WebGL map (embedlab.sims.projector).

The page asks /info first, then fetches the map's coordinates and a colouring as binary arrays
(little-endian, row-major; the dtype and shape in the X-Dtype and X-Shape headers): a million
points in 3-D are 12 MB as float32, several times that as JSON lists of lists. Keys come once as
a JSON list, for hover text and search. A key searched or clicked comes back with its nearest rows
in the full space and the ranks the map gives them. Another served table can be compared with the
one shown (vectors.compare): a summary, the largest movers, and each row's displacement as a colour.

A UMAP map's first request waits for its fit (a minute or two on MiniLM), which runs in a child
process: the lab's other requests are served meanwhile, and /info's `made` tells the page to say so.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from embedlab.lab.deps import MAX_NAME, HeavyDep, HeavySlot, LabDep, ProjectorDep, Token, one_of
from embedlab.lab.schemas import ProjectorKeys, answer_model
from embedlab.sims import projector as sims
from embedlab.sims.projector import DIMS, MAX_K, MAX_MOVERS, PROJECTIONS, SCHEMES, Comparison, Focus, ProjectorInfo

router = APIRouter(prefix="/api/projector", tags=["projector"])


Method = Annotated[str, one_of(PROJECTIONS, "pca (default) or umap")]
Dims = Annotated[int, Query(ge=min(DIMS), le=max(DIMS), description="2 or 3")]
Scheme = Annotated[str, one_of(SCHEMES, "band, theme or norm")]
K = Annotated[int, Query(ge=1, le=MAX_K, description=f"neighbours, 1..{MAX_K}")]
Other = Annotated[str, Query(min_length=1, max_length=MAX_NAME, description="the served table to compare with")]
Top = Annotated[int, Query(ge=1, le=MAX_MOVERS, description=f"movers listed, 1..{MAX_MOVERS}")]


class Binary(Response):
    """Raw little-endian array bytes (and nothing else in /openapi.json's description of the route)."""

    media_type = "application/octet-stream"


@router.get("/info", response_model=answer_model(ProjectorInfo))
def info(projector: ProjectorDep) -> ProjectorInfo:
    """The table's size, the colourings it offers (by band only with corpus counts), what each code
    of a colouring means, the colour of each name, and the maps made so far."""
    return projector.info()


@router.get("/keys", response_model=ProjectorKeys)
def keys(projector: ProjectorDep) -> Response:
    """Every key, in row order, as one JSON list (serialised once per table; returned as bytes, so
    a million keys are not validated again on every request)."""
    return Response(projector.keys_json(), media_type="application/json")


@router.get("/layout", response_class=Binary)
def layout(projector: ProjectorDep, method: Method = "pca", dims: Dims = 2) -> Binary:
    """(V, dims) float32 coordinates of every row; the caption says how the map was made. A UMAP
    map's first request waits for the fit."""
    answer = projector.layout(method, dims)
    body, headers = sims.wire(answer.coordinates)
    return Binary(body, headers={**headers, "X-Caption": answer.caption(), "X-Seconds": f"{answer.seconds:.3f}"})


@router.get("/colours", response_class=Binary)
def colours(projector: ProjectorDep, by: Scheme = "theme") -> Binary:
    """(V,) each row's colour value: uint8 codes into /info's names (band, theme) or float32 norms."""
    body, headers = sims.wire(projector.colours(by).values)
    return Binary(body, headers=headers)


@router.get("/focus", response_model=answer_model(Focus))
def focus(projector: ProjectorDep, key: Token, k: K = 10, method: Method = "pca", dims: Dims = 2) -> Focus:
    """A key's row, count, point, its k nearest rows by cosine in the full space with their ranks on
    the map, the map's own k nearest points, and how many the two lists share."""
    return projector.focus(key, k, method, dims)


def _compare_in_turn(projector: sims.Projector, other: sims.Vectors, k: int, heavy: HeavySlot) -> None:
    """Make the comparison with `other` in the heavy queue, unless it is made already (seconds on
    MiniLM's 30,522 keys once; a kept one is served without queueing behind another page's work)."""
    if not projector.compared(other, k):
        heavy.compute(lambda: projector.compare(other, k))


@router.get("/compare", response_model=answer_model(Comparison))
def compare(
    lab: LabDep, projector: ProjectorDep, heavy: HeavyDep, other: Other, k: K = 10, top: Top = 20
) -> Comparison:
    """The table against `other`, key by key: shared keys, Procrustes residual, mean displacement and
    Jaccard@k of neighbour lists (each key's k nearest among the shared keys, in each table's own
    space), and the `top` largest movers with their neighbours in both."""
    _compare_in_turn(projector, lab.table(other), k, heavy)
    return projector.comparison(lab.table(other), k, top)


@router.get("/displacement", response_class=Binary)
def displacement(lab: LabDep, projector: ProjectorDep, heavy: HeavyDep, other: Other, k: K = 10) -> Binary:
    """(V,) float32 how far each row moved against `other` after alignment (0..2); NaN where `other`
    lacks the key."""
    _compare_in_turn(projector, lab.table(other), k, heavy)
    body, headers = sims.wire(projector.displacement(lab.table(other), k))
    return Binary(body, headers=headers)
