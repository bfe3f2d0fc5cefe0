"""Training benchmark: embedlab's word2vec against gensim's Word2Vec, same corpus and settings, one run.

    python bench/train.py                     # gcide and enwiki-sample, sgns and cbow, one seed
    python bench/train.py --seeds 1 2 3       # medians over three seeds
    python bench/train.py --corpus enwiki-sample --method sgns --max-lines 2000   # a quick check

Each corpus is read into memory once as lines (reading and cleaning are timed by neither side).
gensim is given the same words as token lists, `[words(line) for line in lines]`, so both sides
count the same vocabulary (min_count 5; the script prints both sizes). The settings are one
RunConfig, handed to gensim as vector_size, window, negative, sample, alpha=lr, min_alpha=min_lr,
epochs, workers=threads, sg (1 for sgns, 0 for cbow), hs=0, cbow_mean=1 and seed.

Timed: only training. gensim: `model.train` after `build_vocab`; embedlab: a Word2VecJob's steps
(what `embedlab train` runs) after `WordVocab.build` and a short warm-up that loads the numba
kernels from their cache. embedlab's timing includes tokenizing the lines (its first epoch
encodes them, in a thread beside the kernels); gensim's does not, as it is handed tokens.

words/s is the same for both: raw corpus words (every token of the lines, in the vocabulary or
not) x epochs / training seconds, the figure gensim logs as its effective speed. Quality is the
input table scored by embedlab.vectors.evaluate (gensim's rules): Spearman on WordSim-353 and
SimLex-999, 3CosAdd accuracy on Google's analogies. With several seeds, figures are medians per
side; within a seed the two sides run one after the other, their order swapped from seed to seed,
so drift on a shared noisy machine hits both alike. With threads > 1 both train Hogwild, so
neither is reproducible run to run.

OpenMP: `import embedlab` sets OMP_WAIT_POLICY=PASSIVE unless it is set (see embedlab/__init__.py:
spinning OpenMP threads starve the tokenizing thread on few or shared cores). The runtime reads it
when torch loads, and this script imports torch first, so it sets the variable itself, first.

Goals (issue 5): embedlab's words/s at least gensim's (ratio ours / gensim >= 1), and quality not
below gensim's by more than 0.02 Spearman or 2 analogy points.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch loads OpenMP, as `import embedlab` does

import argparse  # noqa: E402  (the imports come after the environment)
import dataclasses
import json
import logging
import statistics
import sys
import time
from collections.abc import Callable

import gensim
import numba
import numpy as np
import torch
from gensim.models import Word2Vec

from embedlab.data.corpora import open_corpus
from embedlab.train import RunConfig, Word2VecJob, WordVocab, words
from embedlab.train.kernels import CBOW_MEAN
from embedlab.vectors import Vectors
from embedlab.vectors.evaluate import evaluate_all

MIN_COUNT = 5
SPEED_GOAL = 1.0  # words/s ratio ours / gensim
QUALITY_SLACK = {"wordsim353": 0.02, "simlex999": 0.02, "google": 0.02}  # Spearman; accuracy (2 points)
REFERENCE = "gensim"


def train_embedlab(lines: list[str], sentences: list[list[str]], config: RunConfig) -> dict:
    """-> {"seconds", "keys", "table"} for embedlab's word2vec job (it tokenizes `lines` itself)."""
    vocab = WordVocab.build(lines, min_count=MIN_COUNT)
    run_job(Word2VecJob(lines[:200], vocab, dataclasses.replace(config, epochs=1)))  # warm-up: numba loads kernels
    job = Word2VecJob(lines, vocab, config)
    start = time.perf_counter()
    run_job(job)
    return {"seconds": time.perf_counter() - start, "keys": vocab.index_to_key, "table": job.table()}


def run_job(job: Word2VecJob) -> None:
    """Every epoch of the job, as `embedlab train` steps it (without the run folder around it)."""
    try:
        for epoch in range(job.config.epochs):
            for _ in job.steps(epoch, skip=0):
                pass
    finally:
        job.close()


def train_gensim(lines: list[str], sentences: list[list[str]], config: RunConfig) -> dict:
    """-> {"seconds", "keys", "table"} for gensim's Word2Vec on the same tokens and settings."""
    model = Word2Vec(
        vector_size=config.dim, window=config.window, negative=config.negative, sample=config.sample,
        alpha=config.lr, min_alpha=config.min_lr, epochs=config.epochs, workers=config.threads,
        sg=int(config.method == "sgns"), hs=0, cbow_mean=int(CBOW_MEAN), min_count=MIN_COUNT,
        seed=config.seed,
    )  # fmt: skip
    model.build_vocab(sentences)
    start = time.perf_counter()
    model.train(sentences, total_examples=model.corpus_count, epochs=config.epochs)
    return {"seconds": time.perf_counter() - start, "keys": model.wv.index_to_key, "table": model.wv.vectors}


# name -> trainer; every engine is compared with REFERENCE (one more embedlab engine: one more entry)
ENGINES: dict[str, Callable[[list[str], list[list[str]], RunConfig], dict]] = {
    "embedlab": train_embedlab,
    "gensim": train_gensim,
}


def quality(keys: list[str], table: np.ndarray) -> dict:
    """Spearman on the two word-pair sets (None when no pair is usable) and Google analogy accuracy."""
    r = evaluate_all(Vectors(keys, table))
    pairs = {name: r[name].spearman if r[name] is not None else None for name in ("wordsim353", "simlex999")}
    return {**pairs, "google": r["google"].accuracy, "google_questions": r["google"].total.total}


