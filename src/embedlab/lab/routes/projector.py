"""Projector: every row of a served table on one WebGL map (embedlab.sims.projector).

The page asks /info first, then fetches the map's coordinates and a colouring as binary arrays
(little-endian, row-major; the dtype and shape in the X-Dtype and X-Shape headers): a million
points in 3-D are 12 MB as float32, several times that as JSON lists of lists. Keys come once as
a JSON list, for hover text and search. A key searched or clicked comes back with its nearest rows
in the full space and the ranks the map gives them. Another served table can be compared with the
one shown (vectors.compare): a summary, the largest movers, and each row's displacement as a colour.

Any table, whatever its size, is drawn from tiles (sims/projector_tiles.py): /tiles says whether
the map is built (202 with the build's progress while a child process builds it) and what its
quadtree holds; /tile sends one tile's points, rows, colour values and ranks as one binary body; /overlay
its density contours and region labels; /search finds keys among every row (substring or regular
expression); /neighbours a clicked row's nearest rows in the table's own space. The whole-table
routes below them (/layout, /colours, /keys, /focus) serve the 3-D view of tables up to a million
rows.

A UMAP map's first request waits for its fit (a minute or two on MiniLM), which runs in a child
process: the lab's other requests are served meanwhile, and /info's `made` tells the page to say so.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse

from embedlab.lab.deps import (
    HEAVY,
    MAX_NAME,
    HeavyDep,
    HeavySlot,
    LabDep,
    ProjectorDep,
    ProjectorOfDep,
    TiledDep,
    Token,
    one_of,
    whole_table,
)
from embedlab.lab.schemas import ProjectorKeys, answer_model
from embedlab.sims import projector as sims
from embedlab.sims.projector import DIMS, MAX_K, MAX_MOVERS, PROJECTIONS, SCHEMES, Comparison, Focus, ProjectorInfo
from embedlab.sims.projector_tiles import (
    MAX_HITS,
    MAX_PATTERN,
    MOVED,
    Building,
    Overlay,
    Reach,
    SearchHits,
    TileManifest,
)

router = APIRouter(prefix="/api/projector", tags=["projector"])


Method = Annotated[str, one_of(PROJECTIONS, "pca (default) or umap")]
Dims = Annotated[int, Query(ge=min(DIMS), le=max(DIMS), description="2 or 3")]
Scheme = Annotated[str, one_of(SCHEMES, "band, theme or norm")]
K = Annotated[int, Query(ge=1, le=MAX_K, description=f"neighbours, 1..{MAX_K}")]
Other = Annotated[str, Query(min_length=1, max_length=MAX_NAME, description="the served table to compare with")]
Top = Annotated[int, Query(ge=1, le=MAX_MOVERS, description=f"movers listed, 1..{MAX_MOVERS}")]


TILE_PATTERN = r"^\d{1,2}/\d{1,7}/\d{1,7}$"
TileId = Annotated[str, Query(pattern=TILE_PATTERN, max_length=20, description='a tile "z/x/y" ("0/0/0": the root)')]
Build = Annotated[str, Query(min_length=1, max_length=200, description="the build /tiles named (a fingerprint)")]
Colouring = Annotated[str, one_of((*SCHEMES, MOVED), "band, theme, norm, or moved (with other=)")]
Pattern = Annotated[str, Query(min_length=1, max_length=MAX_PATTERN, description="a substring or a regular expression")]
Limit = Annotated[int, Query(ge=1, le=MAX_HITS, description=f"hits sent, 1..{MAX_HITS} (all are counted)")]
Row = Annotated[int, Query(ge=0, description="a row of the table")]


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
    _compare_in_turn(projector, whole_table(lab, other), k, heavy)
    return projector.comparison(whole_table(lab, other), k, top)


@router.get("/displacement", response_class=Binary)
def displacement(lab: LabDep, projector: ProjectorDep, heavy: HeavyDep, other: Other, k: K = 10) -> Binary:
    """(V,) float32 how far each row moved against `other` after alignment (0..2); NaN where `other`
    lacks the key."""
    _compare_in_turn(projector, whole_table(lab, other), k, heavy)
    body, headers = sims.wire(projector.displacement(whole_table(lab, other), k))
    return Binary(body, headers=headers)


# ---- the tiled map (any number of rows) -------------------------------------------------------------


@router.get("/tiles", response_model=answer_model(TileManifest), responses={202: {"model": answer_model(Building)}})
def tiles(tiled: TiledDep, method: Method = "pca") -> JSONResponse:
    """The built map's manifest (bounds, the quadtree's tiles and their rows, contour levels, colourings);
    202 with the build's stage and progress while a child process builds it (the first request starts it)."""
    answer = tiled.manifest(method)
    return JSONResponse(jsonable_encoder(answer), status_code=202 if isinstance(answer, Building) else 200)


@router.get("/tile", response_class=Binary)
def tile(
    lab: LabDep,
    tiled: TiledDep,
    projector_of: ProjectorOfDep,
    heavy: HeavyDep,
    build: Build,
    tile: TileId,
    method: Method = "pca",
    by: Colouring = "theme",
    other: Annotated[str | None, Query(max_length=MAX_NAME)] = None,
    k: K = 10,
) -> Binary:
    """One tile: (n, 2) float32 points, (n,) uint32 rows, (n,) colour values (uint8 codes, or float32 for
    norm and moved), then (n,) uint32 each row's priority rank (ascending: the rows of rank < P are a
    prefix, and over all tiles a uniform sample), in one body; X-Rows says n and X-Value-Dtype the values'
    type. 404 a tile not in the tree; 409 a build that is not the current one (the table changed)."""
    moved = None  # without a compared table, colouring by "moved" is refused by tile()
    if by == MOVED and other:
        projector = projector_of()
        _compare_in_turn(projector, whole_table(lab, other), k, heavy)
        moved = tiled.moved(projector.displacement(whole_table(lab, other), k))
    answer = tiled.tile(method, build, tile, by, moved)
    return Binary(answer.body, headers=answer.headers())


@router.get("/overlay", response_model=answer_model(Overlay))
def overlay(tiled: TiledDep, build: Build, tile: TileId, method: Method = "pca") -> JSONResponse:
    """A tile's density contours (lines at the manifest's levels) and the labels of the dense regions
    in its box, both computed over every row in the box (sent as the build stored them)."""
    return JSONResponse(tiled.overlay(method, build, tile))


@router.get("/search", response_model=answer_model(SearchHits), dependencies=[HEAVY])
def search(tiled: TiledDep, pattern: Pattern, regex: bool = False, limit: Limit = MAX_HITS,
           method: Method = "pca") -> SearchHits:  # fmt: skip
    """Every row whose key holds `pattern` (regex=true: a regular expression, ^ and $ at each key's
    ends), counted; the first `limit` sent with their points. 400 a pattern that does not compile or
    runs too long."""
    return tiled.search(method, pattern, regex, limit)


@router.get("/neighbours", response_model=answer_model(Reach), dependencies=[HEAVY])
def neighbours(tiled: TiledDep, row: Row, k: K = 10, method: Method = "pca") -> Reach:
    """Row `row`'s k nearest rows by cosine in the table's own space (every row scanned), with their
    points, the ranks the map gives them and how many of them the map keeps among its k nearest."""
    return tiled.neighbours(method, row, k)
