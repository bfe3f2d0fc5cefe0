"""The subword quality gap against gensim FastText, taken apart: embedlab's schedule and update-rule
variants beside gensim's two modes, seed by seed, every run logged as it ends.

    python bench/w2v_gap.py run --log gap.jsonl                      # every side, sgns and cbow, seeds 1-3
    python bench/w2v_gap.py run --log gap.jsonl --method sgns --sides "embedlab pair steps" --seeds 1 2 3
    python bench/w2v_gap.py run --log speed.jsonl --sides embedlab "gensim corpus_file" --seeds 1 2 3 4 5
    python bench/w2v_gap.py report gap.jsonl --speed speed.jsonl --write docs/results/w2v_gap.json

gcide is written once as a text file (bench/_common.corpus_file); every side reads it in its own
process, one after another (never two at once), the order rotated from seed to seed:

- embedlab sides: `python -m embedlab train FILE --subwords --no-evaluate` plus the side's options
  (SIDES), as a user runs it. "embedlab" is the default settings, whatever they are; the others
  name every setting they test, so a log stays true when a default changes.
- gensim sides: bench/fasttext.py's peer, FastText in corpus_file mode (its fastest) or iterable
  mode (the file read into token lists first). Same settings: dim 100, window 5, negative 5,
  min count 5, sample 1e-3, n-grams 3-6, 2,000,000 buckets, lr 0.025 -> 1e-4, 5 epochs, 2 threads.

Quality is the whole-word table scored by bench/_common.quality for every side alike (WordSim-353,
SimLex-999 and RW Spearman on pairs inside the vocabulary; Google 3CosAdd accuracy). Each run's
line holds its wall time end to end (process start to exit), its training seconds, and the load
average before and after it: the machine is shared, so every time is read beside its load.

The report gives each side's mean and spread (min-max) over seeds from the quality logs, and from
the speed log the end-to-end ratio gensim corpus_file / embedlab (its defaults) as the median of
the per-seed ratios: within a seed the two ran back to back, so drift in the machine's load hits
both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import gensim

from _common import corpus_file, fmt, print_table, quality, run_embedlab
from fasttext import BUCKETS, MAX_N, MIN_N, run_gensim

INSTRUMENTS = ("wordsim353", "simlex999", "rw", "google")
PEER = "gensim corpus_file"  # the headline peer: gensim's fastest mode
# side -> the embedlab options it adds (None: a gensim mode). "{share}" is 1 / threads, the share of an
# epoch's fall in rate that gensim's corpus_file mode takes with that many workers.
SIDES = {
    "embedlab": [],
    "embedlab linear": ["--epoch-decay", "1"],
    "embedlab corpus_file schedule": ["--epoch-decay", "{share}"],
    "embedlab pair steps": ["--epoch-decay", "{share}", "--pair-steps"],
    "embedlab n-gram divisor": ["--epoch-decay", "{share}", "--ngram-divisor"],
    "embedlab gensim's rules": ["--epoch-decay", "{share}", "--pair-steps", "--ngram-divisor"],  # both at once
    PEER: None,
    "gensim iterable": None,
}
# rules of skip-gram's centre word
SGNS_ONLY = ("embedlab pair steps", "embedlab n-gram divisor", "embedlab gensim's rules")


def run_side(side: str, path: Path, method: str, seed: int, args, out: Path) -> dict:
    """One training of `side` -> its log line (wall, training, quality, load, options)."""
    options = SIDES[side]
    before = os.getloadavg()[0]
    if options is None:
        run = run_gensim(path, method, seed, args, out, side.removeprefix("gensim "))
        options = []
    else:
        options = [o.format(share=1 / args.threads) for o in options]
        extra = ["--subwords", "--min-n", str(MIN_N), "--max-n", str(MAX_N), "--buckets", str(BUCKETS),
                 "--no-evaluate", *options]  # fmt: skip
        if args.checkpoint_every is not None:  # a quality run on a loaded machine: 840 MB a checkpoint
            extra += ["--checkpoint-every", str(args.checkpoint_every)]
        run = run_embedlab(path, method, seed, args, out, extra)
    after = os.getloadavg()[0]
    scores = quality(run.pop("keys"), run.pop("table"))
    return {"side": side, "method": method, "seed": seed, "options": options, "wall": run["wall"],
            "training": run["training"], **scores, "load_before": before, "load_after": after,
            "threads": args.threads, "epochs": args.epochs, "dim": args.dim, "gensim": gensim.__version__,
            "at": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip


def run(args) -> None:
    unknown = [s for s in args.sides if s not in SIDES]
    if unknown:
        raise SystemExit(f"unknown side {unknown[0]!r}; sides: {', '.join(SIDES)}")
    done = set()
    if args.resume and Path(args.log).exists():  # runs already in the log are not run again
        with open(args.log, encoding="utf-8") as f:
            done = {(r["method"], r["side"], r["seed"]) for r in map(json.loads, f) if r}
    with tempfile.TemporaryDirectory(prefix="embedlab-gap-") as tmp:
        folder = Path(tmp)
        path, _ = corpus_file("gcide", folder, args.max_lines)
        for method in args.method:
            sides = [s for s in args.sides if method == "sgns" or s not in SGNS_ONLY]
            for seed in args.seeds:
                turn = (seed - 1) % len(sides)  # the order rotates from seed to seed, however the seeds are split
                order = sides[turn:] + sides[:turn]
                for side in order:
                    if (method, side, seed) in done:
                        continue
                    out = Path(tempfile.mkdtemp(dir=folder))
                    line = run_side(side, path, method, seed, args, out)
                    shutil.rmtree(out)  # about 1 GB a side: keep the disk free
                    with open(args.log, "a", encoding="utf-8") as f:
                        f.write(json.dumps(line) + "\n")
                    scores = " ".join(f"{k} {fmt(line[k])}" for k in INSTRUMENTS)
                    print(f"{method} seed {seed} {side}: {line['wall']:.1f} s (load {line['load_before']:.1f} -> "
                          f"{line['load_after']:.1f}), {scores}", file=sys.stderr, flush=True)  # fmt: skip


# ----- the report -------------------------------------------------------------------------------


def summary(lines: list[dict]) -> dict:
    """Runs of one side and method -> mean, min and max of each figure over seeds, and the seeds."""
    out = {"seeds": sorted(r["seed"] for r in lines), "runs": len(lines)}
    for k in ("wall", "training", *INSTRUMENTS):
        values = [r[k] for r in lines if r[k] is not None]
        out[k] = {"mean": statistics.fmean(values), "min": min(values), "max": max(values)} if values else None
    loads = [r[key] for r in lines for key in ("load_before", "load_after")]
    out["load"] = {"min": min(loads), "max": max(loads)}
    return out


def markdown_row(method: str, side: str, s: dict) -> str:
    """| method | side | seeds | each instrument's mean [min, max] | mean seconds end to end | load |"""
    cells = []
    for k in INSTRUMENTS:
        scale, spec = (100, ".1f") if k == "google" else (1, ".3f")
        m = s[k]
        cells.append(f"{m['mean'] * scale:{spec}} [{m['min'] * scale:{spec}}, {m['max'] * scale:{spec}}]")
    load = f"{s['load']['min']:.1f}–{s['load']['max']:.1f}"
    return f"| {method} | {side} | {s['runs']} | " + " | ".join(cells) + f" | {s['wall']['mean']:.0f} | {load} |"


