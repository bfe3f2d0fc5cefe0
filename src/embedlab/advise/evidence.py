"""What this project measured, beside each branch of lesson 001's decision chart: one `Evidence`
per finding, each with its figures, where they come from and a verdict on the chart's rule.

Figures of the arena are read from the recorded full race (`data.races.recorded_race()`), so a new
race changes the sentences with it; figures that live only in the docs (training.md §4, lessons.md)
are quoted with their section, and tests/advise/test_evidence.py finds each quoted figure in that
section, so neither can drift from its source without a test failing. An ordering's verdict is the
race's orderings judged as one Holm family (`arena.claims.holm_orderings`, as the lab's arena page
reads them), not the per-comparison verdicts the recorded file holds: a finding within noise after
that correction neither supports nor contradicts a rule ("not measured here", and it says so).

    race = recorded_race()
    vocab_one_language(race, 125e6)[0].verdict   # 'not measured here': BPE vs large V is within noise
    order(race, "tokens_per_input", "large-v-untied", "bytes")   # 'holds': fewer tokens, beyond noise

The arena races stand-ins at a smaller scale (docs/arena.md, "The two scales"): its 2K, 8K and 32K
vocabularies stand for the lesson's 8K, 32K and 128K, on a body of d = 64; its 4-px and 2-px patches
of a 28-px image give patch 32's and patch 16's token counts on 224 px.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from embedlab.arena.anchor import tao_trend
from embedlab.arena.claims import holm_orderings, tolerance_goal, verdict_of
from embedlab.sizing import PRESETS

VERDICTS = ("supports", "contradicts", "not measured here")
# said of an ordering within noise: the race measured it, and the measurement does not decide the rule
_UNRESOLVED = (
    "; judged with the race's other orderings as one family (Holm's correction), so the race does not resolve it"
)
ARENA = "docs/arena.md#the-full-race-2026-11-25 (data.races.recorded_race())"
TYING = "docs/training.md#4-tied-vs-untied-output-layer-in-a-small-lm"
SCALING = "docs/lessons.md rows 001.5.4, 001.5.5"
ROPE_SCALES = "docs/lessons.md rows 001.5.10, 001.9.3"
ADAPTIVE_TOLERANCE = 0.02  # bits per byte: lesson 002's goal, as docs/arena.md judges it (claims.tolerance_goal)
ANCHOR = "docs/arena.md#the-budget-axis-when-does-a-larger-vocabulary-pay (arena.anchor.tao_trend())"

# Real models' sizes in parameters, as their names and papers give them: the width suggestion and the
# tying census read these beside sizing.PRESETS (each name here is a preset: a test holds that).
MODEL_SIZES = {
    "gpt2": 124e6,
    "bert-base": 110e6,
    "bert-large": 340e6,
    "t5-base": 220e6,
    "vit-b-16": 86e6,
    "gpt2-xl": 1.5e9,
    "llama-3.2-1b": 1.24e9,
    "gemma-2b": 2.5e9,
    "llama-3.2-3b": 3.2e9,
    "llama-2-7b": 6.7e9,
    "mistral-7b": 7.2e9,
    "llama-3-8b": 8.0e9,
    "llama-2-70b": 70e9,
    "gpt-3": 175e9,
}


@dataclass(frozen=True)
class Evidence:
    """One finding of this project set against one rule of the chart."""

    finding: str  # what was measured, with its figures, in one or two sentences
    source: str  # where the figures come from: a docs section and, for the arena, the recorded race
    verdict: str  # one of VERDICTS: does the finding support the chart's rule, contradict it, or not test it


def value(race: dict, strategy: str, metric: str) -> float:
    """The race's mean over seeds of `metric` for `strategy`: value(race, "bpe-32k", "bits_per_byte") -> 2.257..."""
    for row in race["results"]:
        if row["strategy"] == strategy and row["metric"] == metric:
            return row["value"]
    raise KeyError(f"the race holds no {metric} for {strategy}")


def steps(race: dict, strategy: str) -> float:
    """Training steps a run of `strategy` took, the mean over seeds (its budget bought them)."""
    return statistics.mean(run["steps"] for run in race["runs"] if run["strategy"] == strategy)


def order(race: dict, metric: str, a: str, b: str) -> str:
    """Whether `a` beat `b` on `metric`, judged on the race's per-seed differences with the race's
    orderings as one Holm family (claims.holm_orderings): "holds" (beyond noise), "contradicted" (b
    beat a beyond noise) or "within noise"; InvalidValueError if the race never ordered the two."""
    return verdict_of(holm_orderings(race), metric, a, b)


def _settled(verdict: str, *, supports: bool) -> str:
    """An ordering's verdict ("holds" / "contradicted" / "within noise") as a verdict on a rule: the
    ordering that `supports` it (True) or contradicts it (False) holding beyond noise says so; within
    noise it says neither."""
    if verdict == "within noise":
        return "not measured here"
    return "supports" if (verdict == "holds") == supports else "contradicts"


