"""Node vectors against pecanpy, the fastest node2vec we know, on the same walks and skip-gram settings.

    python bench/graphs.py --nodes 10000 --repeats 3
    python bench/graphs.py --nodes 100000 --walks 10 --length 80 --p 1 --q 0.5

pecanpy pins numpy < 2 (through nptyping) and this project runs numpy 2, so it lives in a venv of its
own (make one: python -m venv /tmp/pecanpy-venv && /tmp/pecanpy-venv/bin/pip install pecanpy) and
runs in a subprocess of that Python (--pecanpy-python); each side times only its walks and its
training, inside its process. pecanpy's mode is its fastest documented one for the graph:
FirstOrderUnweighted for p = q = 1 (DeepWalk), PreComp for p/q walks on a sparse graph (its README:
"PreComp ... for relatively small and sparse graphs", SparseOTF for large ones; --mode overrides).
Its training is gensim's Word2Vec (skip-gram, min_count 0) on the walks, ours embedlab's kernels
(`embedlab.graphs`). Sides alternate; the medians and the ratio print at the end, with both tables'
k-means accuracy on the planted blocks (same scorer) so that speed is never bought with quality.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from embedlab.graphs import WalkConfig, community_recovery, planted_partition, random_walks, train_config, train_walks
from embedlab.graphs.evaluate import node_rows
from embedlab.vectors import Vectors

PECANPY = """
import json, sys, time
import numpy as np
from pecanpy import pecanpy as node2vec
from gensim.models import Word2Vec
a = json.loads(sys.argv[1])
g = getattr(node2vec, a["mode"])(p=a["p"], q=a["q"], workers=a["threads"], verbose=False, random_state=a["seed"])
g.read_edg(a["edges"], weighted=False, directed=False)
start = time.perf_counter()
if a["mode"] == "PreComp":
    g.preprocess_transition_probs()
walks = g.simulate_walks(num_walks=a["walks"], walk_length=a["length"])
walked = time.perf_counter()
model = Word2Vec(walks, vector_size=a["dim"], window=a["window"], min_count=0, sg=1, workers=a["threads"],
                 epochs=a["epochs"], seed=a["seed"])
done = time.perf_counter()
keys = list(model.wv.index_to_key)
np.save(a["out"], model.wv.vectors)
print(json.dumps({"walks": walked - start, "train": done - walked, "keys": keys}))
"""


def run_ours(graph, walks: WalkConfig, config) -> dict:
    start = time.perf_counter()
    w = random_walks(graph, walks, threads=config.threads)
    walked = time.perf_counter()
    table = train_walks(w, graph.keys, config)
    done = time.perf_counter()
    return {"walks": walked - start, "train": done - walked, "table": table}


def run_pecanpy(python: str, edges: Path, args, mode: str, seed: int, folder: Path) -> dict:
    out = folder / "pecanpy.npy"
    settings = {"edges": str(edges), "mode": mode, "p": args.p, "q": args.q, "threads": args.threads, "seed": seed,
                "walks": args.walks, "length": args.length, "dim": args.dim, "window": args.window,
                "epochs": args.epochs, "out": str(out)}  # fmt: skip
    result = subprocess.run([python, "-c", PECANPY, json.dumps(settings)], capture_output=True, text=True, check=True)
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    answer["table"] = Vectors(answer.pop("keys"), np.load(out))
    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--degree-in", type=float, default=10.0, help="expected ties inside a node's block")
    parser.add_argument("--degree-out", type=float, default=2.0, help="expected ties to other blocks")
    parser.add_argument("--walks", type=int, default=10)
    parser.add_argument("--length", type=int, default=80)
    parser.add_argument("--p", type=float, default=1.0)
    parser.add_argument("--q", type=float, default=1.0)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--window", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mode", default=None, help="pecanpy's mode (default: its fastest for the graph)")
    parser.add_argument("--pecanpy-python", default="/tmp/pecanpy-venv/bin/python")
    args = parser.parse_args()
    size = args.nodes // args.groups
    p_in, p_out = args.degree_in / (size - 1), args.degree_out / (args.nodes - size)
    graph = planted_partition(args.groups, size, p_in, p_out, seed=1)
    mode = args.mode or ("FirstOrderUnweighted" if args.p == args.q == 1.0 else "PreComp")
    print(f"planted {args.groups}x{size}: {graph.nodes:,} nodes, {graph.edges:,} edges; walks {args.walks}x"
          f"{args.length}, p {args.p}, q {args.q}, dim {args.dim}, window {args.window}, epochs {args.epochs}, "
          f"{args.threads} threads; pecanpy {mode}")  # fmt: skip
    times = {"embedlab": [], "pecanpy": []}
    accuracy = {"embedlab": [], "pecanpy": []}
    with tempfile.TemporaryDirectory() as folder:
        edges = Path(folder) / "graph.edg"
        np.savetxt(edges, graph.edge_list(), fmt="%d", delimiter="\t")
        for repeat in range(args.repeats):
            seed = repeat + 1
            for side in ("embedlab", "pecanpy") if repeat % 2 == 0 else ("pecanpy", "embedlab"):
                if side == "embedlab":
                    walks = WalkConfig(args.walks, args.length, args.p, args.q, seed)
                    config = train_config(dim=args.dim, window=args.window, epochs=args.epochs, seed=seed,
                                          threads=args.threads)  # fmt: skip
                    run = run_ours(graph, walks, config)
                else:
                    run = run_pecanpy(args.pecanpy_python, edges, args, mode, seed, Path(folder))
                acc = community_recovery(node_rows(run["table"], graph), graph.labels, seed=seed).accuracy
                times[side].append((run["walks"], run["train"]))
                accuracy[side].append(acc)
                print(f"  {side:9} seed {seed}: walks {run['walks']:.2f} s, training {run['train']:.2f} s, "
                      f"k-means accuracy {acc:.4f}", flush=True)  # fmt: skip
    print(f"{'':10}{'walks s':>10}{'training s':>12}{'total s':>10}{'accuracy':>10}")
    medians = {}
    for side, rows in times.items():
        w, t = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
        medians[side] = (w, t, statistics.median(r[0] + r[1] for r in rows))
        print(f"{side:10}{w:>10.2f}{t:>12.2f}{medians[side][2]:>10.2f}{statistics.median(accuracy[side]):>10.4f}")
    ratio = [p / e for e, p in zip(medians["embedlab"], medians["pecanpy"], strict=True)]
    print(f"{'pecanpy / embedlab':18}{ratio[0]:>6.2f}{ratio[1]:>12.2f}{ratio[2]:>10.2f}   (> 1: embedlab faster)")


if __name__ == "__main__":
    main()
