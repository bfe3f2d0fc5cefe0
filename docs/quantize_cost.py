"""What storing a table smaller costs on the word benchmarks: float16, int8 and fastText's product
quantization (vectors/quantize.py, what `embedlab export --out x.ftz` writes) against the float32 table,
the figures of docs/quantize.md.

    python docs/quantize_cost.py                      # trains (or reuses) one run, writes docs/results/quantize.json
    python docs/quantize_cost.py --work DIR --results F
    python docs/quantize_cost.py --show               # the page's tables, from the results file alone

Two tables: the built-in `minilm` (MiniLM's 30,522 × 384 WordPiece input table) and a word table trained
on the built-in corpus (`embedlab train enwiki-sample --dim 128 --epochs 5 --seed 1`, sgns, 2 threads,
other settings default: about 9,200 words). Each is stored seven ways and decoded back to float32:

    fp16             each number rounded to float16 (numpy's astype, round to nearest even)
    int8             each column mapped to 256 levels between its min and max (the per-dimension
                     range of FAISS's SQ8 and sentence-transformers' int8): V·D bytes + 2·D float32
    pq dsub d        product quantization in sub-vectors of d = 2, 4, 8 columns, 256 centroids each
    pq dsub d qnorm  the same on the unit rows, each row's norm a byte of its own (fastText's -qnorm)

Bytes are the stored table's (codes, codebooks, norms, scales; not a file's words). Each stored table
is scored against the float32 one by vectors.intervals.compare_benchmarks: Spearman on WordSim-353,
SimLex-999, RW, MEN, SimVerb-3500, MTurk-771 and 3CosAdd accuracy on the Google analogies, over the
items both can score, with the paired bootstrap interval of the difference (1,000 resamples, seed 0):
how far the difference would move on another draw of items like these. Product quantization's k-means
is seeded: each pq row is run with fastText's seed 1234 and with seed 1, so the difference between the
two says how much of a change comes from the draw of centroids rather than from the dsub.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

from embedlab.files import atomic_write_text
from embedlab.train.config import RunConfig
from embedlab.train.run import train
from embedlab.vectors import Vectors, load
from embedlab.vectors.intervals import CONFIDENCE, RESAMPLES, compare_benchmarks
from embedlab.vectors.quantize import quantize

RESULTS = Path(__file__).parent / "results" / "quantize.json"
CORPUS = "enwiki-sample"
SETTINGS = {"method": "sgns", "dim": 128, "epochs": 5, "threads": 2, "seed": 1}
DSUBS = (2, 4, 8)
PQ_SEEDS = (1234, 1)  # fastText's seed, and one more: the k-means draw's own share of a change
BOOTSTRAP_SEED = 0


def trained(work: Path) -> Path:
    """The run folder, trained unless it holds a finished run."""
    folder = work / f"{CORPUS}-sgns-{SETTINGS['dim']}"
    if not (folder / "metrics.json").is_file():
        train(RunConfig(corpus=CORPUS, **SETTINGS), folder, evaluate=False)
    return folder


def fp16(x: np.ndarray) -> tuple[np.ndarray, int]:
    """(V, D) -> the rows rounded to float16 and back, and their bytes."""
    return x.astype(np.float16).astype(np.float32), x.size * 2


def int8(x: np.ndarray) -> tuple[np.ndarray, int]:
    """(V, D) -> each column quantized to 256 levels over its [min, max] and decoded, and the bytes:
    V·D codes + a float32 low and step per column."""
    low, high = x.min(axis=0), x.max(axis=0)  # (D,)
    step = np.where(high > low, (high - low) / 255, 1).astype(np.float32)
    codes = np.clip(np.rint((x - low) / step), 0, 255).astype(np.uint8)
    return (low + codes * step).astype(np.float32), codes.nbytes + 2 * 4 * x.shape[1]


def variants(x: np.ndarray):
    """(name, settings, decoded (V, D), bytes) of every way a table is stored."""
    yield "fp16", {}, *fp16(x)
    yield "int8", {}, *int8(x)
    for dsub in DSUBS:
        for qnorm in (False, True):
            for seed in PQ_SEEDS:
                q = quantize(x, dsub, qnorm, seed)
                name = f"pq dsub {dsub}" + (" qnorm" if qnorm else "")
                yield name, {"dsub": dsub, "qnorm": qnorm, "seed": seed}, q.decode(), q.nbytes


def measure(name: str, table: Vectors) -> dict:
    """Every stored version of `table` against its float32 rows."""
    x = np.ascontiguousarray(table.vectors)
    rows = []
    for kind, settings, decoded, nbytes in variants(x):
        start = time.time()
        stored = Vectors(table.index_to_key, decoded, table.counts, name=kind)
        diffs = compare_benchmarks(table, stored, resamples=RESAMPLES, seed=BOOTSTRAP_SEED)
        error = float(np.linalg.norm(decoded - x) / np.linalg.norm(x))
        cosines = np.einsum("ij,ij->i", table.unit_vectors, stored.unit_vectors)
        rows.append({"storage": kind, **settings, "bytes": nbytes, "smaller": x.nbytes / nbytes,
                     "relative_error": error, "mean_row_cosine": float(cosines.mean()),
                     "benchmarks": {d.name: {"metric": d.metric, "fp32": d.a, "stored": d.b, "difference": d.difference,
                                             "interval": list(d.interval), "items": d.items,
                                             "significant": d.significant} for d in diffs}})  # fmt: skip
        print(f"{name} {kind} {settings} {nbytes:,} B, error {error:.4f}: {time.time() - start:.0f} s", flush=True)
    return {"name": name, "rows": len(table), "dim": table.vector_size, "fp32_bytes": x.nbytes, "stored": rows}


SHOWN = ("wordsim353", "simlex999", "men", "rw", "simverb3500", "mturk771", "google")  # the page's columns


def cell(d: dict) -> str:
    """A difference with its interval, as the page prints it: "−0.012 [−0.020, −0.004]"."""
    low, high = d["interval"]
    return f"{d['difference']:+.3f} [{low:+.3f}, {high:+.3f}]".replace("-", "−")


def label(row: dict) -> str:
    """A stored version's name on the page: "fp16", "pq dsub 4 qnorm, seed 1"."""
    return row["storage"] + (f", seed {row['seed']}" if "seed" in row else "")