def _label(race: dict, strategy: str) -> str:
    return next(s["label"] for s in race["strategies"] if s["name"] == strategy)


def vocab_one_language(race: dict, params: float) -> tuple[Evidence, ...]:
    """ "One language: V = 32K is fine", against the race (English) and Tao et al.'s optimum for a
    model of `params` parameters."""
    bpe, large, small = (value(race, s, "bits_per_byte") for s in ("bpe-32k", "large-v-untied", "small-v-tied"))
    beats_large = order(race, "bits_per_byte", "bpe-32k", "large-v-untied")
    against_small = order(race, "bits_per_byte", "bpe-32k", "small-v-tied")
    lm = Evidence(
        f"subword BPE (8K, the arena's stand-in for 32K) scored {bpe:.3f} bits per byte against the 4× larger "
        f"vocabulary's {large:.3f} ({beats_large}) and the 4× smaller one's {small:.3f} ({against_small})"
        f"{_UNRESOLVED if 'within noise' in (beats_large, against_small) else ''}",
        ARENA,
        # 32K is fine where neither neighbour beats it beyond noise and it beats the larger one
        "contradicts" if "contradicted" in (beats_large, against_small) else _settled(beats_large, supports=True),
    )
    rare_bpe, rare_small = (
        value(race, "bpe-32k", "rare_bits_per_byte"),
        value(race, "small-v-tied", "rare_bits_per_byte"),
    )
    small_wins = order(race, "rare_bits_per_byte", "small-v-tied", "bpe-32k")
    rare = Evidence(
        f"on rare words the 4× smaller vocabulary scored {rare_small:.3f} against BPE's {rare_bpe:.3f} bits per "
        f"byte ({small_wins})"
        + (", so at this scale 32K is not the balanced point for rare words" if small_wins == "holds" else "")
        + (_UNRESOLVED if small_wins == "within noise" else ""),
        ARENA,
        _settled(small_wins, supports=False),
    )
    law = tao_trend()
    low, high = min(x for x, _ in law.points), max(x for x, _ in law.points)
    fitted = "" if low <= params <= high else ", extrapolated past their sizes"
    anchor = Evidence(
        f"in Tao et al. 2024's measurements (shipped here) the compute-optimal vocabulary grows with the model "
        f"(as N^{law.exponent:.2f}) and reaches 32K near {law.params_at(32_000) / 1e9:.2f}B non-vocabulary "
        f"parameters; at {params / 1e9:.3g}B their fitted optimum is {law.at(params):,.0f}{fitted}",
        ANCHOR,
        # within a factor of 2 of 32K counts as "fine"; their Lossu moves little across such a step
        "supports" if 16_000 <= law.at(params) <= 64_000 else "contradicts",
    )
    return lm, rare, anchor


def vocab_many_languages(race: dict) -> tuple[Evidence, ...]:
    """ "Many languages: V = 100K+", which the race (English only) cannot test, and what a large V cost it.

    Both findings are "not measured here": the rule is about covering many scripts, and a cost measured
    on English text neither supports nor contradicts it (on one language a large V only pays its cost).
    """
    large, bpe = value(race, "large-v-untied", "bits_per_byte"), value(race, "bpe-32k", "bits_per_byte")
    beaten = order(race, "bits_per_byte", "bpe-32k", "large-v-untied")
    coverage = Evidence(
        "script coverage is not measured here: every text the arena trains and scores on is English (gcide)",
        ARENA,
        "not measured here",
    )
    cost = Evidence(
        "on English at the arena's scale (a body of d = 64), the 4× larger vocabulary took "
        f"{steps(race, 'large-v-untied'):,.0f} steps against BPE's "
        f"{steps(race, 'bpe-32k'):,.0f} at equal compute (its output head is most of each step) and scored "
        f"{large:.3f} bits per byte against {bpe:.3f} ({'BPE ahead, ' + beaten}); English only, so this "
        "is the price of a large V, not a test of what it buys in many scripts",
        ARENA,
        "not measured here",
    )
    return coverage, cost


def tying(params: float) -> tuple[Evidence, ...]:
    """ "Small: tie; large (7B+): untie", against training.md §4 and the tying of real models of that size."""
    small = params < 1e9
    census = _tying_census(small=small, large=params >= 7e9)
    measured = Evidence(
        "a small LM (V 2,000, D 64, 2 epochs) was better untied: by 0.24 nats of validation loss, "
        "perplexity 128 against 163; both still underfit, so a regulariser had nothing to do yet",
        TYING,
        "contradicts" if small else "not measured here",
    )
    models = Evidence(census, "embedlab.sizing.PRESETS (each model's config.json)", "not measured here")
    return (measured, models) if small else (models,)


def _tying_census(*, small: bool, large: bool) -> str:
    """Which presets in the size band tie their head: 'tied: gpt2, bert-base; untied: none'."""
    band = [name for name, n in MODEL_SIZES.items() if (n < 1e9 if small else n >= 7e9 if large else 1e9 <= n < 7e9)]
    band = [name for name in band if not PRESETS[name].is_image]
    tied = [name for name in band if PRESETS[name].tied]
    untied = [name for name in band if not PRESETS[name].tied]
    return (
        "not trained here at this size; among real models of it (sizing's presets), "
        f"tied: {', '.join(tied) or 'none'}; untied: {', '.join(untied) or 'none'}"
    )


