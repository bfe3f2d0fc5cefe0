"""What the training benchmarks share (bench/train.py, bench/fasttext.py): the corpus file both
sides read, `embedlab train` run as a user runs it, every table scored by the same code, medians
and the printed tables.

    path, raw = corpus_file("gcide", folder, max_lines=None)    # one lower-cased line of words per line
    run = run_embedlab(path, "sgns", seed, args, out, extra=["--subwords"])   # {"wall", "training", "phases", ...}
    quality(run.pop("keys"), run.pop("table"))                   # {"wordsim353", "simlex999", "rw", "google"}
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from embedlab.data.corpora import open_corpus
from embedlab.train import words
from embedlab.vectors import Vectors
from embedlab.vectors.evaluate import evaluate_all

MIN_COUNT, WINDOW, NEGATIVE, SAMPLE, ALPHA, MIN_ALPHA = 5, 5, 5, 1e-3, 0.025, 1e-4
QUALITY_SLACK = {"wordsim353": 0.02, "simlex999": 0.02, "google": 0.01}  # Spearman; accuracy (1 point)
PHASES = ("start-up", "setup", "training", "writing", "evaluation")  # ours, in the order they happen


def run_embedlab(path: Path, method: str, seed: int, args, out: Path, extra: list[str] = ()) -> dict:
    """`embedlab train` end to end (benchmarks scored, as by default) -> {"wall", "training", "phases",
    "keys", "table"}. extra: more options (--subwords ...)."""
    command = [sys.executable, "-m", "embedlab", "train", str(path), "--out", str(out), "--method", method,
               "--seed", str(seed), "--threads", str(args.threads), "--dim", str(args.dim),
               "--epochs", str(args.epochs), "--min-count", str(MIN_COUNT), "--window", str(WINDOW),
               "--negative", str(NEGATIVE), "--lr", str(ALPHA), "--json", *extra]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    timings = json.loads((out / "metrics.json").read_text())["timings"]
    phases = {"start-up": wall - sum(timings.values()), **timings}
    return {"wall": wall, "training": timings["training"], "phases": phases, **table(out / "vectors.safetensors")}


def table(path: Path) -> dict:
    vectors = Vectors.load(path)
    return {"keys": list(vectors.index_to_key), "table": vectors.table.numpy()}


def quality(keys: list[str], rows: np.ndarray) -> dict:
    """Spearman on three word-pair sets (WordSim-353, SimLex-999, RW; None when no pair is usable) and
    Google analogy accuracy, from the table's own rows (no bootstrap: the figures alone)."""
    r = evaluate_all(Vectors(keys, rows), resamples=0)
    pairs = {name: r[name].spearman if r[name] is not None else None for name in ("wordsim353", "simlex999", "rw")}
    return {**pairs, "google": r["google"].accuracy}


def corpus_file(corpus: str, folder: Path, max_lines: int | None) -> tuple[Path, int]:
    """The corpus as one line of lower-cased words per line -> (path, raw words)."""
    path, raw = folder / f"{corpus}.txt", 0
    with path.open("w", encoding="utf-8") as f:
        for i, line in enumerate(open_corpus(corpus)):
            if max_lines is not None and i >= max_lines:
                break
            tokens = words(line)
            if tokens:
                f.write(" ".join(tokens) + "\n")
                raw += len(tokens)
    return path, raw


def median(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def fmt(x: float | None, spec: str = ".3f") -> str:
    return "n/a" if x is None else format(x, spec)


def print_table(rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))))


def training_arguments(doc: str, corpora: list[str]) -> argparse.ArgumentParser:
    """The options both training benchmarks take (corpora, methods, epochs, threads, dim, seeds, ...)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", nargs="+", choices=("gcide", "enwiki-sample"), default=corpora)
    parser.add_argument("--method", nargs="+", choices=("sgns", "cbow"), default=["sgns", "cbow"])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1], help="several: report medians")
    parser.add_argument("--max-lines", type=int, default=None, help="the first N lines of each corpus only")
    parser.add_argument("--json", action="store_true", help="print one JSON object per corpus and method")
    return parser


def run_all(args, bench: Callable, report: Callable, peer_version: str) -> None:
    """Every corpus (written once as a text file) and method through `bench`, then `report` them,
    or one JSON object each with --json."""
    results = []
    with tempfile.TemporaryDirectory(prefix="embedlab-bench-") as tmp:
        folder = Path(tmp)
        for corpus in args.corpus:
            path, raw = corpus_file(corpus, folder, args.max_lines)
            results += [bench(corpus, path, raw, method, args, folder) for method in args.method]
    if args.json:
        for r in results:
            print(json.dumps({**r, "gensim": peer_version}))
        return
    report(results, args)
