"""The arena's registry and its reports, before any training: the lesson's parameter counts, which
tasks apply, results over seeds, and the race folder's rules."""

from __future__ import annotations

import json

import pytest

from embedlab.arena.runner import RACE_FILE, Race
from embedlab.arena.strategies import BUDGETS, STRATEGIES, strategy
from embedlab.arena.tasks import orderings, results
from embedlab.errors import InvalidValueError, UnknownNameError
from embedlab.sizing import count


def test_the_lessons_parameter_counts():
    # the figures: 8,000×768; 2×128,000×4,096; 32,000×768; 256×768; patch projections
    assert {name: s.lesson_params for name, s in STRATEGIES.items()} == {
        "small-v-tied": 6_144_000, "large-v-untied": 1_048_576_000, "bpe-32k": 24_576_000, "bytes": 196_608,
        "patch-16": 16 * 16 * 3 * 768 + 768, "patch-32": 32 * 32 * 3 * 768 + 768,
        # bands 8,000×4,096, 24,000×1,024, 96,000×256, their two maps up to 4,096 and two cluster rows
        "large-v-adaptive": 8_000 * 4_096 + 24_000 * 1_024 + 96_000 * 256 + (1_024 + 256) * 4_096 + 2 * 4_096,
        "large-v-hashed": 12_000 * 4_096 + 12_000 * 2 + 128_000 * 4_096,  # shared rows, weights, untied head
        "large-v-qr": (358 + 358) * 4_096,  # quotients and remainders, the head tied to their rows
        "large-v-factorized": 128_000 * 1_024 + 1_024 * 4_096,  # V·E + E·H, the head tied to both
        "large-v-tied": 128_000 * 4_096,
    }  # fmt: skip
    patch = STRATEGIES["patch-16"].to_dict()["lesson"]
    assert patch["params_without_bias"] == 589_824 and patch["tokens_per_input"] == "196"
    for s in STRATEGIES.values():  # the arena's counts come from the same arithmetic
        report = count(s.arena)
        assert s.arena_params == (
            report.patch_params if s.kind == "image" else report.token_params + report.output_params
        )


def test_the_arena_keeps_the_lessons_proportions():
    v = {name: STRATEGIES[name].arena.vocab_size for name in ("small-v-tied", "bpe-32k", "large-v-untied")}
    assert v["bpe-32k"] == 4 * v["small-v-tied"] and v["large-v-untied"] == 4 * v["bpe-32k"]  # 8K : 32K : 128K
    assert [STRATEGIES[n].arena.n_patches for n in ("patch-16", "patch-32")] == [196, 49]
    assert [STRATEGIES[n].lesson.n_patches for n in ("patch-16", "patch-32")] == [196, 49]
    assert not STRATEGIES["large-v-untied"].arena.tied and STRATEGIES["small-v-tied"].arena.tied


def test_which_tasks_apply():
    assert STRATEGIES["bytes"].applies_to("lm") and not STRATEGIES["bytes"].applies_to("image")
    assert STRATEGIES["patch-32"].applies_to("image") and not STRATEGIES["patch-32"].applies_to("rare")
    assert all(s.applies_to("cost") for s in STRATEGIES.values())
    with pytest.raises(UnknownNameError, match="unknown strategy 'bpe'; known: bpe-32k, bytes"):
        strategy("bpe")


def test_results_over_seeds_and_not_applicable():
    runs = {
        0: {"bits_per_byte": 2.0, "unigram_bits_per_byte": 5.0},
        1: {"bits_per_byte": 2.5, "unigram_bits_per_byte": 5.0},
    }
    lm, untrained, unigram, over_untrained, over_unigram = results(STRATEGIES["bytes"], "lm", runs)
    assert (lm.value, lm.values, lm.spread, lm.seeds, lm.unit) == (2.25, [2.0, 2.5], [2.0, 2.5], [0, 1], "bits/byte")
    assert (unigram.metric, unigram.value, over_unigram.metric) == ("unigram_bits_per_byte", 5.0, "gain_over_unigram")
    assert (over_unigram.values, over_unigram.better) == ([3.0, 2.5], "higher")  # baseline less model
    assert untrained.value is over_untrained.value is None and "no run measured" in over_untrained.reason
    (na,) = results(STRATEGIES["patch-16"], "lm", {})
    assert na.value is None and not na.applicable and "reads no text" in na.reason
    (na,) = results(STRATEGIES["bytes"], "image", runs)
    assert na.value is None and "sees no image" in na.reason
    with pytest.raises(InvalidValueError, match="no finished run of bytes"):
        results(STRATEGIES["bytes"], "lm", {})


