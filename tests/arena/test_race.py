"""A race end to end (every strategy of the quick race, on a tiny budget, run once per session): its
results make sense, its parameter counts are sizing's, and a second run resumes instead of training
again. How the strategies rank is the recorded races' business (tests/data/test_races.py), not this
race's: its runs are a second or two each."""

from __future__ import annotations

import json

from embedlab.arena.runner import RESULTS_FILE, Race
from embedlab.arena.strategies import BUDGETS, STRATEGIES, TASKS
from embedlab.sizing import count

QUICK = BUDGETS["quick"].strategies  # every strategy but three (their reason is beside QUICK_STRATEGIES)
TEXT = [name for name in QUICK if STRATEGIES[name].kind == "text"]
IMAGE = [name for name in QUICK if STRATEGIES[name].kind == "image"]


def _result(summary, strategy, task, metric):
    (r,) = [r for r in summary["results"] if (r["strategy"], r["task"], r["metric"]) == (strategy, task, metric)]
    return r


def test_the_json_contract(small_race):
    folder, summary = small_race
    assert summary == json.loads((folder / RESULTS_FILE).read_text())
    assert [s["name"] for s in summary["strategies"]] == list(QUICK) and summary["tasks"] == list(TASKS)
    assert set(STRATEGIES) - set(QUICK) == {"large-v-qr", "large-v-factorized", "large-v-tied"}
    for r in summary["results"]:
        assert {"strategy", "task", "metric", "value", "unit", "seeds"} <= r.keys()
    lesson = {s["name"]: s["lesson"]["params"] for s in summary["strategies"]}
    assert lesson["small-v-tied"] == 6_144_000 and lesson["large-v-untied"] == 1_048_576_000
    for name in IMAGE:  # patches on text: not applicable, never a number
        for task in ("lm", "rare"):
            (r,) = [r for r in summary["results"] if (r["strategy"], r["task"]) == (name, task)]
            assert r["value"] is None and r["applicable"] is False
    for name in TEXT:
        (r,) = [r for r in summary["results"] if (r["strategy"], r["task"]) == (name, "image")]
        assert r["value"] is None and "sees no image" in r["reason"]
    assert {p.name for p in folder.glob("*.png")} == {f"{task}.png" for task in TASKS} | {"curves.png"}
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in folder.glob("*.png"))


def test_bits_per_byte_are_sane_and_fall_with_training(small_race):
    _, summary = small_race
    runs = {run["strategy"]: run for run in summary["runs"]}
    for name in TEXT:
        bpb = _result(summary, name, "lm", "bits_per_byte")["value"]
        assert 1.0 < bpb < (8.0 if name == "bytes" else 6.0), (name, bpb)  # English text: under 8 bits a byte
        curve = runs[name]["curve"]
        assert curve[-1][1] < curve[0][1], name  # the model learned
        assert _result(summary, name, "rare", "rare_bits_per_byte")["value"] > 0
    # bytes start from nothing: 8 bits a byte is a uniform guess over 256; 4e10 FLOPs take them 0.2-0.3 down
    assert abs(runs["bytes"]["curve"][0][1] - 8.0) < 0.2 and runs["bytes"]["curve"][-1][1] < 7.9


def test_images_are_classified_beyond_chance(small_race):
    _, summary = small_race
    runs = {run["strategy"]: run for run in summary["runs"]}
    tested = summary["budget"]["image_test"]
    # chance is 0.10, and a guess's accuracy on 500 images spreads by sqrt(0.1 × 0.9 / 500) = 0.013: 0.15 is
    # beyond chance by 3.7 of those. 6e10 FLOPs teach patch 32 (50 tokens an image) far more (measured 0.41),
    # patch 16 (197 tokens, four times the cost of a step) less (0.22)
    for name in IMAGE:
        assert _result(summary, name, "image", "accuracy")["value"] > 0.15 and runs[name]["n_test"] == tested
        assert runs[name]["curve"][-1][1] > runs[name]["curve"][0][1]
    assert _result(summary, "patch-16", "cost", "tokens_per_input")["value"] == 197  # 196 patches + CLS
    assert _result(summary, "patch-32", "cost", "attention_scores_per_input")["value"] == 50**2


def test_parameter_counts_are_sizings(small_race):
    _, summary = small_race
    for name in QUICK:
        s = STRATEGIES[name]
        report = count(s.arena)
        tables = report.patch_params if s.kind == "image" else report.token_params + report.output_params
        assert _result(summary, name, "cost", "embedding_params_arena")["value"] == tables == s.arena_params
        assert _result(summary, name, "cost", "embedding_params_lesson")["value"] == s.lesson_params
    # the byte-level strategy needs the most tokens per input, the largest vocabulary the fewest
    tokens = {name: _result(summary, name, "cost", "tokens_per_input")["value"] for name in TEXT}
    assert max(tokens, key=tokens.get) == "bytes" and min(tokens, key=tokens.get) == "large-v-untied"


def test_a_finished_race_resumes_without_training(small_race, tmp_path):
    import shutil

    folder, summary = small_race
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    (copy / RESULTS_FILE).unlink()
    stages = []
    again = Race.resume(copy).run(lambda event: stages.append(event.stage))
    assert stages == ["resumed"] * len(QUICK)
    assert again["results"] == summary["results"]
