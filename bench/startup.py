"""The first minute at the terminal: how long `embedlab` takes to answer, end to end, in fresh processes.

    python bench/startup.py                 # every help page and three queries, median of 5
    python bench/startup.py --reps 9 --json

Each figure is the wall time of a fresh `embedlab ...` process (the console script of this
environment), from start to exit, so it includes Python's start, the imports and the work:

  1. `embedlab --help` and every `embedlab COMMAND --help` (the subcommands included);
  2. `embedlab neighbors minilm king -k 10`, `embedlab analogy minilm "king - man + woman"` and
     `embedlab size --preset bert-base`: a first question on a built-in table.

A baseline stands beside them: `python -c pass` (the interpreter alone) and `python -c "import
torch"` (what every command paid before the imports moved inside the commands). The commands run
round-robin, one of each per repetition, so drift on a shared machine hits all of them alike.

Goals (issue 21): every help page <= 0.5 s; a neighbours query on a built-in table <= 1.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
EMBEDLAB = str(BIN / "embedlab")
HELP_GOAL_S = 0.5
QUERY_GOAL_S = 1.5

HELPS = [
    [],
    ["size"],
    ["embed"],
    ["context"],
    ["tokenize"],
    ["tokenizer"],
    ["tokenizer", "train"],
    ["neighbors"],
    ["analogy"],
    ["evaluate"],
    ["compare"],
    ["export"],
    ["train"],
    ["arena"],
    ["lab"],
]
QUERIES = {
    "neighbors minilm king": [EMBEDLAB, "neighbors", "minilm", "king", "-k", "10"],
    "analogy minilm": [EMBEDLAB, "analogy", "minilm", "king - man + woman"],
    "size --preset bert-base": [EMBEDLAB, "size", "--preset", "bert-base"],
}
BASELINES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import torch'": [sys.executable, "-c", "import torch"],
}


def timed(command: list[str]) -> float:
    """Seconds from starting `command` to its exit; a failing command stops the benchmark."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return seconds


def measure(reps: int) -> dict[str, dict[str, float]]:
    commands = {
        **{"embedlab " + " ".join([*words, "--help"]): [EMBEDLAB, *words, "--help"] for words in HELPS},
        **{f"embedlab {name}": command for name, command in QUERIES.items()},
        **BASELINES,
    }
    for command in commands.values():  # warm the file cache (and numba's, for the queries)
        timed(command)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(reps):
        for name, command in commands.items():
            times[name].append(timed(command))
    return {name: {"median_s": statistics.median(t), "max_s": max(t)} for name, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions of every command (default 5)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    if not 1 <= args.reps <= 100:
        parser.error(f"--reps must be 1..100; got {args.reps}")
    results = measure(args.reps)
    helps = {k: v for k, v in results.items() if k.endswith("--help")}
    summary = {
        "reps": args.reps,
        "load_average": os.getloadavg(),
        "slowest_help_s": max(v["median_s"] for v in helps.values()),
        "neighbors_s": results["embedlab neighbors minilm king"]["median_s"],
        "results": results,
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"medians of {args.reps} fresh processes; load average {summary['load_average'][0]:.2f}")
    for name, r in results.items():
        print(f"  {name:<45} {r['median_s']:6.3f} s   (max {r['max_s']:.3f})")
    print(
        f"slowest help page {summary['slowest_help_s']:.3f} s (goal <= {HELP_GOAL_S}); "
        f"neighbours query {summary['neighbors_s']:.3f} s (goal <= {QUERY_GOAL_S})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
