"""Subword training benchmark: `embedlab train --subwords` against gensim's FastText and the fastText tool.

    python bench/fasttext.py                                  # gcide, sgns and cbow, seed 1
    python bench/fasttext.py --seeds 1 2 3                    # medians of three seeds (docs/benchmarks.md)
    python bench/fasttext.py --corpus enwiki-sample --epochs 1   # a quick look

The corpus is written once as a text file (bench/_common.corpus_file) and every side reads that
file in its own process, one after another, the order rotated from seed to seed:

- ours: `python -m embedlab train FILE --out DIR --subwords ... --no-evaluate` (counting, training,
  writing vectors.safetensors, vectors.txt, subwords.safetensors and the snapshots; the benchmarks
  are scored below for every side alike); metrics.json gives the phases, start-up is the rest.
- gensim FastText, corpus_file mode (the headline; its fastest documented mode):
  `FastText(...)`, `build_vocab(corpus_file=FILE)`, `train(corpus_file=FILE, ...)`,
  `wv.save_word2vec_format(DIR/vectors.txt)` (each word's composed vector) and `wv.save(DIR/vectors.kv)`
  (its own format, with the n-gram rows), so that every side writes a table that answers unseen words.
- the fastText 0.9.2 tool (Debian's /usr/bin/fasttext): `fasttext skipgram|cbow -input FILE -output
  DIR/model -dim D -ws 5 -neg 5 -minCount 5 -minn 3 -maxn 6 -bucket 2000000 -epoch E -thread T`,
  which writes model.bin and model.vec (composed vectors); its own learning rate (0.05) and
  sampling threshold (1e-4), as a user runs it. It reports no phases: end to end only.

Settings shared by all: dim, window 5, negative 5, min count 5, n-grams 3-6, 2,000,000 buckets,
epochs, threads; ours and gensim also lr 0.025 -> 1e-4 and sample 1e-3. End to end is each process's
wall time from start to exit; training alone is ours timings["training"] against gensim's `train`.
Quality: every side's whole-word table scored by embedlab.vectors.evaluate (WordSim-353, SimLex-999
Spearman; Google analogies 3CosAdd accuracy), the same code for all.

Goals (issue 22): end to end >= 2.0x gensim corpus_file and >= 1.5x the fastText tool, sgns and
cbow; quality within 0.02 Spearman and 1 analogy point of gensim's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gensim

from _common import (
    ALPHA,
    MIN_ALPHA,
    MIN_COUNT,
    NEGATIVE,
    PHASES,
    QUALITY_SLACK,
    SAMPLE,
    WINDOW,
    diff,
    fmt,
    median,
    print_table,
    quality,
    run_all,
    run_embedlab,
    table,
    training_arguments,
)

MIN_N, MAX_N, BUCKETS = 3, 6, 2_000_000  # fastText's and gensim's defaults
FASTTEXT = "/usr/bin/fasttext"  # Debian's fasttext 0.9.2
GOALS = {"gensim corpus_file": 2.0, "fasttext tool": 1.5}  # end-to-end speed ratios, theirs / ours
SIDES = ("embedlab", "gensim corpus_file", "fasttext tool")


def run_ours(path: Path, method: str, seed: int, args, out: Path) -> dict:
    # --no-evaluate: this script scores every side's table with the same code afterwards
    extra = ["--subwords", "--min-n", str(MIN_N), "--max-n", str(MAX_N), "--buckets", str(BUCKETS), "--no-evaluate"]
    return run_embedlab(path, method, seed, args, out, extra)


def run_gensim(path: Path, method: str, seed: int, args, out: Path, mode: str = "corpus_file") -> dict:
    """This script as gensim's side (see `peer`) -> {"wall", "training", "phases", "keys", "table"}."""
    command = [sys.executable, __file__, "--peer", mode, str(path), str(out), method, str(seed), str(args.threads),
               str(args.dim), str(args.epochs)]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    phases = json.loads(done.stdout.strip().splitlines()[-1])
    phases = {"start-up": wall - sum(phases.values()), **phases}
    return {"wall": wall, "training": phases["train"], "phases": phases, **table(out / "vectors.txt")}


