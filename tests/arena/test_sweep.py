"""The budget sweep (arena/sweep.py) on a tiny budget: every point raced and summarised, each run's
FLOPs counted at its own width, the winners the lowest figures, a killed sweep resumed, another
sweep or a race refused, and the figures drawn again from results.json alone."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from embedlab.arena.flops import lm_step_flops
from embedlab.arena.redraw import redraw
from embedlab.arena.runner import RESULTS_FILE, RUNS, Race
from embedlab.arena.strategies import STRATEGIES
from embedlab.arena.sweep import FIGURE, METRICS, SWEEP_FILE, SWEEP_STRATEGIES, SWEEPS, Sweep
from embedlab.errors import InvalidValueError, OutputExistsError
from embedlab.models.lm import LMConfig

PNG = b"\x89PNG\r\n\x1a\n"
TIMED = {"train_seconds"}  # the clock's own figure: the only one a rerun may change


def _run(folder, width, share, strategy) -> dict:
    return json.loads((folder / f"d{width}" / f"x{share:g}" / RUNS / f"{strategy}-seed0.json").read_text())


def test_every_point_is_raced_at_its_width_and_budget(tiny_sweep):
    folder, _, summary = tiny_sweep
    assert summary == json.loads((folder / RESULTS_FILE).read_text())
    assert [(p["width"], p["share"]) for p in summary["points"]] == [(32, 0.5), (32, 1.0), (64, 0.5), (64, 1.0)]
    for point in summary["points"]:
        assert [r["strategy"] for r in point["strategies"]] == list(SWEEP_STRATEGIES)
        for row in point["strategies"]:
            run = _run(folder, point["width"], point["share"], row["strategy"])
            layout = STRATEGIES[row["strategy"]].arena
            config = LMConfig(layout.vocab_size, point["width"], 2, 4, run["context_tokens"], layout.tied)
            step = lm_step_flops(config, 32)  # the FLOPs of a step at this point's width, not the arena's 64
            assert run["flops_per_step"] == step and row["train_flops"] == run["steps"] * step
            assert point["budget_flops"] - step < row["train_flops"] <= point["budget_flops"]
            assert 1.0 < row["bits_per_byte"] < 9.0 and row["bits_per_byte"] == run["bits_per_byte"]
    narrow, wide = summary["points"][0]["strategies"][0], summary["points"][2]["strategies"][0]
    assert wide["params_non_embedding"] > 3 * narrow["params_non_embedding"]  # the body is ~12·L·D²
    assert wide["params_embedding"] == 2 * narrow["params_embedding"]  # V rows of D: twice as wide


def test_the_winner_is_the_lowest_figure(tiny_sweep):
    _, _, summary = tiny_sweep
    assert len(summary["winners"]) == len(summary["points"]) * len(METRICS)
    for w in summary["winners"]:
        (point,) = [p for p in summary["points"] if (p["width"], p["share"]) == (w["width"], w["share"])]
        figures = sorted((r[w["metric"]], r["strategy"]) for r in point["strategies"])
        assert (w["winner"], w["runner_up"]) == (figures[0][1], figures[1][1])
        assert w["margin"] == pytest.approx(figures[1][0] - figures[0][0])
        assert w["verdict"] == "within noise"  # one seed says nothing about noise
    assert [a["width"] for a in summary["anchor"]["arena"]] == [32, 64]


def test_a_killed_sweep_resumes(tiny_sweep, tmp_path):
    folder, plan, summary = tiny_sweep
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    (copy / RESULTS_FILE).unlink()
    (copy / "d64" / "x1" / RESULTS_FILE).unlink()
    (copy / "d64" / "x1" / RUNS / "bytes-seed0.json").unlink()  # as a sweep killed during its last run leaves it
    stages = []
    again = Sweep.open(copy, plan).run(lambda e: stages.append((e.width, e.share, e.race.stage)))
    trained = {(w, s) for w, s, stage in stages if stage == "finished"}
    assert trained == {(64, 1.0)} and sum(stage == "resumed" for _, _, stage in stages) == 15
    for one, two in zip(summary["points"], again["points"], strict=True):
        for a, b in zip(one["strategies"], two["strategies"], strict=True):
            assert {k: v for k, v in a.items() if k not in TIMED} == {k: v for k, v in b.items() if k not in TIMED}
    assert again["winners"] == summary["winners"]


def test_another_sweep_or_a_race_is_refused(tiny_sweep, tmp_path):
    folder, _, _ = tiny_sweep
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    with pytest.raises(InvalidValueError, match="holds a tiny sweep on cpu; pick another folder, or force"):
        Sweep.open(copy, "quick")
    Sweep.open(copy, "quick", force=True)  # starts over: the old points and results are gone
    assert not (copy / "d32").exists() and not (copy / RESULTS_FILE).exists() and (copy / "tokenizers").is_dir()
    Race.open(tmp_path / "race", "quick", strategies=["bytes"], tasks=["lm"])
    with pytest.raises(InvalidValueError, match="holds an arena race, not a sweep"):
        Sweep.open(tmp_path / "race", "quick", force=True)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    with pytest.raises(InvalidValueError, match="exists and holds no sweep"):
        Sweep.open(tmp_path / "mine", "quick")


def test_the_figures_are_drawn_again_from_the_results(tiny_sweep, tmp_path):
    folder, _, _ = tiny_sweep
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("*.png", "text", "tokenizers", RUNS))
    paths = redraw(copy)
    assert copy / FIGURE in paths and len(paths) == 1 + 4 * 4  # sweep.png; each point's lm, rare, cost, curves
    assert all(p.read_bytes()[:8] == PNG for p in paths)
    with pytest.raises(InvalidValueError, match="holds no arena race or sweep"):
        redraw(tmp_path / "nothing")


def test_of_sweeps_started_at_once_in_one_new_folder_exactly_one_wins(tmp_path, at_once):
    """Each sweep has its own plan, so a latecomer cannot take the winner's sweep.json as its own."""
    folder, n = tmp_path / "sweep", 6
    plans = [replace(SWEEPS["quick"], name=f"quick{i}") for i in range(n)]
    outcome = at_once(n, lambda i: Sweep.open(folder, plans[i]))
    winners = [i for i, err in enumerate(outcome) if err is None]
    assert len(winners) == 1, outcome
    for err in outcome:
        assert err is None or (isinstance(err, (OutputExistsError, InvalidValueError)) and str(folder) in str(err))
    assert Sweep.read_plan(folder)["plan"]["name"] == f"quick{winners[0]}"
    (folder / SWEEP_FILE).write_text("")  # a claim not yet written is not taken either
    with pytest.raises(OutputExistsError, match="was taken by another sweep"):
        Sweep.open(folder, plans[winners[0]])


def test_a_sweeps_anchor_is_derived_again_when_read(tiny_sweep, tmp_path):
    folder, _, summary = tiny_sweep
    written = json.loads((folder / RESULTS_FILE).read_text())
    assert written["anchor"] == summary["anchor"] and "overtakes_32k_at" in written["anchor"]
    # a sweep written before the anchor had a field (or whose anchor was damaged) reads with today's
    older = {**written, "anchor": {"params_at_32k": "damaged"}}
    (tmp_path / RESULTS_FILE).write_text(json.dumps(older))
    assert Sweep.read_results(tmp_path)["anchor"] == summary["anchor"]
