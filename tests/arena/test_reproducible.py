"""The same seed gives the same numbers: every strategy of the quick race, run twice on a tiny
compute budget in two folders, scores the same (only the clock's own figures differ)."""

from __future__ import annotations

import dataclasses

from embedlab.arena.runner import Race
from embedlab.arena.strategies import BUDGETS, STRATEGIES

# The quick race's setting with a sliver of its data and compute: seconds a run.
TINY = dataclasses.replace(BUDGETS["quick"], name="tiny", train_bytes=150_000, eval_bytes=12_000, text_flops=2e10,
                           image_flops=5e10, image_train=2_000, image_test=500)  # fmt: skip
# What the machine's clock measures, which no seed fixes
TIMED = {"train_seconds", "tokens_per_second", "bytes_per_second", "images_per_second", "latency_ms"}
TIMED_METRICS = {"latency_ms", "training_throughput"}


def test_the_same_seed_gives_the_same_numbers(tmp_path):
    first, second = (Race.open(tmp_path / name, TINY).run() for name in ("a", "b"))
    assert len(first["runs"]) == len(TINY.strategies) == len(STRATEGIES) - 1  # all but quotient-remainder
    for one, two in zip(first["runs"], second["runs"], strict=True):
        assert one.keys() == two.keys() and one["steps"] > 0
        for key in one.keys() - TIMED:
            assert one[key] == two[key], (one["strategy"], key)  # same machine, same process: bit for bit
    scores = [(r, s) for r, s in zip(first["results"], second["results"], strict=True)]
    assert all(r == s for r, s in scores if r["metric"] not in TIMED_METRICS)