def run_fasttext(path: Path, method: str, seed: int, args, out: Path) -> dict:
    """The fastText tool (it takes no seed; with threads > 1 it is Hogwild anyway)."""
    command = [FASTTEXT, "skipgram" if method == "sgns" else "cbow", "-input", str(path), "-output", str(out / "model"),
               "-dim", str(args.dim), "-ws", str(WINDOW), "-neg", str(NEGATIVE), "-minCount", str(MIN_COUNT),
               "-minn", str(MIN_N), "-maxn", str(MAX_N), "-bucket", str(BUCKETS), "-epoch", str(args.epochs),
               "-thread", str(args.threads), "-verbose", "0"]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    return {"wall": wall, "training": None, "phases": {}, **table(out / "model.vec")}


def peer(mode: str, path: str, out: str, method: str, seed: str, threads: str, dim: str, epochs: str) -> None:
    """gensim's side, run as its own process: build the vocabulary, train, save the whole-word
    table as word2vec text; prints the seconds of each phase as JSON. mode: corpus_file (its C code
    reads the file in every worker) or iterable (the file read into token lists in memory first,
    gensim's fastest iterable; bench/w2v_gap.py's second gensim row)."""
    import logging

    from gensim.models import FastText

    logging.getLogger("gensim").setLevel(logging.WARNING)
    seconds, start = {}, time.perf_counter()
    model = FastText(vector_size=int(dim), window=WINDOW, negative=NEGATIVE, sample=SAMPLE, alpha=ALPHA,
                     min_alpha=MIN_ALPHA, epochs=int(epochs), workers=int(threads), sg=int(method == "sgns"), hs=0,
                     cbow_mean=1, min_count=MIN_COUNT, seed=int(seed), min_n=MIN_N, max_n=MAX_N,
                     bucket=BUCKETS)  # fmt: skip
    if mode == "corpus_file":
        model.build_vocab(corpus_file=path)
        source = {"corpus_file": path}
    else:
        with open(path, encoding="utf-8") as f:
            sentences = [line.split() for line in f]
        model.build_vocab(sentences)
        source = {"corpus_iterable": sentences}
    seconds["vocabulary"] = time.perf_counter() - start
    start = time.perf_counter()
    model.train(**source, total_examples=model.corpus_count, total_words=model.corpus_total_words,
                epochs=model.epochs)  # fmt: skip
    seconds["train"] = time.perf_counter() - start
    start = time.perf_counter()
    model.wv.save_word2vec_format(str(Path(out) / "vectors.txt"))
    model.wv.save(str(Path(out) / "vectors.kv"))  # the table with its n-gram rows: what answers unseen words
    seconds["save"] = time.perf_counter() - start
    print(json.dumps(seconds))


RUNNERS = {"embedlab": run_ours, "gensim corpus_file": run_gensim, "fasttext tool": run_fasttext}


def bench(corpus: str, path: Path, raw: int, method: str, args, folder: Path) -> dict:
    """Every side on one corpus and method, each seed -> medians and ratios."""
    runs: dict[str, list[dict]] = {name: [] for name in SIDES}
    for i, seed in enumerate(args.seeds):
        order = SIDES[i % len(SIDES) :] + SIDES[: i % len(SIDES)]  # rotate the order each seed
        for name in order:
            out = Path(tempfile.mkdtemp(dir=folder))
            run = RUNNERS[name](path, method, seed, args, out)
            run.update(quality(run.pop("keys"), run.pop("table")), seed=seed)
            shutil.rmtree(out)  # about 1 GB a side: keep the disk free
            runs[name].append(run)
            scores = " ".join(f"{k} {fmt(run[k])}" for k in QUALITY_SLACK)
            print(f"{corpus} {method} seed {seed} {name}: {run['wall']:.1f} s end to end, training "
                  f"{fmt(run['training'], '.1f')} s, {scores}", file=sys.stderr, flush=True)  # fmt: skip
    medians = {name: summary(rs) for name, rs in runs.items()}
    ours = medians["embedlab"]
    ratios = {}
    for name in SIDES[1:]:
        theirs = medians[name]
        training = theirs["training"] / ours["training"] if theirs["training"] is not None else None
        ratios[name] = {"end_to_end": theirs["wall"] / ours["wall"], "training": training,
                        "diff": {k: diff(ours[k], theirs[k]) for k in QUALITY_SLACK}}  # fmt: skip
    return {"corpus": corpus, "method": method, "raw_words": raw, "epochs": args.epochs, "threads": args.threads,
            "dim": args.dim, "seeds": args.seeds, "medians": medians, "ratios": ratios, "runs": runs}  # fmt: skip


