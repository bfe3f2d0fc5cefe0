"""The recorded full race and sweep that ship with embedlab are a real race's and sweep's results.json:
their figures follow from their own runs, and every run spent the budget the arena's FLOPs rule buys."""

from __future__ import annotations

import statistics

import pytest

from embedlab.arena.strategies import BUDGETS, STRATEGIES
from embedlab.arena.sweep import SWEEP_STRATEGIES, SWEEPS
from embedlab.data.races import recorded_race, recorded_sweep


@pytest.fixture(scope="module")
def race():
    return recorded_race()


def test_it_is_the_full_budget_over_every_strategy_with_how_it_was_run(race):
    assert race["budget"]["name"] == "full" and race["budget"]["text_flops"] == BUDGETS["full"].text_flops
    raced_apart = ("large-v-factorized", "large-v-tied")  # added since, raced apart: docs/results/factorized.json
    # quotient-remainder too, since stop 29
    assert [s["name"] for s in race["strategies"]] == [name for name in STRATEGIES if name not in raced_apart]
    assert race["recorded"]["command"].startswith("embedlab arena --out") and "left_out" not in race["recorded"]


def test_each_figure_is_the_mean_of_its_seeds_and_lies_in_its_interval(race):
    checked = 0
    for r in race["results"]:
        if r["value"] is None or r["interval"] is None:  # n/a, or a count no seed moves (the lesson's params)
            continue
        assert r["value"] == pytest.approx(statistics.fmean(r["values"]), rel=1e-12)
        low, high = r["interval"]
        assert low <= r["value"] <= high
        checked += 1
    assert checked > 100


def test_every_run_trained_the_whole_steps_its_budget_buys(race):
    full = BUDGETS["full"]
    for run in race["runs"]:
        budget = full.text_flops if STRATEGIES[run["strategy"]].kind == "text" else full.image_flops
        assert run["steps"] == int(budget // run["flops_per_step"]), run["strategy"]
        assert run["train_flops"] == run["steps"] * run["flops_per_step"] <= budget


# --- the recorded full sweep ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def sweep():
    return recorded_sweep()


def test_the_sweep_is_the_full_plan_with_how_it_was_run(sweep):
    plan = SWEEPS["full"]
    assert sweep["plan"]["name"] == "full" and tuple(sweep["plan"]["shares"]) == plan.shares
    assert [(p["width"], p["share"]) for p in sweep["points"]] == plan.points()
    assert [s["name"] for s in sweep["strategies"]] == list(SWEEP_STRATEGIES)
    assert sweep["recorded"]["command"].startswith("embedlab arena --sweep --out")


def test_every_sweep_run_trained_the_whole_steps_its_budget_buys(sweep):
    for point in sweep["points"]:
        assert point["budget_flops"] == SWEEPS["full"].budget(point["width"], point["share"]).text_flops
        for row in point["strategies"]:
            step = row["train_flops"] / row["steps"]  # one seed: the run's own figures
            assert row["train_flops"] <= point["budget_flops"] < row["train_flops"] + step, row["strategy"]


def test_each_winner_is_the_lowest_figure_at_its_point(sweep):
    by_point = {(p["width"], p["share"]): p for p in sweep["points"]}
    assert len(sweep["winners"]) == 2 * len(sweep["points"])  # bits per byte and rare words at each point
    for w in sweep["winners"]:
        rows = by_point[w["width"], w["share"]]["strategies"]
        assert w["winner"] == min(rows, key=lambda r: r[w["metric"]])["strategy"]
        assert w["verdict"] == "within noise"  # one seed: nothing is judged beyond noise


def test_the_figures_docs_quote_are_the_recorded_races(race):
    """docs/arena.md and docs/lessons.md (001.8.2) quote these, rounded as there."""
    value = {(r["strategy"], r["metric"]): r["value"] for r in race["results"]}
    raced = [s["name"] for s in race["strategies"]]
    bpb = {name: round(value[name, "bits_per_byte"], 3) for name in raced if STRATEGIES[name].kind == "text"}
    assert bpb == {
        "small-v-tied": 2.264,
        "large-v-untied": 2.349,
        "bpe-32k": 2.257,
        "bytes": 3.178,
        "large-v-adaptive": 2.030,
        "large-v-hashed": 2.366,
        "large-v-qr": 2.530,
    }
    assert (round(value["patch-32", "accuracy"], 3), round(value["patch-16", "accuracy"], 3)) == (0.859, 0.752)
    lesson_order = ("small-v-tied", "bpe-32k", "bytes", "large-v-untied")
    assert [round(value[name, "tokens_per_input"], 1) for name in lesson_order] == [42.0, 34.2, 110.1, 29.9]
