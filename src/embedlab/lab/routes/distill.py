"""Static from contextual (simulation 17): sentences under MiniLM and under its distilled static table,
and each stage of the distillation measured (embedlab.sims.distill)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import HEAVY, DistillStepsDep, EncoderDep, one_of
from embedlab.lab.schemas import answer_model
from embedlab.sims import distill as sims
from embedlab.sims.distill import MAX_TEXT, MAX_TEXTS, MIN_TEXTS, STEPS, DistillAnswer, StepFigures

router = APIRouter(prefix="/api/distill", tags=["distill"])

EXAMPLE = ["a dog chased the ball across the park", "the puppy ran after a thrown stick",
           "interest rates rose again this quarter", "the central bank lifted its lending rate"]  # fmt: skip


@router.get("", response_model=answer_model(DistillAnswer), dependencies=[HEAVY])
def compare(
    encoder: EncoderDep,
    steps: DistillStepsDep,
    text: Annotated[list[str], Query(description=f"{MIN_TEXTS} to {MAX_TEXTS} sentences")] = EXAMPLE,
    step: Annotated[str, one_of(STEPS)] = "weights",
) -> DistillAnswer:
    """Cosines between the sentences under the teacher (every layer, mean-pooled) and under one stage of
    its static table (the mean of each sentence's pieces' rows), with Spearman and Pearson between the
    two sets of pairs (from 3 sentences)."""
    return sims.page_answer(encoder, steps, [t[: MAX_TEXT + 1] for t in text], step)


@router.get("/steps", response_model=answer_model(StepFigures), dependencies=[HEAVY])
def figures(steps: DistillStepsDep) -> StepFigures:
    """Each stage on WordSim-7 (Spearman × 100) and the gcide reverse dictionary (recall@10 × 100),
    with 95% bootstrap intervals: measured on first use (about half a minute), then kept."""
    return steps.figures()
