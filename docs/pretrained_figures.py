"""The figure and table of docs/training.md's "Learned, frozen and pretrained tables": TinyLM's
held-out loss against steps from four starts of its token table, two seeds each.

    python docs/pretrained_figures.py                 # figures/pretrained_init.png and a markdown table
    python docs/pretrained_figures.py --out FILE.png  # the figure elsewhere

The corpus is enwiki-sample's first LINES lines. On it: a skip-gram table at the LM's width (what
`embedlab train CORPUS --dim 64` writes), then for each seed one epoch of TinyLM (`--method lm`,
untied, so that freezing fixes the input table only) from four starts, as `embedlab train` would
run them (--freeze, --init-from RUN): the same lm job, init_from's row matching and freeze. The
validation loss is measured every EVERY steps. ~3 minutes on one busy core.
"""

from __future__ import annotations

import argparse
import tempfile
from itertools import islice
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import torch

from embedlab.data.corpora import open_corpus
from embedlab.models.lm import evaluate
from embedlab.tokenizer import FastTokenizer
from embedlab.train.config import RunConfig
from embedlab.train.distributed import Dist
from embedlab.train.init_table import load_source, match_rows
from embedlab.train.lm_job import LMJob
from embedlab.train.run import train

OUT = Path(__file__).parent / "figures" / "pretrained_init.png"
LINES = 4000  # enwiki-sample's first lines: ~160 steps of 32 × 64 pieces, one epoch
LM = dict(method="lm", dim=64, heads=4, layers=2, vocab_size=2000, context=64, batch_size=32, tied=False, threads=1)
SEEDS = (1, 2)
EVERY = 10  # steps between validation losses
STARTS = {  # name -> (init from the skip-gram table, freeze)
    "scratch": (False, False),
    "frozen random": (False, True),
    "pretrained init": (True, False),
    "frozen pretrained": (True, True),
}


def curve(lines: list[str], tokenizer: FastTokenizer, sgns: Path, start: str, seed: int) -> tuple[list, list, dict]:
    """-> (steps, validation losses, init counts) of one run."""
    pretrained, freeze = STARTS[start]
    config = RunConfig(
        corpus="enwiki-sample", seed=seed, freeze=freeze, init_from=str(sgns) if pretrained else None, **LM
    )
    job = LMJob(lines, tokenizer, config, Dist())
    try:
        counts = {"matched": 0, "rows": len(job.keys)}
        if pretrained:
            source = load_source(str(sgns), config.dim)
            run_rows, source_rows = match_rows(job.keys, source, pieces=True)
            job.init_rows(run_rows, source.vectors[source_rows])
            counts["matched"] = len(run_rows)
            counts["row_norm"] = float(np.linalg.norm(source.vectors[source_rows], axis=1).mean())
        steps, losses = [0], [evaluate(job.model, job.valid)[0]]
        for step, _ in enumerate(job.steps(0, 0), start=1):
            if step % EVERY == 0 or step == job.steps_per_epoch:
                steps.append(step)
                losses.append(evaluate(job.model, job.valid)[0])
        return steps, losses, counts
    finally:
        job.close()


def verdict(a: list[float], b: list[float]) -> str:
    """'lower' / 'higher' when every seed of a is below / above every seed of b, else 'within noise'."""
    if max(a) < min(b):
        return "lower"
    if min(a) > max(b):
        return "higher"
    return "within noise"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    torch.set_num_threads(1)
    lines = list(islice(iter(open_corpus("enwiki-sample")), LINES))
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "wiki.txt"
        corpus.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        sgns = Path(tmp) / "sgns"
        skipgram = RunConfig(corpus=str(corpus), dim=LM["dim"], threads=1, epoch_decay=1.0)  # the figures' schedule
        sgns_run = train(skipgram, sgns, evaluate=False)
        tokenizer = FastTokenizer.train(lines, LM["vocab_size"])
        runs = {(start, seed): curve(lines, tokenizer, sgns, start, seed) for start in STARTS for seed in SEEDS}
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, start in enumerate(STARTS):
        for seed, style in zip(SEEDS, ("-", "--"), strict=True):
            steps, losses, _ = runs[start, seed]
            ax.plot(steps, losses, style, color=f"C{i}", label=f"{start}, seed {seed}")
    ax.set(xlabel="AdamW step (32 windows of 64 pieces)", ylabel="held-out loss (nats per piece)", ylim=(None, 7.0))
    ax.set_title(f"TinyLM on enwiki-sample's first {LINES:,} lines: four starts of the token table")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    counts = runs["pretrained init", SEEDS[0]][2]
    table = f"{sgns_run.metrics['vocabulary']:,} words × {LM['dim']}"
    print(
        f"skip-gram table: {table}; {counts['matched']:,} of {counts['rows']:,} pieces matched, "
        f"mean row length {counts['row_norm']:.2f}"
    )
    half = len(runs["scratch", SEEDS[0]][0]) // 2
    print(f"\n| start | loss at step {runs['scratch', SEEDS[0]][0][half]} (seeds) | final loss (seeds) | vs scratch |")
    print("|---|---|---|---|")
    final = {start: [runs[start, s][1][-1] for s in SEEDS] for start in STARTS}
    for start in STARTS:
        early = ", ".join(f"{runs[start, s][1][half]:.3f}" for s in SEEDS)
        last = ", ".join(f"{x:.3f}" for x in final[start])
        vs = "-" if start == "scratch" else verdict(final[start], final["scratch"])
        print(f"| {start} | {early} | {last} | {vs} |")


if __name__ == "__main__":
    main()
