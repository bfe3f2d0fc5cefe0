"""Lesson 001's decision chart (chapter 9) as a function: the answers to its questions -> a recipe for
the embedding part, its `embedlab size` figures, and the path taken, each branch with what this
project measured about it.

    advice = advise("text", languages=1, params=125e6, seq_len=1024)
    advice.recipe.vocab_size, advice.recipe.tied, advice.recipe.positions     # 32000, True, 'rotary'
    advice.size.total_params                                                  # 24,576,000: 32,000 × 768, tied
    [b.question for b in advice.path]         # the chart's questions, in its order, and the ones added here
    advice.disagreements                      # where the chart and the measurements part ways
    advice("text", params="7B", memory="2GiB")   # the same with sizes typed as text (the CLI, the lab)

The chart's branches (the lesson's words, shortened):
    input          text -> token embeddings; image -> patch embeddings
    languages      one -> V = 32K; many -> V = 100K+ (script coverage)
    model size     small (< 1B) -> tie the head; large (7B and up) -> untie
    positions      sinusoidal -> scale rows by √D; learned or RoPE -> no scaling
    resolution     standard -> patch 16; speed -> patch 32; fine detail -> patch 8
Added here (the chart has no such question; `Branch.from_lesson` is False): the width, from the real
model nearest in size; sequence length, which sizes a learned position table and the output X; and
the memory budget, met by tying, then adaptive input (text), or a coarser patch (images).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from embedlab.advise import evidence as ev
from embedlab.advise.evidence import Evidence
from embedlab.advise.units import parse_bytes, parse_count
from embedlab.data.races import recorded_race
from embedlab.errors import InvalidValueError, check_choice, check_int
from embedlab.sizing import BYTES_PER_PARAM, PRESETS, EmbeddingLayout, SizeReport, activation_bytes, count
from embedlab.sizing.memory import format_bytes

MODALITIES = ("text", "image")
DETAILS = {"standard": 16, "speed": 32, "detail": 8}  # the chart's image answers -> patch side
POSITIONS = ("rotary", "learned", "sinusoidal")  # the chart's text answers; rotary first: no table to size
ONE_LANGUAGE_V = 32_000  # "one language: V = 32K is fine"
MANY_LANGUAGES_V = 128_000  # "many languages: V = 100K+"; the lesson's own large V (chapter 8)
SMALL, LARGE = 1e9, 7e9  # "small (< 1B) tie; large (> 7B) untie": the chart is silent in between
MAX_PARAMS = 1e13
MAX_SEQ = 10_000_000
MAX_IMAGE = 8_192


@dataclass(frozen=True)
class Branch:
    """One question of the chart, the answer taken, its rule and what was measured about it."""

    question: str  # the chart's question ("Text: how many languages?")
    answer: str  # the answer given or derived ("one language")
    rule: str  # what the chart (or, from_lesson False, this project) does with that answer
    from_lesson: bool  # the rule is lesson 001's chart; False: a question added here
    evidence: tuple[Evidence, ...]  # this project's findings on the rule, each with its verdict
    verdict: str  # "contradicts" if any finding does, else "supports" if any does, else "not measured here"


@dataclass(frozen=True)
class Recipe:
    """The embedding part the chart leads to."""

    modality: str  # "text" or "image"
    tokenizer: str  # "byte-level BPE" (text) or "patches, Conv2d(C, D, P, stride P)" (image)
    vocab_size: int  # V (0 for images)
    vocab_table: str  # how the token table stores V rows: "full" or "adaptive" (to meet a budget)
    tied: bool  # the output head reuses the token table (text; False for images: no head)
    positions: str  # "rotary", "learned" or "sinusoidal"
    scale: float  # the factor on token rows: √D with sinusoids, else 1
    dim: int  # D, every table's width
    patch_size: int  # P (0 for text)
    image_size: int  # H = W in pixels (0 for text)
    tokens: int  # T per sequence: seq_len (text) or N + 1 patches and CLS (image)
    dtype: str  # the storage type every byte figure is in


@dataclass(frozen=True)
class Advice:
    """The chart walked: the recipe, the path, its sizes and where the measurements disagree."""

    recipe: Recipe  # the recommended embedding part
    path: tuple[Branch, ...]  # every branch taken, in the chart's order
    size: SizeReport  # `embedlab size`'s count of the recipe's layout, in its dtype
    activation_bytes: int  # the output X (B, T, D) of one forward pass at `batch`, in the dtype
    batch: int  # B the activations were counted at
    budget: int  # the memory budget in bytes for tables + activations (0: none given)
    fits: bool  # tables + activations within the budget (True without one)
    disagreements: tuple[str, ...]  # one sentence per branch whose rule a measurement here contradicts


def advise(
    modality: str = "text",
    *,
    languages: int = 1,
    params: float = 125e6,
    seq_len: int = 1024,
    positions: str = "rotary",
    image_size: int = 224,
    detail: str = "standard",
    memory_budget: int = 0,
    batch: int = 1,
    dtype: str = "fp32",
    dim: int = 0,
) -> Advice:
    """Walk the chart for a model of `params` parameters -> Advice.

    `languages` (text), `seq_len` T (text), `image_size` and `detail` (image, one of DETAILS) answer
    the chart's questions; `dim` (0: the width of the real model nearest in size) and `dtype` shape
    the sizes; `memory_budget` (bytes, 0: none) bounds the tables plus one batch's output X (B, T, D).

    >>> advise("image", params=86e6, detail="speed").recipe.patch_size
    32
    """
    check_choice("modality", modality, MODALITIES)
    if isinstance(params, bool) or not isinstance(params, int | float) or not 1 <= params <= MAX_PARAMS:
        raise InvalidValueError(f"params must be a parameter count between 1 and {MAX_PARAMS:.0e}; got {params!r}")
    check_int("memory_budget", memory_budget, low=0)
    check_int("batch", batch, low=1, high=1_000_000)
    check_choice("dtype", dtype, tuple(BYTES_PER_PARAM))
    race = recorded_race()
    width, width_branch = _width(params, check_int("dim", dim, low=0, high=65_536))
    if modality == "text":
        return _text(race, languages, params, seq_len, positions, width, width_branch, memory_budget, batch, dtype)
    return _image(race, params, image_size, detail, width, width_branch, memory_budget, batch, dtype)


def advice(
    modality: str = "text",
    languages: int = 1,
    params: str = "125M",
    seq_len: int = 1024,
    positions: str = "rotary",
    image_size: int = 224,
    detail: str = "standard",
    memory: str = "",
    batch: int = 1,
    dtype: str = "fp32",
    dim: int = 0,
) -> Advice:
    """`advise` with the sizes typed as text, as `embedlab advise` and the lab's Advise page take them:
    `params` a count ("125M", "7B"), `memory` a size ("300MiB"; "" none).

    >>> advice("image", detail="detail", memory="300MiB", batch=256).recipe.patch_size   # patch 8 does not fit
    16
    """
    return advise(
        modality,
        languages=languages,
        params=parse_count(params),
        seq_len=seq_len,
        positions=positions,
        image_size=image_size,
        detail=detail,
        memory_budget=parse_bytes(memory) if memory.strip() else 0,
        batch=batch,
        dtype=dtype,
        dim=dim,
    )


def branch(question: str, answer: str, rule: str, evidence: tuple[Evidence, ...], from_lesson: bool = True) -> Branch:
    """A Branch whose verdict is its findings': any contradiction wins, then any support."""
    verdicts = {e.verdict for e in evidence}
    verdict = next((v for v in ("contradicts", "supports") if v in verdicts), "not measured here")
    return Branch(question, answer, rule, from_lesson, evidence, verdict)


