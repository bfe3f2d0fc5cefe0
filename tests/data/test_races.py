"""The recorded full race that ships with embedlab is a real race's results.json: its figures follow
from its own runs, and every run spent the budget the arena's FLOPs rule buys."""

from __future__ import annotations

import statistics

import pytest

from embedlab.arena.strategies import BUDGETS, STRATEGIES
from embedlab.data.races import recorded_race


@pytest.fixture(scope="module")
def race():
    return recorded_race()


def test_it_is_the_full_budget_over_every_strategy_with_how_it_was_run(race):
    assert race["budget"]["name"] == "full" and race["budget"]["text_flops"] == BUDGETS["full"].text_flops
    # quotient-remainder's full-race runs are not in it yet, and the record says so
    assert [s["name"] for s in race["strategies"]] == [name for name in STRATEGIES if name != "large-v-qr"]
    assert race["recorded"]["command"].startswith("embedlab arena --out")
    assert "large-v-qr" in race["recorded"]["left_out"]


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
