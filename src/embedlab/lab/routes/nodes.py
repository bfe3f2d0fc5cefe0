"""Graph nodes (simulation 16): karate club's node table at several points of one seeded run of
random walks and skip-gram, each snapshot mapped and scored against the real clubs, beside the
spectral baseline (embedlab.sims.nodes over embedlab.graphs)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import HeavyDep, LabDep
from embedlab.lab.schemas import answer_model
from embedlab.sims.nodes import MAX_SEED, MAX_WALKS, RATES, NodePasses, karate_passes

router = APIRouter(prefix="/api/nodes", tags=["nodes"])
Rate = Annotated[float, Query(gt=0, description=f"one of {', '.join(map(str, RATES))}")]


@router.get("", response_model=answer_model(NodePasses))
def node_passes(
    lab: LabDep,
    heavy: HeavyDep,
    p: Rate = 1.0,
    q: Rate = 1.0,
    seed: Annotated[int, Query(ge=0, le=MAX_SEED, description=f"the random seed, 0..{MAX_SEED}")] = 1,
    walks: Annotated[int, Query(ge=1, le=MAX_WALKS, description="walks started at each node")] = 1,
) -> NodePasses:
    """Karate's node rows before training and after 1, 2, 4, 8 and 16 passes of one run (p, q, seed,
    walks), mapped by PCA and scored by k-means against the clubs; the spectral baseline beside.
    Tens of milliseconds, so each setting is computed once per app, in the heavy queue; a kept one
    is answered without queueing."""
    return lab.service(f"nodes:{p}:{q}:{seed}:{walks}", lambda: heavy.compute(lambda: karate_passes(p, q, seed, walks)))
