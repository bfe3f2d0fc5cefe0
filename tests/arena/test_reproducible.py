"""The same seed gives the same numbers: one strategy of each kind of the quick race (a BPE table,
bytes, hashed rows, adaptive input, image patches), raced again on the session's small race's tiny
budget in another folder, scores what the small race scored (only the clock's own figures differ).
The other three differ from one of these only in sizes or in tying the head (large V, BPE at 8K,
patch-16), which the same code builds and trains."""

from __future__ import annotations

from embedlab.arena.runner import Race
from embedlab.arena.strategies import BUDGETS

QUICK = BUDGETS["quick"].strategies  # every strategy but those the quick race leaves out (tests/arena/test_race.py)
AGAIN = ("small-v-tied", "bytes", "large-v-hashed", "large-v-adaptive", "patch-32")

# What the machine's clock measures, which no seed fixes
TIMED = {"train_seconds", "tokens_per_second", "bytes_per_second", "images_per_second", "latency_ms"}
TIMED_METRICS = {"latency_ms", "training_throughput"}


def test_the_same_seed_gives_the_same_numbers(small_race, tmp_path):
    folder, first = small_race
    budget = Race.resume(folder).budget
    assert len(first["runs"]) == len(budget.strategies) == len(QUICK) and set(AGAIN) <= set(QUICK)
    second = Race.open(tmp_path / "again", budget, strategies=AGAIN).run()
    runs = {r["strategy"]: r for r in first["runs"]}
    assert sorted(r["strategy"] for r in second["runs"]) == sorted(AGAIN)
    for two in second["runs"]:
        one = runs[two["strategy"]]
        assert one.keys() == two.keys() and one["steps"] > 0
        for key in one.keys() - TIMED:
            assert one[key] == two[key], (one["strategy"], key)  # same machine, same process: bit for bit
    # each strategy's own scores; what compares strategies (rankings, orderings) differs with the field
    scores = {(r["strategy"], r["task"], r["metric"]): r for r in first["results"]}
    again = [r for r in second["results"] if r["metric"] not in TIMED_METRICS]
    assert again and all(r == scores[r["strategy"], r["task"], r["metric"]] for r in again)
