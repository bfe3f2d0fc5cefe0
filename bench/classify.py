"""Classifier benchmark: `embedlab classify` against Debian's fastText 0.9.2 tool, on the gcide domains.

    python bench/classify.py                                   # 3 settings x 3 seeds, quantization, inference
    python bench/classify.py --seeds 0 --no-quantize           # a quick look
    python bench/classify.py --write docs/results/classify.json

The built-in split (gcide-domains: 18,477 training lines, gcide-domains-test: 4,532, 15 classes) is
written once as text files, and each side reads them in its own process, one after the other, the
order swapped from seed to seed:

- training: `fasttext supervised -input train.txt -output M ...` against `python -m embedlab classify
  train train.txt --out M.bin ...`, the same flags (fastText's names on one side, ours on the other)
  and -thread/--threads; wall time from start to exit, the .bin written included. Accuracy is P@1 on
  the test file, computed for both sides' .bin by the same code (embedlab's Classifier, which gives
  the tool's own answers: tests/models/test_bag.py).
- quantization: `fasttext quantize -input train.txt -output M -qnorm -retrain -cutoff 100000` against
  `embedlab classify quantize M.bin --out M.ftz --input train.txt --qnorm --retrain --cutoff 100000`,
  each on its own .bin; wall time, the .ftz's bytes and its P@1.
- inference: the test file 10 and 100 times over (45,320 and 453,200 lines) through `fasttext
  predict-prob M.bin FILE 1` and `embedlab classify predict M.bin FILE -k 1`, on the tool's .bin (and
  .ftz): lines per second, start-up and model loading included, as a user runs it.

Before anything is timed, one small run of each of our commands loads (or compiles, after a change)
the numba kernels, so no timing holds a compilation; a process still pays numba's start-up (about a
second: importing it and loading its cached kernels), which the tool, a C++ binary, does not.

Goals (issue 34): accuracy >= the tool's (median of 3 seeds; within the seeds' spread counts as level);
training and quantization >= 2x faster end to end; a .ftz within 0.005 of its .bin at >= 100x smaller;
inference >= the tool's lines per second.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import fmt, median, print_table

FASTTEXT = "/usr/bin/fasttext"
THREADS = 2
CUTOFF = 100_000
# fastText's flag -> ours, for the settings below
FLAGS = {"dim": "--dim", "lr": "--lr", "epoch": "--epoch", "wordNgrams": "--word-ngrams", "bucket": "--bucket"}
SETTINGS = {  # the three, by fastText's flags
    "defaults": {},
    "bigrams 25 epochs": {"epoch": 25, "lr": 1.0, "wordNgrams": 2},
    "dim 10, 10M buckets": {"dim": 10, "lr": 0.5, "wordNgrams": 2, "epoch": 5, "bucket": 10_000_000},
}
REPEATS = (10, 100)  # inference reads the test file this many times over: 45,320 and 453,200 lines


def timed(command: list[str], stdout=subprocess.DEVNULL) -> float:
    start = time.perf_counter()
    subprocess.run([str(c) for c in command], check=True, stdout=stdout, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def ours(*args: object) -> list[str]:
    return [sys.executable, "-m", "embedlab", "classify", *map(str, args)]


def accuracy(model: Path, test: Path) -> float:
    from embedlab.models.bag import Classifier
    from embedlab.models.labelled import LabelledText

    return Classifier.read(model).test(LabelledText.read(test)).precision


def train_both(setting: dict, seed: int, data: tuple[Path, Path], folder: Path) -> dict:
    train, test = data
    tool_flags = [x for name, value in setting.items() for x in (f"-{name}", value)]
    our_flags = [x for name, value in setting.items() for x in (FLAGS[name], value)]
    runs = {
        "fasttext tool": lambda: timed([FASTTEXT, "supervised", "-input", train, "-output", folder / "tool",
                                        *tool_flags, "-thread", THREADS, "-seed", seed, "-verbose", "0"]),
        "embedlab": lambda: timed(ours("train", train, "--out", folder / "ours.bin", *our_flags, "--threads",
                                       THREADS, "--seed", seed, "--force")),
    }  # fmt: skip
    order = list(runs) if seed % 2 == 0 else list(runs)[::-1]
    walls = {side: runs[side]() for side in order}
    paths = {"fasttext tool": folder / "tool.bin", "embedlab": folder / "ours.bin"}
    return {
        side: {"wall": walls[side], "bytes": paths[side].stat().st_size, "accuracy": accuracy(paths[side], test)}
        for side in runs
    }


def quantize_both(seed: int, data: tuple[Path, Path], folder: Path) -> dict:
    train, test = data
    runs = {
        "fasttext tool": lambda: timed([FASTTEXT, "quantize", "-input", train, "-output", folder / "tool", "-qnorm",
                                        "-retrain", "-cutoff", CUTOFF, "-thread", THREADS, "-verbose", "0"]),
        "embedlab": lambda: timed(ours("quantize", folder / "ours.bin", "--out", folder / "ours.ftz", "--input",
                                       train, "--qnorm", "--retrain", "--cutoff", CUTOFF, "--threads", THREADS,
                                       "--force")),
    }  # fmt: skip
    order = list(runs) if seed % 2 == 0 else list(runs)[::-1]
    walls = {side: runs[side]() for side in order}
    paths = {"fasttext tool": folder / "tool.ftz", "embedlab": folder / "ours.ftz"}
    return {
        side: {"wall": walls[side], "bytes": paths[side].stat().st_size, "accuracy": accuracy(paths[side], test)}
        for side in runs
    }


def inference(model: Path, lines: Path, count: int, seed: int) -> dict:
    runs = {
        "fasttext tool": lambda: timed([FASTTEXT, "predict-prob", model, lines, "1"]),
        "embedlab": lambda: timed(ours("predict", model, lines, "-k", "1")),
    }
    order = list(runs) if seed % 2 == 0 else list(runs)[::-1]
    return {side: count / wall for side, wall in ((s, runs[s]()) for s in order)}


def warm(folder: Path, train: Path) -> None:
    """One small run of each command, untimed: the kernels compiled once (numba caches them)."""
    small = folder / "small.txt"
    small.write_text("".join(train.read_text().splitlines(keepends=True)[:2000]))
    timed(ours("train", small, "--out", folder / "warm.bin", "--dim", "8", "--word-ngrams", "2", "--force"))
    timed(ours("quantize", folder / "warm.bin", "--cutoff", "1000", "--retrain", "--input", small, "--force"))
    timed(ours("predict", folder / "warm.ftz", small))


def spread(values: list[float]) -> str:
    return f"{fmt(median(values))} [{fmt(min(values))}, {fmt(max(values))}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--no-quantize", action="store_true", help="Skip quantization (the tool takes minutes).")
    parser.add_argument("--write", type=Path, help="Write the results as JSON here.")
    args = parser.parse_args()
    from embedlab.data.gcide import domain_text

    results = {"threads": THREADS, "cutoff": CUTOFF, "settings": {}, "machine": os.uname().nodename}
    with tempfile.TemporaryDirectory(prefix="bench-classify-") as tmp:
        folder = Path(tmp)
        train, test = folder / "train.txt", folder / "test.txt"
        train.write_text(domain_text(False))
        test.write_text(domain_text(True))
        many = {}
        for repeat in REPEATS:
            many[repeat] = folder / f"test-x{repeat}.txt"
            many[repeat].write_text(domain_text(True) * repeat)
        count = domain_text(True).count("\n")
        warm(folder, train)
        for name in args.settings:
            setting = SETTINGS[name]
            rows = {"train": [], "quantize": []} | {
                f"inference {kind} x{r}": [] for kind in ("bin", "ftz") for r in REPEATS
            }
            for seed in args.seeds:
                rows["train"].append(train_both(setting, seed, (train, test), folder))
                for repeat in REPEATS:
                    rows[f"inference bin x{repeat}"].append(
                        inference(folder / "tool.bin", many[repeat], count * repeat, seed)
                    )
                if not args.no_quantize and setting.get("wordNgrams", 1) > 1:
                    rows["quantize"].append(quantize_both(seed, (train, test), folder))
                    for repeat in REPEATS:
                        rows[f"inference ftz x{repeat}"].append(
                            inference(folder / "tool.ftz", many[repeat], count * repeat, seed)
                        )
                print(f"{name}, seed {seed}: {json.dumps({k: v[-1] for k, v in rows.items() if v})}", flush=True)
            results["settings"][name] = {"flags": setting, **{k: v for k, v in rows.items() if v}}
            report(name, rows)
    if args.write:
        args.write.write_text(json.dumps(results, indent=1) + "\n")


def report(name: str, rows: dict) -> None:
    print(f"\n{name}")
    table = [["step", "side", "accuracy [min, max]", "wall s", "x tool", "MB"]]
    for step in ("train", "quantize"):
        for side in ("fasttext tool", "embedlab"):
            if not rows[step]:
                continue
            wall = median([r[side]["wall"] for r in rows[step]])
            tool = median([r["fasttext tool"]["wall"] for r in rows[step]])
            size = median([r[side]["bytes"] for r in rows[step]]) / 1e6
            accuracies = spread([r[side]["accuracy"] for r in rows[step]])
            table.append([step, side, accuracies, fmt(wall, ".2f"), fmt(tool / wall, ".2f"), fmt(size, ".2f")])
    for step in (f"inference {kind} x{r}" for kind in ("bin", "ftz") for r in REPEATS):
        for side in ("fasttext tool", "embedlab"):
            if rows[step]:
                rate = median([r[side] for r in rows[step]])
                tool = median([r["fasttext tool"] for r in rows[step]])
                table.append([step, side, "", f"{rate:,.0f} lines/s", fmt(rate / tool, ".2f"), ""])
    print_table(table)


if __name__ == "__main__":
    if not shutil.which(FASTTEXT):
        sys.exit(f"{FASTTEXT} is missing: apt-get install fasttext")
    main()