def test_orderings_are_judged_against_seed_noise():
    runs = {
        "small-v-tied": {0: {"bits_per_byte": 2.10}, 1: {"bits_per_byte": 2.20}, 2: {"bits_per_byte": 2.15}},
        "bpe-32k": {0: {"bits_per_byte": 2.30}, 1: {"bits_per_byte": 2.41}, 2: {"bits_per_byte": 2.33}},
        "bytes": {0: {"bits_per_byte": 2.00}, 1: {"bits_per_byte": 2.45}, 2: {"bits_per_byte": 2.30}},
    }
    rows = [results(STRATEGIES[name], "lm", seeds)[0] for name, seeds in runs.items()]
    assert rows[0].interval[0] < rows[0].value < rows[0].interval[1]
    judged = orderings(rows)
    found = {(o["winner"], o["loser"]): o["verdict"] for o in judged}
    assert found == {("small-v-tied", "bpe-32k"): "holds", ("small-v-tied", "bytes"): "within noise",
                     ("bytes", "bpe-32k"): "within noise"}  # fmt: skip
    # the three are one family: the smallest p is tripled by Holm's correction, and still below 0.05
    first = next(o for o in judged if o["loser"] == "bpe-32k" and o["winner"] == "small-v-tied")
    assert first["p"] < 0.05 / 3 and first["p_holm"] == pytest.approx(3 * first["p"])


def test_a_race_folder_holds_one_race(tmp_path):
    race = Race.open(tmp_path / "r", "quick", strategies=["bytes"], tasks=["lm"])
    assert race.pairs() == [("bytes", 0)] and json.loads((tmp_path / "r" / RACE_FILE).read_text())["device"] == "cpu"
    assert Race.open(tmp_path / "r", "quick").budget == BUDGETS["quick"]  # the same race: resumed
    with pytest.raises(InvalidValueError, match="holds a quick race on cpu; pick another folder, or force"):
        Race.open(tmp_path / "r", "full")
    (tmp_path / "r" / "runs" / "bytes-seed0.json").write_text("{}")
    Race.open(tmp_path / "r", "full", force=True)
    assert not (tmp_path / "r" / "runs" / "bytes-seed0.json").exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(InvalidValueError, match="exists and holds no race"):
        Race.open(tmp_path / "other", "quick")
    with pytest.raises(InvalidValueError, match="device must be one of cpu, cuda; got 'tpu'"):
        Race.open(tmp_path / "x", "quick", device="tpu")
    # image strategies only need no text run, and a task no strategy of the race can do needs no run
    assert Race.open(tmp_path / "y", "quick", strategies=["patch-16"], tasks=["lm"]).pairs() == []


def test_the_huge_vocabulary_tables_are_10x_smaller_than_large_vs():
    full = STRATEGIES["large-v-untied"].arena
    hashed, qr = STRATEGIES["large-v-hashed"].arena, STRATEGIES["large-v-qr"].arena
    assert count(full).token_params >= 10 * count(hashed).token_params  # 2,048,000 against 198,000 numbers
    assert STRATEGIES["large-v-untied"].arena_params >= 10 * STRATEGIES["large-v-qr"].arena_params  # the whole
    assert hashed.hashed_rows * 10 <= full.vocab_size and qr.vocab_table == "quotient-remainder"
    adaptive = STRATEGIES["large-v-adaptive"]
    assert adaptive.arena.adaptive_cutoffs == (2_000, 8_000) and adaptive.arena_params == 321_408
