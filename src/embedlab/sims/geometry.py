"""Geometry (lab simulation 9): a pair's dot product taken apart into ‖a‖, ‖b‖ and cos θ, beside
their distance. Neighbours and analogies are the table's own queries (Vectors.most_similar,
Vectors.analogy).

    view = pair(vectors, "cat", "dog")
    view.parts.dot == view.parts.norm_a * view.parts.norm_b * view.parts.cosine    # up to rounding
    view.distance                                                                 # ‖cat − dog‖
"""

from __future__ import annotations

from dataclasses import dataclass

from embedlab.vectors.analysis import DotDecomposition, pair_geometry
from embedlab.vectors.table import Vectors


@dataclass(frozen=True)
class PairView:
    """Two keys' rows: a·b = ‖a‖ ‖b‖ cos θ, θ in degrees, and ‖a − b‖."""

    a: str
    b: str
    parts: DotDecomposition  # dot, norm_a, norm_b, cosine, angle_degrees, product (float64)
    distance: float  # ‖a − b‖, the table's euclidean metric

    def to_dict(self) -> dict:
        """Plain JSON: a, b, the decomposition's fields and the distance, one level deep."""
        return {"a": self.a, "b": self.b, **self.parts.to_dict(), "distance": self.distance}


def pair(vectors: Vectors, a: str, b: str) -> PairView:
    """Keys `a` and `b` of a table (V, D) -> their rows' dot product taken apart, and their distance."""
    return PairView(a, b, pair_geometry(vectors, a, b), vectors.similarity(a, b, metric="euclidean"))
