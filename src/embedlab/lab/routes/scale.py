"""Scale balance (simulation 6): token rows at their initial scale against sinusoidal positions
(embedlab.sims.scale), and a σ sweep of TinyLM's token table, trained (embedlab.sims.init_sweep)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import HEAVY, HeavyDep, LabDep, one_of
from embedlab.lab.schemas import answer_model
from embedlab.sims.init_sweep import InitSweep, init_sweep
from embedlab.sims.scale import LIMITS, MAX_DIM, MAX_FACTOR, MIN_DIM, ScaleBalance, balance

router = APIRouter(prefix="/api/scale", tags=["scale"])


@router.get("", response_model=answer_model(ScaleBalance), dependencies=[HEAVY])
def scale_balance(
    d_model: Annotated[int, Query(ge=MIN_DIM, le=MAX_DIM)] = 512,
    scale: Annotated[str, one_of(LIMITS["scales"])] = "none",
    factor: Annotated[float, Query(ge=0, le=MAX_FACTOR, description="used when scale=number")] = 1.0,
    init: Annotated[str, one_of(LIMITS["inits"])] = "inv_sqrt_d",
) -> ScaleBalance:
    """Mean norms of token rows × the scale and of sinusoid rows at width d_model, their ratio,
    and a few combined vectors."""
    return balance(d_model, scale, factor, init)


@router.get("/sweep", response_model=answer_model(InitSweep))
def sweep(
    lab: LabDep,
    heavy: HeavyDep,
    optimizer: Annotated[str, one_of(LIMITS["sweep_optimizers"])] = "adamw",
    head: Annotated[str, one_of(LIMITS["sweep_heads"])] = "untied",
    steps: Annotated[int, Query(ge=LIMITS["sweep_steps"][0], le=LIMITS["sweep_steps"][1])] = 60,
) -> InitSweep:
    """TinyLM trained `steps` steps for each σ of the sweep: norms at init, loss curves, verdicts.
    Seconds to compute (~1.5 s per σ at 60 steps), so each setting is computed once per app, in the
    heavy queue; a kept one is answered without queueing."""

    def compute():
        return init_sweep(optimizer=optimizer, tied=head == "tied", steps=steps)

    return lab.service(f"init-sweep:{optimizer}:{head}:{steps}", lambda: heavy.compute(compute))