def markdown(results: dict) -> str:
    """The page's tables: one per table, a row per stored version."""
    out = []
    for t in results["tables"]:
        head = ["stored as", "bytes", "fp32 ÷", "row error", *SHOWN]
        out += [f"{t['name']}, {t['rows']:,} × {t['dim']}: float32 {t['fp32_bytes']:,} bytes", "",
                "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]  # fmt: skip
        for row in t["stored"]:
            cells = [label(row), f"{row['bytes']:,}", f"{row['smaller']:.2f}", f"{row['relative_error']:.3f}"]
            cells += [cell(row["benchmarks"][b]) if b in row["benchmarks"] else "-" for b in SHOWN]
            out.append("| " + " | ".join(cells) + " |")
        first = t["stored"][0]["benchmarks"]
        fp32 = [f"{b} {first[b]['fp32']:.3f}" for b in SHOWN if b in first]
        out += ["", "float32 scores: " + ", ".join(fp32), ""]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("runs/quantize"), help="where the trained run is kept")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--show", action="store_true", help="print the page's tables from --results and stop")
    args = parser.parse_args()
    if args.show:
        print(markdown(json.loads(args.results.read_text(encoding="utf-8"))))
        return
    start = time.time()
    run = trained(args.work)
    tables = [measure("minilm", Vectors.load("minilm")), measure(f"{CORPUS} sgns {SETTINGS['dim']}", load(run))]
    results = {"corpus": CORPUS, "settings": SETTINGS, "dsubs": list(DSUBS), "pq_seeds": list(PQ_SEEDS),
               "resamples": RESAMPLES, "confidence": CONFIDENCE, "bootstrap_seed": BOOTSTRAP_SEED,
               "tables": tables}  # fmt: skip
    results["recorded"] = {"command": "python docs/quantize_cost.py", "date": time.strftime("%Y-%m-%d"),
                           "wall_seconds": round(time.time() - start), "machine": platform.machine(),
                           "python": platform.python_version()}  # fmt: skip
    atomic_write_text(args.results, json.dumps(results, indent=1) + "\n")
    print(f"wrote {args.results}", file=sys.stderr)


if __name__ == "__main__":
    main()
