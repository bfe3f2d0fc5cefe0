"""Karate club's two clubs, recovered: the figures of docs/graphs.md, the README and docs/lessons.md 000.16.

    python docs/karate_figures.py                       # writes docs/results/karate.json and prints a summary
    python docs/karate_figures.py --results FILE.json   # elsewhere

For seeds 1-5: DeepWalk (p = q = 1) and node2vec (p = 1, q = 0.5) at the settings of
`embedlab graph karate --dim 16 --epochs 5 --threads 1 --seed S --evaluate` (walks 10 × 80, window 10,
5 epochs, one thread, so the table is a function of the seed), and the spectral baseline (scikit-learn's
SpectralEmbedding through embedlab.graphs.spectral_embedding) at 16 and 2 dimensions with the same seed,
which seeds both the eigensolver's start and k-means. Each is scored by graphs.community_recovery (k-means,
k = 2, 10 starts, on the unit rows). Then the Graph nodes lab page at its defaults (sims.nodes.karate_passes:
p = q = 1, one walk per member, seed 1, 16 passes). About 20 s on one core.

The spectral embedding at 16 dimensions keeps eigenvectors whose eigenvalues lie close together: which basis
of them the solver returns depends on its random start and on how the CPU's BLAS sums, so the per-seed
figures move from machine to machine (the spread, not one seed, is the figure to quote).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
from pathlib import Path

from embedlab.graphs import WalkConfig, community_recovery, embed_graph, load_graph, spectral_embedding, train_config
from embedlab.graphs.evaluate import node_rows
from embedlab.sims.nodes import karate_passes

RESULTS = Path(__file__).parent / "results" / "karate.json"
SEEDS = (1, 2, 3, 4, 5)
DIM = 16
WALKS = {"deepwalk": (1.0, 1.0), "node2vec q 0.5": (1.0, 0.5)}


def spread(values: list[float]) -> dict:
    return {"values": values, "mean": statistics.fmean(values), "min": min(values), "max": max(values)}


def measure() -> dict:
    graph = load_graph("karate")
    out: dict = {"seeds": list(SEEDS), "dim": DIM}
    for name, (p, q) in WALKS.items():
        accuracy = []
        for seed in SEEDS:
            config = train_config(dim=DIM, epochs=5, seed=seed, threads=1)
            table = embed_graph(graph, WalkConfig(p=p, q=q, seed=seed), config)
            accuracy.append(community_recovery(node_rows(table, graph), graph.labels, seed=seed).accuracy)
        out[name] = spread(accuracy)
    for dim in (DIM, 2):
        found = [community_recovery(spectral_embedding(graph, dim, seed=s), graph.labels, seed=s) for s in SEEDS]
        out[f"spectral {dim}"] = spread([f.accuracy for f in found]) | {"ari": [f.ari for f in found]}
    page = karate_passes()  # the lab page's defaults
    out["lab page"] = {
        "p": page.p, "q": page.q, "walks": page.walks, "seed": page.seed,
        "passes": [s.passes for s in page.snapshots], "accuracy": [s.accuracy for s in page.snapshots],
        "spectral": {str(b.dim): b.accuracy for b in page.spectral},
    }  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    out = measure()
    out["recorded"] = {"command": " ".join(["python docs/karate_figures.py", *sys.argv[1:]]),
                       "machine": platform.machine()}  # fmt: skip
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    for name in (*WALKS, f"spectral {DIM}", "spectral 2"):
        s = out[name]
        values = ", ".join(f"{v:.3f}" for v in s["values"])
        print(f"{name}: {values}; mean {s['mean']:.3f}, {s['min']:.3f}-{s['max']:.3f}")
    page = out["lab page"]
    print("lab page:", ", ".join(f"{n} passes {a:.3f}" for n, a in zip(page["passes"], page["accuracy"], strict=True)))


if __name__ == "__main__":
    main()
