"""Answers of the projector page: a whole table's map, a key's neighbours on it, two tables compared."""

from __future__ import annotations

from pydantic import RootModel

from embedlab.lab.schemas.base import Answer


class ProjectorKeys(RootModel[list[str]]):
    """Every key of the table, in row order (sent as JSON serialised once per table)."""


class ProjectorInfo(Answer):
    table: str
    rows: int  # V: one point per row
    dim: int  # D
    schemes: list[str]  # the colourings offered (band only where the table has counts)
    names: dict[str, list[str] | None]  # scheme -> what each code means; None for norms
    colours: dict[str, str]  # a code's name (band, theme) -> its CSS colour


class MapNeighbour(Answer):
    key: str
    row: int
    cosine: float  # in the full space
    map_rank: int  # 1 = the closest point on the map


class FocusAnswer(Answer):
    table: str
    method: str
    dims: int
    key: str
    row: int
    count: int | None
    point: list[float]  # the key's coordinates on the map
    neighbours: list[MapNeighbour]  # the k nearest rows by cosine, best first
    map_neighbours: list[str]  # the k nearest points on the map, closest first
    k: int
    kept: int  # neighbours that are also among map_neighbours


class Mover(Answer):
    key: str
    displacement: float  # ‖a R − b‖ of its unit rows after alignment, 0..2
    jaccard: float  # overlap of its k neighbours in both tables
    neighbours_a: list[str]
    neighbours_b: list[str]


class CompareAnswer(Answer):
    name_a: str
    name_b: str
    dim_a: int
    dim_b: int
    shared: int  # keys in both tables
    only_a: int
    only_b: int
    k: int
    residual: float | None  # relative Frobenius error after alignment (None if B's rows are all zero)
    mean_displacement: float
    median_displacement: float
    mean_jaccard: float
    movers: list[Mover]  # largest displacement first