def tying_saves() -> tuple[Evidence, ...]:
    """Tying to meet a memory budget: it saves exactly V·D, and in the one clean comparison it cost quality."""
    return (
        Evidence(
            "tying saves exactly V·D parameters (360,192 − 232,192 = 128,000 = 2,000 × 64 in the small LM), "
            "and there the untied model was better by 0.24 nats: the memory has a price",
            TYING,
            "supports",
        ),
    )


def scaling(positions: str) -> tuple[Evidence, ...]:
    """ "Sinusoidal: scale by √D; learned or RoPE: no scaling", against lessons.md's checks."""
    if positions == "sinusoidal":
        return (
            Evidence(
                "× √D brings a token row to the sinusoid's length within √2 (22.6 against 16 at D = 512, rows "
                "initialised at std 1/√D); with std 0.02 rows the balance is 0.64 : 1 instead: it depends on the init",
                SCALING,
                "supports",
            ),
        )
    return (
        Evidence(
            "no measurement here says scaling is needed without sinusoids, but a real model scales anyway: "
            "Gemma uses RoPE and multiplies its rows by √D (embedlab's gemma recipe)",
            ROPE_SCALES,
            "not measured here",
        ),
    )


def sequence_length(race: dict) -> tuple[Evidence, ...]:
    """A larger vocabulary gives shorter sequences: tokens per held-out line in the race."""
    names = ("bytes", "small-v-tied", "bpe-32k", "large-v-untied")
    counts = ", ".join(f"{_label(race, s)} {value(race, s, 'tokens_per_input'):.1f}" for s in names)
    shorter = order(race, "tokens_per_input", "large-v-untied", "bytes")
    return (
        Evidence(
            f"the same held-out lines took, in tokens: {counts} ({shorter} for the largest against bytes): "
            "a sequence length in tokens depends on the vocabulary",
            ARENA,
            "supports" if shorter == "holds" else "contradicts",
        ),
    )


def patches(race: dict, patch_size: int) -> tuple[Evidence, ...]:
    """Patch 16 (standard), 32 (speed), 8 (detail), against the race's two patch sizes at equal compute."""
    coarse, fine = value(race, "patch-32", "accuracy"), value(race, "patch-16", "accuracy")
    won = order(race, "accuracy", "patch-32", "patch-16")
    ratio = value(race, "patch-16", "attention_scores_per_input") / value(
        race, "patch-32", "attention_scores_per_input"
    )
    finding = (
        f"at equal compute on Fashion-MNIST, 49 patches ({steps(race, 'patch-32'):,.0f} steps) reached "
        f"{coarse:.3f} accuracy and 196 patches ({steps(race, 'patch-16'):,.0f} steps) {fine:.3f} ({won} for the "
        f"coarser), with {ratio:.1f}× fewer attention scores: the finer detail "
        + ("cost accuracy at this budget" if won == "holds" else "paid" if won == "contradicted" else "did not pay")
        + (_UNRESOLVED if won == "within noise" else "")
    )
    if patch_size >= 32:  # speed: 4× fewer scores, and no accuracy lost beyond noise, is what the rule claims
        verdict = "supports" if won != "contradicted" else "contradicts"
    else:  # the finer standard: only an accuracy gap beyond noise, either way, speaks to it
        verdict = _settled(won, supports=False)
    evidence = [Evidence(finding, ARENA, verdict)]
    if patch_size < 16:
        evidence.append(Evidence("nothing finer than 196 patches was raced here", ARENA, "not measured here"))
    return tuple(evidence)


def adaptive_input(race: dict) -> tuple[Evidence, ...]:
    """Adaptive input for a large vocabulary under a memory budget (lesson 002), against the race: its
    goal is a table many times smaller that costs little, judged as a tolerance (claims.tolerance_goal:
    the one-sided 95% upper bound of its per-seed gap to the full untied table within +0.02 bits per
    byte) rather than by orderings, which say only whether a gap is beyond noise."""
    goal = tolerance_goal(race, "large-v-adaptive", "large-v-untied", ADAPTIVE_TOLERANCE)
    best = value(race, "large-v-adaptive", "bits_per_byte")
    full = value(race, "large-v-untied", "bits_per_byte")
    return (
        Evidence(
            f"adaptive input on the 32K vocabulary scored {best:.3f} bits per byte against the full untied table's "
            f"{full:.3f} with {goal['params_ratio']:.1f}× fewer embedding parameters; the gap's one-sided 95% "
            f"upper bound, {goal['upper']:+.3f}, against a tolerance of +{ADAPTIVE_TOLERANCE}: {goal['verdict']}",
            ARENA,
            {"met": "supports", "refuted": "contradicts"}.get(goal["verdict"], "not measured here"),
        ),
    )