def _width(params: float, dim: int) -> tuple[int, Branch]:
    """D: `dim` if given, else the width of the preset whose model size is nearest in log scale."""
    if dim:
        return dim, branch("Width?", f"D = {dim:,}", "the width given", (), from_lesson=False)
    name = min(ev.MODEL_SIZES, key=lambda n: abs(math.log(ev.MODEL_SIZES[n] / params)))
    width = PRESETS[name].dim
    rule = (
        f"the chart gives none: the width of {name} ({ev.MODEL_SIZES[name] / 1e9:.3g}B), the real model nearest in size"
    )
    return width, branch("Width?", f"D = {width:,}", rule, (), from_lesson=False)


def _text(race, languages, params, seq_len, positions, width, width_branch, budget, batch, dtype) -> Advice:
    languages = check_int("languages", languages, low=1, high=10_000)
    seq_len = check_int("seq_len", seq_len, low=1, high=MAX_SEQ)
    check_choice("positions", positions, POSITIONS)
    path = [branch("What is your input?", "text", "token embeddings: a (V, D) table looked up by id", ())]
    if languages == 1:
        vocab = ONE_LANGUAGE_V
        path.append(
            branch("Text: how many languages?", "one", f"V = {vocab:,} is fine", ev.vocab_one_language(race, params))
        )
    else:
        vocab = MANY_LANGUAGES_V
        path.append(
            branch(
                "Text: how many languages?",
                f"{languages}",
                f"V = 100K+ for script coverage: {vocab:,}",
                ev.vocab_many_languages(race),
            )
        )
    if params < SMALL:
        tied, size_answer, rule = True, "small (< 1B)", "tie the head to the token table: free regularisation"
    elif params >= LARGE:
        tied, size_answer, rule = False, "large (7B and up)", "untie: a head of its own often wins"
    else:
        tied, size_answer = True, "between 1B and 7B"
        rule = "the chart is silent between 1B and 7B: tied here, as the real models of this size below"
    path.append(branch("Text: model size?", f"{params / 1e9:.3g}B, {size_answer}", rule, ev.tying(params)))
    path.append(width_branch)
    scale = math.sqrt(width) if positions == "sinusoidal" else 1.0
    rule = f"scale token rows by √D = {scale:.1f}" if positions == "sinusoidal" else "no scaling needed"
    path.append(branch("Text: position encoding?", positions, rule, ev.scaling(positions)))
    rows = "one learned row per position, T·D parameters, none past T" if positions == "learned" else "no table"
    path.append(
        branch(
            "Text: sequence length?",
            f"T = {seq_len:,} tokens",
            f"{positions} positions: {rows}; the output X holds B·T·D values",
            ev.sequence_length(race),
            from_lesson=False,
        )
    )
    max_len = seq_len if positions == "learned" else 0
    layout = EmbeddingLayout(vocab_size=vocab, dim=width, positions=positions, max_len=max_len, tied=tied)
    candidates = [layout]  # the chart's layout, then smaller ones to meet a budget
    if not tied:
        candidates.append(EmbeddingLayout(vocab_size=vocab, dim=width, positions=positions, max_len=max_len))
    # The arena's bands: 1/16 and 1/4 of V (2K and 8K of 32K), each band 4× narrower, a tied adaptive softmax.
    cutoffs = (vocab // 16, vocab // 4)
    candidates.append(
        EmbeddingLayout(
            vocab_size=vocab, dim=width, positions=positions, max_len=max_len, adaptive_cutoffs=cutoffs, div_value=4.0
        )
    )
    acts = lambda lay: activation_bytes(lay, batch, seq_len, dtype)  # noqa: E731
    chosen, memory = _fit(candidates, acts, budget, dtype, {True: ev.tying_saves(), False: ev.adaptive_input(race)})
    path.append(memory)
    recipe = Recipe(
        "text", "byte-level BPE", vocab, chosen.vocab_table, chosen.tied, positions, scale, width, 0, 0, seq_len, dtype
    )
    return _advice(recipe, path, chosen, acts(chosen), batch, budget, dtype)


def _image(race, params, image_size, detail, width, width_branch, budget, batch, dtype) -> Advice:
    image_size = check_int("image_size", image_size, low=1, high=MAX_IMAGE)
    check_choice("detail", detail, tuple(DETAILS))
    patch = DETAILS[detail]
    if image_size % patch:
        raise InvalidValueError(f"image_size must be a multiple of the patch side {patch} ({detail}); got {image_size}")
    path = [branch("What is your input?", "image", "patch embeddings: Conv2d(C, D, P, stride P), a CLS token", ())]
    n = (image_size // patch) ** 2
    path.append(
        branch(
            "Images: resolution needed?",
            detail,
            f"patch {patch}: {n:,} patches of {image_size} px",
            ev.patches(race, patch),
        )
    )
    path.append(width_branch)
    path.append(
        branch(
            "Images: positions?",
            "learned",
            "one learned row per patch and CLS, as ViT; no scaling",
            (),
            from_lesson=False,
        )
    )
    candidates, side = [], patch
    while side <= image_size and image_size % side == 0:  # coarser patches, to meet a budget
        candidates.append(EmbeddingLayout(dim=width, positions="learned", image_size=image_size, patch_size=side))
        side *= 2
    acts = lambda lay: activation_bytes(lay, batch, None, dtype)  # noqa: E731
    chosen, memory = _fit(candidates, acts, budget, dtype, {False: ev.patches(race, 32)})
    path.append(memory)
    recipe = Recipe(
        "image",
        "patches, Conv2d(C, D, P, stride P)",
        0,
        "full",
        False,
        "learned",
        1.0,
        width,
        chosen.patch_size,
        image_size,
        chosen.n_patches + 1,
        dtype,
    )
    return _advice(recipe, path, chosen, acts(chosen), batch, budget, dtype)


def _fit(candidates, acts, budget, dtype, evidence) -> tuple[EmbeddingLayout, Branch]:
    """The first candidate layout whose tables and activations fit `budget` (the first one without a
    budget, the last one when none fits), and the memory branch saying which and why. `evidence`
    maps "the change was only tying the head" (True) or another change (False) to its findings."""
    question = "Memory budget?"

    def need(layout: EmbeddingLayout) -> int:
        return count(layout, dtype).bytes + acts(layout)

    first = candidates[0]
    if not budget:
        return first, branch(question, "none given", f"tables and X need {format_bytes(need(first))}", (), False)
    chosen = next((lay for lay in candidates if need(lay) <= budget), candidates[-1])
    fits = need(chosen) <= budget
    if chosen == first:
        verdict = "fits" if fits else "does not fit, and no smaller layout is on the chart's path"
        rule = f"the chart's layout {verdict}: {format_bytes(need(first))} against {format_bytes(budget)}"
        evidence = ()
    else:
        how = _change(first, chosen)
        evidence = evidence[how == "tying the head"]
        verb = "meets it" if fits else "comes closest, and still does not fit"
        rule = (
            f"the chart's layout needs {format_bytes(need(first))}, over {format_bytes(budget)}: {how} "
            f"{verb} at {format_bytes(need(chosen))}"
        )
    if not fits and acts(chosen) > budget:
        rule += f"; the output X alone needs {format_bytes(acts(chosen))}: a smaller batch or sequence"
    return chosen, branch(question, format_bytes(budget), rule, evidence, from_lesson=False)


def _change(first: EmbeddingLayout, chosen: EmbeddingLayout) -> str:
    if chosen.is_image:
        return f"patch {chosen.patch_size} instead of {first.patch_size}"
    if chosen.vocab_table == "adaptive":
        return (
            f"adaptive input (bands at {', '.join(f'{c:,}' for c in chosen.adaptive_cutoffs)}, each 4× narrower, tied)"
        )
    return "tying the head"


def _advice(recipe, path, layout, acts, batch, budget, dtype) -> Advice:
    size = count(layout, dtype)
    disagreements = tuple(
        f"{b.question} {b.answer}: the rule '{b.rule}' is contradicted here: "
        + "; ".join(e.finding for e in b.evidence if e.verdict == "contradicts")
        for b in path
        if b.verdict == "contradicts"
    )
    fits = not budget or size.bytes + acts <= budget
    return Advice(recipe, tuple(path), size, acts, batch, budget, fits, disagreements)