def read_logs(paths: list[str]) -> list[dict]:
    lines = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            lines += [json.loads(row) for row in f if row.strip()]
    return lines


def speed(lines: list[dict], method: str) -> dict | None:
    """gensim corpus_file's wall / embedlab's (its defaults), per seed where both ran back to back
    -> {"ratios", "median", "embedlab", "gensim" (each side's walls), "load"}."""
    walls = {side: {r["seed"]: r["wall"] for r in lines if r["method"] == method and r["side"] == side}
             for side in ("embedlab", PEER)}  # fmt: skip
    seeds = sorted(set(walls["embedlab"]) & set(walls[PEER]))
    if not seeds:
        return None
    ratios = [walls[PEER][s] / walls["embedlab"][s] for s in seeds]
    loads = [r[k] for r in lines if r["method"] == method for k in ("load_before", "load_after")]
    return {"seeds": seeds, "ratios": ratios, "median": statistics.median(ratios),
            "embedlab": [walls["embedlab"][s] for s in seeds], "gensim": [walls[PEER][s] for s in seeds],
            "load": {"min": min(loads), "max": max(loads)}}  # fmt: skip


def report(args) -> None:
    lines = read_logs(args.logs)
    timed = read_logs(args.speed) if args.speed else []
    result = {"gensim": lines[0]["gensim"], "threads": lines[0]["threads"], "epochs": lines[0]["epochs"],
              "dim": lines[0]["dim"], "methods": {}}  # fmt: skip
    rows = [["method", "side", "seeds", "end to end s", "load", *INSTRUMENTS]]
    for method in dict.fromkeys(r["method"] for r in lines):
        sides = {}
        for side in SIDES:
            mine = [r for r in lines if r["method"] == method and r["side"] == side]
            if mine:
                sides[side] = s = summary(mine)
                cells = [f"{fmt(s[k]['mean'])} [{fmt(s[k]['min'])}, {fmt(s[k]['max'])}]" for k in INSTRUMENTS]
                load = f"{s['load']['min']:.1f}-{s['load']['max']:.1f}"
                rows.append([method, side, str(s["runs"]), f"{s['wall']['mean']:.1f}", load, *cells])
        result["methods"][method] = {"sides": sides, "speed": speed(timed, method)}
    print(f"gensim {result['gensim']}; dim {result['dim']}, {result['epochs']} epochs, {result['threads']} threads; "
          "mean [min, max] over seeds")  # fmt: skip
    print_table(rows)
    print("\nas docs/benchmarks.md's table (Google in %):")
    for method, r in result["methods"].items():
        for side, s in r["sides"].items():
            print(markdown_row(method, side, s))
    for method, r in result["methods"].items():
        if r["speed"] is not None:
            t = r["speed"]
            shown = ", ".join(f"{x:.2f}" for x in t["ratios"])
            print(f"{method}: {PEER} / embedlab end to end, per seed {shown}; median {t['median']:.2f} (load "
                  f"{t['load']['min']:.1f}-{t['load']['max']:.1f})")  # fmt: skip
    if args.write:
        Path(args.write).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("run", help="train the sides, one after another, appending a line per run to --log")
    go.add_argument("--log", required=True, help="a JSON-lines file, appended to")
    go.add_argument("--method", nargs="+", choices=("sgns", "cbow"), default=["sgns", "cbow"])
    go.add_argument("--sides", nargs="+", default=["embedlab linear", "embedlab corpus_file schedule", PEER,
                                                   "gensim iterable", "embedlab pair steps",
                                                   "embedlab n-gram divisor"])  # fmt: skip
    go.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    go.add_argument("--epochs", type=int, default=5)
    go.add_argument("--threads", type=int, default=2)
    go.add_argument("--dim", type=int, default=100)
    go.add_argument("--max-lines", type=int, default=None, help="the first N lines of gcide only (a smoke test)")
    go.add_argument("--checkpoint-every", type=float, default=None,
                    help="embedlab's --checkpoint-every (default: its own, as a user runs it)")  # fmt: skip
    go.add_argument("--resume", action="store_true", help="skip the runs (method, side, seed) already in --log")
    show = commands.add_parser("report", help="mean and spread of each side from logs; the speed ratio")
    show.add_argument("logs", nargs="+", help="the quality runs' logs")
    show.add_argument("--speed", nargs="+", help="the speed runs' logs (sides embedlab and gensim corpus_file)")
    show.add_argument("--write", help="also write the summary as JSON here (docs/results/w2v_gap.json)")
    args = parser.parse_args()
    run(args) if args.command == "run" else report(args)


if __name__ == "__main__":
    main()
