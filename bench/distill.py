"""Distillation (issue 33): what each step of `embedlab distill` buys on WordSim-7, and how much faster
the static model encodes than its teacher.

    python bench/distill.py                          # every side, speed on 2,000 gcide lines, 3 rounds
    python bench/distill.py --sides "distilled 256" teacher --rounds 5 --json
    python bench/distill.py --write docs/results/distill.json     # docs/distill.md's table

Sides: the teacher (MiniLM: six layers, mean-pooled; by sentence-transformers, its fastest mode here,
and as embedlab rebuilds it), MiniLM's own input table (the mean of its
pieces' token rows, no encoder: the static baseline), and distilled models at several widths,
weightings and poolings, each built in this run. Quality is WordSim-7 (vectors.instruments.wordsim7) with its
bootstrap interval. Speed is sentences per second through `encode` on the same lines, the teacher
and each static side alternated round by round; the ratio to the teacher is the median of the
rounds' ratios. Threads: torch and the tokenizer get --threads.

Model2Vec's own distillation (in its own environment: it pins transformers below ours) and WordLlama
are the peers the issue names; they are not in this script yet.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # sentence-transformers reads the installed folder, no hub
# side -> distill's settings (None: not a distillation)
SIDES = {
    "teacher": None,  # all-MiniLM-L6-v2 through sentence-transformers, batches of 64: its fastest here
    "teacher (embedlab)": None,  # the same model rebuilt from embedlab's layers (models.encoder)
    "input table": None,
    "distilled 256": {"dim": 256},
    "distilled 256 unweighted": {"dim": 256, "weighting": "none"},
    "distilled 64": {"dim": 64},
    "distilled 384": {"dim": 384},
    "distilled 256 token": {"dim": 256, "pooling": "token"},
    "distilled 256 token+input": {"dim": 256, "pooling": "token+input"},
}


def build(side: str):
    """side -> texts -> (N, D)."""
    from embedlab.models.encoder import Encoder
    from embedlab.train.distill import distill

    if side == "teacher":
        from sentence_transformers import SentenceTransformer

        from embedlab.data.models import model_dir

        teacher = SentenceTransformer(str(model_dir("minilm")), device="cpu")
        return lambda texts: teacher.encode(texts, batch_size=64)
    if side == "teacher (embedlab)":
        return Encoder.load("minilm").sentence_vectors
    if side == "input table":
        return _input_table().encode
    return distill("minilm", **SIDES[side]).encode


def _input_table():
    """MiniLM's token table as a static model: each text the mean of its pieces' input rows."""
    from tokenizers import Tokenizer

    from embedlab.models.encoder import Encoder
    from embedlab.vectors.static import StaticModel

    encoder = Encoder.load("minilm")
    tokenizer = Tokenizer.from_str(encoder.tokenizer.to_str())
    tokenizer.post_processor = None
    rows = encoder.embedding.token.weight.detach().numpy().astype(np.float32)
    return StaticModel(tokenizer, rows, normalize=True, config={"teacher": "minilm", "layers": 0})


def lines(n: int) -> list[str]:
    """The first n gcide lines of 5 words or more: definitions, a sentence's length."""
    from embedlab.data.corpora import open_corpus

    out = []
    for line in open_corpus("gcide"):
        if len(line.split()) >= 5:
            out.append(line)
            if len(out) == n:
                return out
    return out


def speed(encoders: dict, texts: list[str], rounds: int) -> dict:
    """{side: [sentences/s per round]}, the sides alternated within each round."""
    per = {side: [] for side in encoders}
    for _ in range(rounds):
        for side, encode in encoders.items():
            start = time.perf_counter()
            encode(texts)
            per[side].append(len(texts) / (time.perf_counter() - start))
    return per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sides", nargs="+", default=list(SIDES), choices=SIDES)
    parser.add_argument("--lines", type=int, default=2000, help="gcide lines for the speed rounds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", metavar="PATH", help="also write the JSON object here (docs/results/distill.json)")
    args = parser.parse_args()
    import torch

    from embedlab.vectors.instruments import wordsim7

    torch.set_num_threads(args.threads)
    os.environ["RAYON_NUM_THREADS"] = str(args.threads)  # the tokenizers' batch encoding
    sides = ["teacher", *(s for s in args.sides if s != "teacher")]  # the teacher is every ratio's base
    encoders, results = {}, {}
    for side in sides:
        start = time.process_time()
        encoders[side] = build(side)
        built = time.process_time() - start
        score = wordsim7(encoders[side], resamples=args.resamples)
        results[side] = {"wordsim7": score.score, "interval": score.interval, "sets": score.sets,
                         "build_cpu_s": built}  # fmt: skip
    per = speed(encoders, lines(args.lines), args.rounds)
    for side in sides:
        ratios = [mine / base for mine, base in zip(per[side], per["teacher"], strict=True)]
        results[side] |= {"sentences_per_s": statistics.median(per[side]), "vs_teacher": statistics.median(ratios)}
    record = json.dumps({"lines": args.lines, "rounds": args.rounds, "threads": args.threads, "sides": results})
    if args.write:
        from embedlab.files import atomic_write_text

        atomic_write_text(args.write, record + "\n")
    if args.json:
        print(record)
        return
    print(f"{'side':26} {'WordSim-7':>22} {'sentences/s':>12} {'× teacher':>10} {'build CPU s':>11}")
    for side, r in results.items():
        low, high = r["interval"]
        print(f"{side:26} {r['wordsim7']:6.2f} [{low:5.2f}, {high:5.2f}]   {r['sentences_per_s']:12,.0f}"
              f" {r['vs_teacher']:10.0f} {r['build_cpu_s']:11.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
