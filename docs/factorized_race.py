"""ALBERT's factorised table raced at equal compute against the plain table it factorises: the figures
of docs/arena.md's "ALBERT's factorised embedding" section.

    python docs/factorized_race.py                         # writes docs/results/factorized.json
    python docs/factorized_race.py --out runs/factorized --results FILE.json

The quick race's budget (enwiki-sample, 600 KB of training text, 5e11 training FLOPs a run) over
seeds 0, 1 and 2, for two text strategies on large V's 32K BPE and TinyLM body:
    large-v-factorized  32,000 × 16 rows mapped up to 64 by one 16 × 64 matrix, the head tied to both
    large-v-tied        the plain 32,000 × 64 table it factorises, tied the same way (the control)
The race folder (--out, default runs/factorized) resumes as any race does. Each gap is judged on the
per-seed differences (arena/noise.py): its 95% Student t interval and paired p, and Holm's correction
across the gaps (one per metric) as one family. The six runs of 5e11 FLOPs took 50 minutes of training
on the 2-core machine while it was loaded about 15-fold (2026-11-27); large-v-untied, the race's large V,
was left out for that reason (at that load a run of it takes 10 to 20 minutes).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch

from embedlab.arena.claims import paired_gap
from embedlab.arena.noise import family_verdicts, t_interval
from embedlab.arena.runner import Race
from embedlab.arena.strategies import BUDGETS
from embedlab.files import atomic_write_text

RESULTS = Path(__file__).parent / "results" / "factorized.json"
SEEDS = (0, 1, 2)
STRATEGIES = ("large-v-factorized", "large-v-tied")
PAIRS = (("large-v-factorized", "large-v-tied"),)
METRICS = ("bits_per_byte", "rare_bits_per_byte", "unseen_bits_per_byte")  # lower is better on each
PER_RUN = ("steps", "flops_per_step", "train_seconds", "bits_per_byte", "rare_bits_per_byte", "unseen_bits_per_byte",
           "unigram_bits_per_byte", "unigram_rare_bits_per_byte", "untrained_bits_per_byte",
           "params_embedding")  # fmt: skip


def measure(folder: Path) -> dict:
    three = ("large-v-factorized", "large-v-tied", "large-v-untied")  # the race's setting as first started
    budget = replace(BUDGETS["quick"], name="quick-3-seeds", seeds=SEEDS, strategies=three)
    race = Race.open(folder, budget, STRATEGIES, tasks=("lm", "rare", "cost"))
    summary = race.run(on_event=lambda e: e.stage in ("finished", "resumed") and print(e.strategy, e.seed, e.stage))
    runs = {name: {r["seed"]: {k: r[k] for k in PER_RUN} for r in summary["runs"] if r["strategy"] == name}
            for name in STRATEGIES}  # fmt: skip
    gaps = [(a, b, metric, paired_gap(summary, metric, a, b)) for a, b in PAIRS for metric in METRICS]
    judged = family_verdicts([[-g for g in gap] for *_, gap in gaps])  # a gain is b - a: lower is better
    return {
        "budget": {
            "name": budget.name,
            "corpus": budget.corpus,
            "text_flops": budget.text_flops,
            "train_bytes": budget.train_bytes,
            "eval_bytes": budget.eval_bytes,
        },  # fmt: skip
        "seeds": list(SEEDS),
        "runs": {name: {str(seed): run for seed, run in by_seed.items()} for name, by_seed in runs.items()},
        "means": {
            name: {k: statistics.fmean(run[k] for run in by_seed.values()) for k in PER_RUN}
            for name, by_seed in runs.items()
        },  # fmt: skip
        "gaps": [
            {
                "a": a,
                "b": b,
                "metric": metric,
                "values": gap,
                "mean": statistics.fmean(gap),
                "interval": list(t_interval(gap)),
                "p": p,
                "p_holm": p_holm,
                "verdict": verdict,
            }
            for (a, b, metric, gap), (verdict, p, p_holm) in zip(gaps, judged, strict=True)
        ],  # fmt: skip
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/factorized"), help="the race's folder")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where to write the figures")
    args = parser.parse_args()
    start = time.time()
    results = measure(args.out)
    results["recorded"] = {
        "command": "python docs/factorized_race.py",
        "date": time.strftime("%Y-%m-%d"),
        "wall_seconds": round(time.time() - start),  # this call's: a resumed race reads its runs back
        "train_seconds": round(sum(run["train_seconds"] for by in results["runs"].values() for run in by.values())),
        "machine": f"{platform.machine()}, {torch.get_num_threads()} threads, torch {torch.__version__}",
        "python": sys.version.split()[0],
    }
    atomic_write_text(args.results, json.dumps(results, indent=1) + "\n")
    for g in results["gaps"]:
        low, high = g["interval"]
        print(f"{g['a']} - {g['b']} {g['metric']}: {g['mean']:+.3f} [{low:+.3f}, {high:+.3f}] "
              f"p {g['p']:.4f} holm {g['p_holm']:.4f} {g['verdict']}")  # fmt: skip


if __name__ == "__main__":
    main()
