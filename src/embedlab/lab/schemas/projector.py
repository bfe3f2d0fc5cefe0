"""Answers of the projector page: a whole table's map, a key's neighbours on it, two tables compared."""

from __future__ import annotations

from embedlab.lab.schemas.base import Answer


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
