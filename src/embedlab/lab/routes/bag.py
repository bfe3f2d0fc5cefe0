"""Bag of embeddings (simulation 18): fastText's classifier trained on the gcide domains in the background,
its accuracy over epochs and confusions, a typed text's rows taken apart, and the model quantized
(embedlab.sims.bag).

One run at a time per server: a start while one runs is a 409 (BusyError, answered by the app's error
handler). The page polls GET /api/bag while a run trains. /predict and /quantize answer with the latest
finished classifier (the page's default run is trained first when there is none: seconds, waited for
outside the heavy slot); a value out of its range is a 400 naming it and the range.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import BagDep, HeavyDep
from embedlab.lab.schemas import BagRequest, answer_model
from embedlab.sims.bag import LIMITS, BagSettings, BagState
from embedlab.sims.bag_rows import BagExplanation
from embedlab.sims.bag_size import QuantizeAnswer, QuantizeSettings

router = APIRouter(prefix="/api/bag", tags=["bag"])

EXAMPLE = "a small freshwater fish of the carp family"
DEFAULT_QUANTIZE = QuantizeSettings()
Cutoff = Annotated[int, Query(description="input rows kept: 0 (all), or limits' min_cutoff up to cutoff's high")]
Dsub = Annotated[int, Query(description=f"columns per sub-vector, one of {LIMITS['dsubs']}")]


@router.get("", response_model=answer_model(BagState))
def state(bag: BagDep) -> BagState:
    """The run's status and progress, its accuracy curve so far (one point per epoch count, each its own
    run), and once finished the confusions and each label's figures on the held-out lines."""
    return bag.state()


@router.post("/start", response_model=answer_model(BagState))
def start(bag: BagDep, body: BagRequest) -> BagState:
    """Train a classifier with these settings in the background; 409 while one trains."""
    return bag.start(BagSettings(**body.model_dump()))


@router.get("/predict", response_model=answer_model(BagExplanation))
def predict(
    bag: BagDep,
    heavy: HeavyDep,
    text: Annotated[str, Query(description=f"one line, up to {LIMITS['text']} characters")] = EXAMPLE,
    k: Annotated[int, Query(description=f"labels to explain, {LIMITS['k'][0]}..{LIMITS['k'][1]}")] = 3,
) -> BagExplanation:
    """The latest classifier's k best labels for `text`, and each input row's contribution to their
    scores (u_label · row / n, summing to the score)."""
    return bag.explain(text, k, heavy.compute)


@router.get("/quantize", response_model=answer_model(QuantizeAnswer))
def quantize(
    bag: BagDep,
    heavy: HeavyDep,
    cutoff: Cutoff = DEFAULT_QUANTIZE.cutoff,
    dsub: Dsub = DEFAULT_QUANTIZE.dsub,
    qnorm: bool = DEFAULT_QUANTIZE.qnorm,
    retrain: bool = DEFAULT_QUANTIZE.retrain,
) -> QuantizeAnswer:
    """The latest classifier's P@1 and bytes as a .bin and after `fasttext quantize` as a .ftz, measured
    once per setting (k-means: a second to half a minute, queued only while it computes)."""
    return bag.quantized(QuantizeSettings(cutoff, dsub, qnorm, retrain), heavy.compute)
