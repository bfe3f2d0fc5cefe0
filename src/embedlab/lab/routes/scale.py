"""Scale balance (simulation 6): token rows at their initial scale against sinusoidal positions."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.schemas import Limit, ScaleAnswer
from embedlab.sims.scale import INIT_STDS, scale_balance

router = APIRouter(prefix="/api/scale", tags=["scale"])

MIN_DIM, MAX_DIM = 2, 4096
MAX_FACTOR = 10_000.0
SCALES = ("none", "sqrt_d", "number")
LIMITS: dict[str, Limit] = {"d_model": [MIN_DIM, MAX_DIM], "factor": [0.0, MAX_FACTOR], "scales": list(SCALES),
                            "inits": list(INIT_STDS)}  # fmt: skip


@router.get("", response_model=ScaleAnswer)
def balance(
    d_model: Annotated[int, Query(ge=MIN_DIM, le=MAX_DIM)] = 512,
    scale: Annotated[str, Query(pattern="^(" + "|".join(SCALES) + ")$")] = "none",
    factor: Annotated[float, Query(ge=0, le=MAX_FACTOR, description="used when scale=number")] = 1.0,
    init: Annotated[str, Query(pattern="^(" + "|".join(INIT_STDS) + ")$")] = "inv_sqrt_d",
) -> dict:
    """Mean norms of token rows × the scale and of sinusoid rows at width d_model, their ratio,
    and a few combined vectors."""
    multiplier = {"none": None, "sqrt_d": "sqrt_d"}.get(scale, factor)
    return scale_balance(d_model, scale=multiplier, std=INIT_STDS[init](d_model)).to_dict() | {"init": init}