def median(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def load(corpus: str, max_lines: int | None) -> tuple[list[str], list[list[str]]]:
    """A built-in corpus in memory: its lines (embedlab's input) and their words (gensim's)."""
    lines = list(open_corpus(corpus))[:max_lines]
    return lines, [words(line) for line in lines]


def bench(corpus: str, lines: list[str], sentences: list[list[str]], method: str, args: argparse.Namespace) -> list:
    """Every engine on one corpus and method, for each seed -> one result row per engine but REFERENCE."""
    raw_words = sum(map(len, sentences))
    runs: dict[str, list[dict]] = {name: [] for name in ENGINES}
    for i, seed in enumerate(args.seeds):
        config = RunConfig(corpus=corpus, method=method, dim=args.dim, epochs=args.epochs, threads=args.threads,
                           seed=seed, min_count=MIN_COUNT)  # fmt: skip
        for name in list(ENGINES)[:: 1 if i % 2 == 0 else -1]:  # swap the order every other seed
            trained = ENGINES[name](lines, sentences, config)
            run = {"seed": seed, "seconds": trained["seconds"], "V": len(trained["keys"])}
            run["words_per_s"] = raw_words * args.epochs / trained["seconds"]
            run.update(quality(trained["keys"], trained["table"]))
            runs[name].append(run)
            scores = " ".join(f"{k} {fmt(run[k])}" for k in QUALITY_SLACK)
            print(f"{corpus} {method} seed {seed} {name}: {run['seconds']:.1f} s, {run['words_per_s']:,.0f} words/s, "
                  f"V {run['V']}, {scores}", file=sys.stderr, flush=True)  # fmt: skip
    medians = {name: {key: median([r[key] for r in rs]) for key in rs[0] if key != "seed"} for name, rs in runs.items()}
    theirs = medians[REFERENCE]
    rows = []
    for name, ours in medians.items():
        if name == REFERENCE:
            continue
        diff = {k: ours[k] - theirs[k] if None not in (ours[k], theirs[k]) else None for k in QUALITY_SLACK}
        ratio = ours["words_per_s"] / theirs["words_per_s"]
        goals = {"speed": ratio >= SPEED_GOAL}
        goals["quality"] = all(d is None or d >= -QUALITY_SLACK[k] for k, d in diff.items())
        rows.append({"corpus": corpus, "method": method, "engine": name, "lines": len(lines), "raw_words": raw_words,
                     "epochs": args.epochs, "threads": args.threads, "dim": args.dim, "seeds": args.seeds,
                     "ours": ours, "gensim": theirs, "ratio": ratio, "diff": diff, "goals": goals,
                     "runs": runs[name], "gensim_runs": runs[REFERENCE]})  # fmt: skip
    return rows


def fmt(x: float | None, spec: str = ".3f") -> str:
    return "n/a" if x is None else format(x, spec)


def report(rows: list[dict], args: argparse.Namespace) -> None:
    print(f"gensim {gensim.__version__}, numba {numba.__version__}, torch {torch.__version__}, numpy {np.__version__}; "
          f"dim {args.dim}, epochs {args.epochs}, threads {args.threads}, seeds {args.seeds} (medians)")  # fmt: skip
    header = ["corpus", "method", "raw words", "V ours/gensim", "words/s ours", "words/s gensim", "ratio"]
    header += [f"{name} ours/gensim (diff)" for name in ("WS-353", "SimLex-999", "Google")]
    table = [header]
    for r in rows:
        o, g, d = r["ours"], r["gensim"], r["diff"]
        table.append([r["corpus"], r["method"], f"{r['raw_words']:,d}", f"{o['V']:.0f}/{g['V']:.0f}",
                      f"{o['words_per_s']:,.0f}", f"{g['words_per_s']:,.0f}", f"{r['ratio']:.2f}"]
                     + [f"{fmt(o[k])}/{fmt(g[k])} ({fmt(d[k], '+.3f')})" for k in QUALITY_SLACK])  # fmt: skip
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        cells = [c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        print("  ".join(cells))
    print(f"goals: words/s ratio >= {SPEED_GOAL:.1f}; quality not below gensim by more than 0.02 Spearman or 2 points")
    for r in rows:
        short = [k for k, d in r["diff"].items() if d is not None and d < -QUALITY_SLACK[k]]
        speed = "met" if r["goals"]["speed"] else "NOT met"
        quality_goal = "met" if r["goals"]["quality"] else f"NOT met ({', '.join(short)})"
        name = f"{r['corpus']} {r['method']} ({r['engine']})"
        print(f"  {name}: speed {speed} ({r['ratio']:.2f}x), quality {quality_goal}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", nargs="+", choices=("gcide", "enwiki-sample"), default=["gcide", "enwiki-sample"])
    parser.add_argument("--method", nargs="+", choices=("sgns", "cbow"), default=["sgns", "cbow"])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1], help="several: report medians")
    parser.add_argument("--max-lines", type=int, default=None, help="train on the first N lines only")
    parser.add_argument("--json", action="store_true", help="print one JSON object per result line")
    args = parser.parse_args()
    logging.getLogger("gensim").setLevel(logging.WARNING)

    rows = []
    for corpus in args.corpus:
        lines, sentences = load(corpus, args.max_lines)
        rows += [row for method in args.method for row in bench(corpus, lines, sentences, method, args)]
    if args.json:
        versions = {"gensim": gensim.__version__, "numba": numba.__version__, "torch": torch.__version__}
        for row in rows:
            print(json.dumps({**row, "versions": versions}))
        return
    report(rows, args)


if __name__ == "__main__":
    main()