def summary(runs: list[dict]) -> dict:
    """Median of every figure over seeds; phases too."""
    medians = {k: median([r[k] for r in runs]) for k in ("wall", "training", *QUALITY_SLACK)}
    medians["phases"] = {p: median([r["phases"][p] for r in runs]) for p in runs[0]["phases"]}
    return medians


def report(results: list[dict], args) -> None:
    print(f"gensim {gensim.__version__}, fastText 0.9.2 (Debian); dim {args.dim}, epochs {args.epochs}, threads "
          f"{args.threads}, n-grams {MIN_N}-{MAX_N}, {BUCKETS:,} buckets, seeds {args.seeds} (medians); ratios are "
          "their seconds / ours")  # fmt: skip
    header = ["corpus", "method", "against", "end to end ours/theirs s", "ratio", "training ours/theirs s", "ratio",
              "WS-353 ours/diff", "SimLex ours/diff", "Google ours/diff"]  # fmt: skip
    rows = [header]
    for r in results:
        ours = r["medians"]["embedlab"]
        for name, ratio in r["ratios"].items():
            theirs = r["medians"][name]
            scores = [f"{fmt(ours[k])}/{fmt(ratio['diff'][k], '+.3f')}" for k in QUALITY_SLACK]
            rows.append([r["corpus"], r["method"], name, f"{ours['wall']:.1f}/{theirs['wall']:.1f}",
                         f"{ratio['end_to_end']:.2f}", f"{ours['training']:.1f}/{fmt(theirs['training'], '.1f')}",
                         fmt(ratio["training"], ".2f"), *scores])  # fmt: skip
    print_table(rows)
    print("\nwhere embedlab's time goes (median seconds):")
    phase_rows = [["corpus", "method", *PHASES, "gensim: vocabulary / train / save"]]
    for r in results:
        p, g = r["medians"]["embedlab"]["phases"], r["medians"]["gensim corpus_file"]["phases"]
        phase_rows.append([r["corpus"], r["method"], *(fmt(p.get(k), ".2f") for k in PHASES),
                           f"{g['vocabulary']:.2f} / {g['train']:.2f} / {g['save']:.2f}"])  # fmt: skip
    print_table(phase_rows)
    goals = ", ".join(f">= {v:.1f}x {k}" for k, v in GOALS.items())
    print(f"\ngoals: end to end {goals}; quality within 0.02 Spearman and 1 analogy point of gensim's")
    for r in results:
        ratios = r["ratios"]
        speed = all(ratios[name]["end_to_end"] >= goal for name, goal in GOALS.items())
        short = [k for k, d in ratios["gensim corpus_file"]["diff"].items() if d is not None and d < -QUALITY_SLACK[k]]
        shown = ", ".join(f"{ratios[name]['end_to_end']:.2f}x {name}" for name in GOALS)
        print(f"  {r['corpus']} {r['method']}: speed {'met' if speed else 'NOT met'} ({shown}), quality "
              f"{'met' if not short else 'NOT met (' + ', '.join(short) + ')'}")  # fmt: skip


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--peer":
        peer(*sys.argv[2:])
        return
    parser = training_arguments(__doc__, ["gcide"])
    run_all(parser.parse_args(), bench, report, gensim.__version__)


if __name__ == "__main__":
    main()
