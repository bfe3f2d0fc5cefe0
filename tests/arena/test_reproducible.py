"""The same seed gives the same numbers: every strategy of the quick race, raced again on the
session's small race's tiny budget in another folder, scores the same (only the clock's own figures
differ)."""

from __future__ import annotations

from embedlab.arena.runner import Race
from embedlab.arena.strategies import BUDGETS

QUICK = BUDGETS["quick"].strategies  # every strategy but those the quick race leaves out (tests/arena/test_race.py)

# What the machine's clock measures, which no seed fixes
TIMED = {"train_seconds", "tokens_per_second", "bytes_per_second", "images_per_second", "latency_ms"}
TIMED_METRICS = {"latency_ms", "training_throughput"}


def test_the_same_seed_gives_the_same_numbers(small_race, tmp_path):
    folder, first = small_race
    budget = Race.resume(folder).budget
    second = Race.open(tmp_path / "again", budget).run()
    assert len(first["runs"]) == len(budget.strategies) == len(QUICK)
    for one, two in zip(first["runs"], second["runs"], strict=True):
        assert one.keys() == two.keys() and one["steps"] > 0
        for key in one.keys() - TIMED:
            assert one[key] == two[key], (one["strategy"], key)  # same machine, same process: bit for bit
    scores = [(r, s) for r, s in zip(first["results"], second["results"], strict=True)]
    assert all(r == s for r, s in scores if r["metric"] not in TIMED_METRICS)
