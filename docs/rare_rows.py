"""Rare rows shrunk toward a prior (embedlab.vectors.shrink), measured on RW against the plain table:
the figures of docs/training.md §7.

    python docs/rare_rows.py                          # trains (or reuses) 3 runs, writes docs/results/rare_rows.json
    python docs/rare_rows.py --work DIR --results F   # elsewhere (default runs/rare-rows)

Three subword runs (fastText's model: `embedlab train enwiki-sample --subwords --epochs 3 --buckets
200000 --seed S`, sgns, dim 100, 2 threads, other settings default) for seeds 1, 2 and 3. Each trained table
is scored on RW (Rare Words, Luong et al. 2013: 2,034 pairs) as it is, and after its rows are shrunk by
their counts toward each prior at k = 5, 20 and 100 (k = 20 was fixed before measuring; the other two
say how much the choice matters). Every table answers every RW word it can compose (fastText's
"sisg"), so the plain and shrunk tables score the same pairs.

Which rows it helps: RW's pairs grouped by the training count of the pair's rarer word (`BANDS`; a word
below min_count has no row of its own, and shrinking leaves its n-gram vector as it was). Per band and
overall, the difference shrunk − plain in Spearman over the same pairs, seed by seed, with its 95%
Student t interval over the 3 seeds (arena.noise) and, for each seed, the paired bootstrap interval
over pairs (vectors.intervals: 1,000 resamples). 12 minutes on the 2-core machine loaded about 15-fold
(2026-11-27), most of it training; a rerun with the runs in --work only scores them.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from embedlab.arena.noise import t_interval
from embedlab.files import atomic_write_text
from embedlab.train.config import RunConfig
from embedlab.train.run import train
from embedlab.vectors import load
from embedlab.vectors.frequency import band_rows
from embedlab.vectors.intervals import spearman_difference_interval
from embedlab.vectors.io.benchmarks import read_benchmark_pairs
from embedlab.vectors.scoring import pair_scores
from embedlab.vectors.shrink import PRIORS, shrink_rare
from embedlab.vectors.stats import spearman

RESULTS = Path(__file__).parent / "results" / "rare_rows.json"
SEEDS = (1, 2, 3)
STRENGTHS = (5.0, 20.0, 100.0)
CHOSEN = 20.0  # k fixed before measuring: a word seen 20 times keeps half its own row
CORPUS = "enwiki-sample"
SETTINGS = {"method": "sgns", "epochs": 3, "threads": 2, "subwords": True, "buckets": 200_000, "epoch_decay": 1.0}
# (floor, name) of the training count of a pair's rarer word; below 5 (min_count) a word has no row
BANDS = ((1_000, "1,000 or more"), (100, "100-999"), (20, "20-99"), (5, "5-19"), (0, "no row"))
MIN_PAIRS = 10  # a band with fewer pairs gets no Spearman (its rank correlation would be mostly noise)


def trained(work: Path, seed: int) -> Path:
    """The run folder of `seed`, trained unless it holds a finished run."""
    folder = work / f"{CORPUS}-subwords-seed{seed}"
    if not (folder / "metrics.json").is_file():
        train(RunConfig(corpus=CORPUS, seed=seed, **SETTINGS), folder, evaluate=False)
    return folder


def rarer_counts(table, pairs: list[tuple[str, str, float]], lines: np.ndarray) -> np.ndarray:
    """(P,) the training count of the rarer word of each scored pair (0 for a word without a row)."""

    def count(word: str) -> int:
        row = table.key_to_index.get(word.lower())
        return 0 if row is None else int(table.counts[row])

    return np.array([min(count(pairs[i][0]), count(pairs[i][1])) for i in lines], dtype=np.int64)


def score(table, shrunk, pairs, seed: int) -> dict:
    """Spearman of the plain and shrunk tables on RW, overall and per band, over the same pairs."""
    plain, after = pair_scores(table, pairs), pair_scores(shrunk, pairs)
    assert np.array_equal(plain.line, after.line)  # shrinking keeps every word's vector: the same pairs
    counts = rarer_counts(table, pairs, plain.line)
    groups = {"all": np.arange(len(plain.line))} | {name: rows for (_, name), rows in
                                                     zip(BANDS, band_rows(counts, BANDS), strict=True)}  # fmt: skip
    out = {}
    for name, rows in groups.items():
        gold, a, b = plain.gold[rows], plain.model[rows], after.model[rows]
        if len(rows) < MIN_PAIRS:
            continue
        out[name] = {"pairs": len(rows), "plain": spearman(gold, a), "shrunk": spearman(gold, b),
                     "bootstrap": list(spearman_difference_interval(gold, a, b, seed=seed))}  # fmt: skip
    return out


def measure(work: Path) -> dict:
    pairs = list(read_benchmark_pairs("rw"))
    by_seed: dict[str, dict] = {}
    for seed in SEEDS:
        table = load(trained(work, seed))
        by_seed[str(seed)] = {
            f"{toward} k {k:g}": score(table, shrink_rare(table, k, toward), pairs, seed)
            for toward in PRIORS for k in STRENGTHS
        }  # fmt: skip
        print(f"seed {seed}: {table!r}", flush=True)
    summary = {}
    for variant in by_seed[str(SEEDS[0])]:
        summary[variant] = {}
        for band in by_seed[str(SEEDS[0])][variant]:
            if any(band not in by_seed[str(s)][variant] for s in SEEDS):
                continue
            cells = [by_seed[str(s)][variant][band] for s in SEEDS]
            gaps = [c["shrunk"] - c["plain"] for c in cells]
            summary[variant][band] = {
                "pairs": cells[0]["pairs"], "plain": statistics.fmean(c["plain"] for c in cells),
                "shrunk": statistics.fmean(c["shrunk"] for c in cells), "gap": statistics.fmean(gaps),
                "gaps": gaps, "interval": list(t_interval(gaps)),
            }  # fmt: skip
    return {"seeds": list(SEEDS), "corpus": CORPUS, "settings": SETTINGS, "strengths": list(STRENGTHS),
            "chosen": CHOSEN, "bands": [name for _, name in BANDS], "pairs": len(pairs), "summary": summary,
            "by_seed": by_seed}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("runs/rare-rows"), help="where the runs are kept")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where to write the figures")
    args = parser.parse_args()
    start = time.time()
    results = measure(args.work)
    results["recorded"] = {"command": "python docs/rare_rows.py", "date": time.strftime("%Y-%m-%d"),
                           "wall_seconds": round(time.time() - start), "machine": platform.machine(),
                           "python": sys.version.split()[0]}  # fmt: skip
    atomic_write_text(args.results, json.dumps(results, indent=1) + "\n")
    for variant, bands in results["summary"].items():
        cells = ", ".join(f"{band} {c['gap']:+.3f} [{c['interval'][0]:+.3f}, {c['interval'][1]:+.3f}]"
                          for band, c in bands.items())  # fmt: skip
        print(f"{variant}: {cells}")


if __name__ == "__main__":
    main()
