"""advise() walks lesson 001's chart: hand-worked paths for several inputs, their sizes as
`embedlab size` counts them, and the memory budget met by the smaller layouts in order."""

from __future__ import annotations

import math

import pytest

from embedlab.advise import VERDICTS, advise
from embedlab.errors import InvalidValueError
from embedlab.sizing import EmbeddingLayout, activation_bytes, count


def _questions(advice) -> list[str]:
    return [b.question for b in advice.path]


def test_small_english_model_ties_32k_without_scaling():
    advice = advise("text", languages=1, params=125e6, seq_len=1024)
    r = advice.recipe
    assert (r.vocab_size, r.tied, r.positions, r.scale, r.dim, r.tokens) == (32_000, True, "rotary", 1.0, 768, 1024)
    # by hand: a tied 32,000 × 768 table, rotary holds no rows: 24,576,000 parameters, ×4 bytes
    assert advice.size.total_params == 32_000 * 768 == 24_576_000 and advice.size.bytes == 98_304_000
    assert advice.activation_bytes == 1 * 1024 * 768 * 4
    assert _questions(advice) == [
        "What is your input?",
        "Text: how many languages?",
        "Text: model size?",
        "Width?",
        "Text: position encoding?",
        "Text: sequence length?",
        "Memory budget?",
    ]
    assert [b.from_lesson for b in advice.path] == [True, True, True, False, True, False, False]
    assert advice.fits and advice.budget == 0


def test_multilingual_large_model_unties_128k():
    advice = advise("text", languages=12, params=70e9, seq_len=4096)
    r = advice.recipe
    assert (r.vocab_size, r.tied, r.dim) == (128_000, False, 8192)  # llama-2-70b's width
    assert advice.size.token_params == advice.size.output_params == 128_000 * 8192
    assert advice.size.total_params == 2 * 128_000 * 8192


def test_between_1b_and_7b_the_chart_is_silent_and_we_say_so():
    advice = advise("text", params=3e9)
    size = next(b for b in advice.path if b.question == "Text: model size?")
    assert advice.recipe.tied and "silent" in size.rule


def test_sinusoidal_positions_scale_by_root_d():
    advice = advise("text", params=125e6, positions="sinusoidal", dim=512)
    assert advice.recipe.scale == math.sqrt(512)
    positions = next(b for b in advice.path if b.question == "Text: position encoding?")
    assert positions.verdict == "supports" and "22.6 against 16" in positions.evidence[0].finding
    assert positions.rule == "scale token rows by √D = 22.6"


def test_long_sequences_with_learned_positions_pay_a_row_per_position():
    advice = advise("text", params=125e6, seq_len=8192, positions="learned", batch=4)
    # by hand: 32,000 × 768 tied + 8,192 × 768 learned rows; X is 4 × 8,192 × 768 values
    assert advice.size.total_params == (32_000 + 8192) * 768
    assert advice.size.position_params == 8192 * 768
    assert advice.activation_bytes == 4 * 8192 * 768 * 4


def test_images_at_224_in_a_tight_budget_move_to_a_coarser_patch():
    budget = 300 * 2**20  # 300 MiB: patch 8 needs 592 MiB at batch 256, patch 16 about 151 MiB
    advice = advise("image", params=86e6, image_size=224, detail="detail", memory_budget=budget, batch=256)
    r = advice.recipe
    assert (r.patch_size, r.tokens, r.dim) == (16, 197, 768)
    fine = EmbeddingLayout(dim=768, positions="learned", image_size=224, patch_size=8)
    coarse = EmbeddingLayout(dim=768, positions="learned", image_size=224, patch_size=16)
    assert count(fine).bytes + activation_bytes(fine, 256) > budget  # the chart's patch 8 does not fit ...
    assert count(coarse).bytes + activation_bytes(coarse, 256) <= budget  # ... patch 16 does
    assert advice.size == count(coarse) and advice.fits
    memory = advice.path[-1]
    assert memory.question == "Memory budget?" and "patch 16 instead of 8" in memory.rule


@pytest.mark.parametrize(("detail", "patch", "tokens"), [("standard", 16, 197), ("speed", 32, 50), ("detail", 8, 785)])
def test_the_resolution_answers(detail, patch, tokens):
    r = advise("image", params=86e6, detail=detail).recipe
    assert (r.patch_size, r.tokens) == (patch, tokens)


def test_a_text_budget_is_met_by_tying_then_adaptive_input():
    untied = EmbeddingLayout(vocab_size=128_000, dim=4096, positions="rotary", tied=False)
    tied = EmbeddingLayout(vocab_size=128_000, dim=4096, positions="rotary")
    acts = 1024 * 4096 * 4
    between = count(tied).bytes + acts + 1  # the untied head does not fit, the tied table does
    advice = advise("text", languages=5, params=8e9, memory_budget=between)
    assert count(untied).bytes + acts > between and advice.recipe.tied and advice.recipe.vocab_table == "full"
    assert advice.path[-1].evidence[0].source.startswith("docs/training.md")
    small = count(tied).bytes // 4  # only adaptive input's narrow bands fit
    advice = advise("text", languages=5, params=8e9, memory_budget=small)
    assert advice.recipe.vocab_table == "adaptive" and advice.size.adaptive_cutoffs == (8_000, 32_000)
    assert advice.fits and advice.path[-1].verdict == "supports"  # the race's best text strategy


def test_a_budget_nothing_meets_is_said_not_raised():
    advice = advise("text", params=125e6, memory_budget=1000)
    assert not advice.fits and "still does not fit" in advice.path[-1].rule
    assert "the output X alone needs" in advice.path[-1].rule  # 3 MiB of activations against 1,000 bytes


def test_every_branch_verdict_follows_its_evidence():
    for advice in (advise("text"), advise("text", languages=3, params=9e9), advise("image", detail="speed")):
        for b in advice.path:
            verdicts = {e.verdict for e in b.evidence}
            assert verdicts <= set(VERDICTS) and b.verdict in VERDICTS
            expected = "contradicts" if "contradicts" in verdicts else "supports" if "supports" in verdicts else None
            assert b.verdict == (expected or "not measured here")
        assert len(advice.disagreements) == sum(b.verdict == "contradicts" for b in advice.path)


def test_the_width_is_given_or_the_nearest_real_models():
    assert advise("text", params=7e9).recipe.dim == 4096  # llama-2-7b (6.7B) is nearest
    assert advise("text", params=1.5e9).recipe.dim == 1600  # gpt2-xl
    assert advise("text", params=7e9, dim=1000).recipe.dim == 1000


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"modality": "audio"}, "modality"),
        ({"languages": 0}, "languages"),
        ({"params": 0}, "params"),
        ({"params": True}, "params"),
        ({"seq_len": 0}, "seq_len"),
        ({"positions": "alibi"}, "positions"),
        ({"modality": "image", "image_size": 100}, "image_size"),
        ({"modality": "image", "detail": "huge"}, "detail"),
        ({"memory_budget": -1}, "memory_budget"),
        ({"batch": 0}, "batch"),
        ({"dtype": "fp8"}, "dtype"),
    ],
)
def test_bad_input_names_the_value(kwargs, named):
    with pytest.raises(InvalidValueError, match=named):
        advise(**kwargs)
