"""The tables and figure of docs/classify.md: what each of fastText's flags buys on the gcide domains, and
what quantization costs, measured with embedlab's classifier.

    python docs/classify_figures.py               # 3 seeds: docs/results/classify.json, figures/classify_size.png
    python docs/classify_figures.py --seeds 0     # a quick look

Every run trains on gcide-domains (18,477 lines, 15 classes) and is scored by P@1 on gcide-domains-test
(4,532 lines; the majority class is 27.6% of them), 2 threads, in this process. A setting is reported
as the median of its seeds with their range. Bytes are the files' own: each model is written as the
tool's .bin (or .ftz) to a temporary folder and measured there.

Quantization starts from the "bigrams, 25 epochs" model of each seed and varies one thing at a time
from fastText's recipe (`quantize -cutoff 100000 -dsub 2 -qnorm -retrain`): the cutoff, dsub, qnorm
and retraining.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt

from embedlab.data.gcide import domain_text
from embedlab.models.bag import Classifier
from embedlab.models.labelled import LabelledText
from embedlab.train.supervised import Supervised, retrain, train_classifier
from embedlab.vectors.fasttext_quantize import prune, quantize_model
from embedlab.vectors.io.fasttext import write_fasttext

RESULTS = Path(__file__).parent / "results" / "classify.json"
FIGURE = Path(__file__).parent / "figures" / "classify_size.png"
THREADS = 2
BASE = {"epoch": 25, "lr": 1.0, "word_ngrams": 2}  # the model quantization starts from
FLAGS = {  # name -> Supervised settings (fastText's flags, by our names)
    "defaults (dim 100, lr 0.1, 5 epochs)": {},
    "25 epochs": {"epoch": 25},
    "25 epochs, lr 1.0": {"epoch": 25, "lr": 1.0},
    "bigrams, 25 epochs": BASE,
    "trigrams, 25 epochs": {**BASE, "word_ngrams": 3},
    "bigrams + char 3-6 grams": {**BASE, "min_n": 3, "max_n": 6},
    "bigrams, loss hs": {**BASE, "loss": "hs"},
    "bigrams, loss ova": {**BASE, "loss": "ova"},
    "bigrams, loss ns": {**BASE, "loss": "ns"},
    "dim 10, lr 0.5, bigrams, 10M buckets": {"dim": 10, "lr": 0.5, "word_ngrams": 2, "bucket": 10_000_000},
}
RECIPE = {"cutoff": 100_000, "dsub": 2, "qnorm": True, "retrain": True}  # fastText's usual quantize flags
QUANTIZE = {  # name -> the recipe with one thing changed
    "cutoff 100k, dsub 2, qnorm, retrain": {},
    "cutoff 2k": {"cutoff": 2_000},
    "cutoff 10k": {"cutoff": 10_000},
    "cutoff 30k": {"cutoff": 30_000},
    "cutoff 500k": {"cutoff": 500_000},
    "dsub 4": {"dsub": 4},
    "dsub 10": {"dsub": 10},
    "no qnorm": {"qnorm": False},
    "no retraining": {"retrain": False},
}


def score(model, test: LabelledText) -> float:
    return Classifier(model).test(test).precision


def size(model, folder: Path, name: str) -> int:
    return write_fasttext(model, folder / name).stat().st_size


def quantized(model, train: LabelledText, recipe: dict, seed: int):
    kept = prune(model, recipe["cutoff"])
    if recipe["retrain"]:
        kept = retrain(kept, train, threads=THREADS, seed=seed)
    return quantize_model(kept, recipe["dsub"], recipe["qnorm"], seed=seed)


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "seeds": values}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--figure", type=Path, default=FIGURE)
    parser.add_argument("--draw", action="store_true", help="Only draw the figure and print the tables from --results.")
    args = parser.parse_args()
    if args.draw:
        results = json.loads(args.results.read_text())
        draw(results, args.figure)
        table(results)
        return
    train, test = LabelledText.of(domain_text(False), "gcide-domains"), LabelledText.of(domain_text(True), "test")
    flags, quantize = {}, {name: {"accuracy": [], "bytes": [], "seconds": []} for name in QUANTIZE}
    with tempfile.TemporaryDirectory(prefix="classify-figures-") as tmp:
        folder = Path(tmp)
        for name, change in FLAGS.items():
            runs = {"accuracy": [], "bytes": [], "seconds": []}
            for seed in args.seeds:
                start = time.perf_counter()
                model = train_classifier(train, Supervised(**change, threads=THREADS, seed=seed))
                runs["seconds"].append(time.perf_counter() - start)
                runs["accuracy"].append(score(model, test))
                runs["bytes"].append(size(model, folder, "m.bin"))
                if change == BASE:
                    for qname, qchange in QUANTIZE.items():
                        start = time.perf_counter()
                        q = quantized(model, train, RECIPE | qchange, seed)
                        quantize[qname]["seconds"].append(time.perf_counter() - start)
                        quantize[qname]["accuracy"].append(score(q, test))
                        quantize[qname]["bytes"].append(size(q, folder, "m.ftz"))
                del model
            flags[name] = {"settings": change, **{k: summary(v) for k, v in runs.items()}}
            print(f"{name}: {flags[name]['accuracy']['median']:.3f} {flags[name]['bytes']['median'] / 1e6:.1f} MB")
    quantize = {
        name: {"change": QUANTIZE[name], **{k: summary(v) for k, v in q.items()}} for name, q in quantize.items()
    }
    results = {
        "recorded": {"command": "python docs/classify_figures.py", "seeds": args.seeds, "threads": THREADS,
                     "machine": platform.processor() or platform.machine()},
        "majority": majority(test),
        "flags": flags,
        "recipe": RECIPE,
        "quantize": quantize,
    }  # fmt: skip
    args.results.write_text(json.dumps(results, indent=1) + "\n")
    draw(results, args.figure)
    table(results)


def majority(test: LabelledText) -> float:
    """The share of the commonest label among the test lines: what always answering it scores."""
    labels = [t for t in test.tokens.tolist() if test.types[t].startswith(b"__label__")]
    return max(labels.count(label) for label in set(labels)) / len(labels)


CUTOFFS = ["cutoff 2k", "cutoff 10k", "cutoff 30k", "cutoff 100k, dsub 2, qnorm, retrain", "cutoff 500k"]


def draw(results: dict, out: Path) -> None:
    """P@1 (median, seeds' range) against bytes: the .bin of each flag setting, the .ftz along fastText's
    cutoff, and one change at a time from its recipe."""
    fig, ax = plt.subplots(figsize=(9, 5))

    def point(r: dict, color: str, marker: str, label: str, dy: int) -> None:
        x, y = r["bytes"]["median"], r["accuracy"]["median"]
        err = [[y - r["accuracy"]["min"]], [r["accuracy"]["max"] - y]]
        ax.errorbar(x, y, yerr=err, fmt=marker, color=color, capsize=2, ms=5)
        ax.annotate(label, (x, y), fontsize=7, xytext=(4, dy), textcoords="offset points")

    q = results["quantize"]
    ax.plot(
        [q[n]["bytes"]["median"] for n in CUTOFFS], [q[n]["accuracy"]["median"] for n in CUTOFFS], color="tab:orange"
    )
    for i, name in enumerate(q):
        short = name.split(",")[0] if name in CUTOFFS else name
        point(q[name], "tab:orange", "s", short, -10 if i % 2 else 3)
    for i, (name, r) in enumerate(results["flags"].items()):
        point(r, "tab:blue", "o", name, (-9, 3)[i % 2])
    ax.set_xscale("log")
    ax.set_ylim(0.7, 0.86)
    ax.set_xlabel(
        "file size, bytes (blue: .bin; orange: .ftz from the bigrams model, fastText's recipe and one change)"
    )
    ax.set_ylabel("P@1, gcide-domains-test")
    ax.set_title(f"Accuracy against size, median and range of seeds (majority class: {results['majority']:.3f})")
    fig.tight_layout()
    fig.savefig(out, dpi=130)


def table(results: dict) -> None:
    for group in ("flags", "quantize"):
        print(f"\n| {group} | P@1 [range] | MB | seconds |\n|---|---|---|---|")
        for name, r in results[group].items():
            a = r["accuracy"]
            print(f"| {name} | {a['median']:.3f} [{a['min']:.3f}, {a['max']:.3f}] | {r['bytes']['median'] / 1e6:.2f} "
                  f"| {r['seconds']['median']:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
