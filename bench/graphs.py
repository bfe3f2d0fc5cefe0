"""Node vectors against pecanpy, the fastest node2vec we know, on the same graph, walks and skip-gram settings.

    python bench/graphs.py --nodes 10000 --repeats 3                              # DeepWalk: FirstOrderUnweighted
    python bench/graphs.py --nodes 10000 --p 1 --q 0.5 --repeats 3                # node2vec: PreComp
    python bench/graphs.py --nodes 1000000 --walks 2 --length 40 --repeats 1 --json graphs-1m.json

pecanpy pins numpy < 2 (through nptyping) and this project runs numpy 2, so it lives in a venv of its
own (make one: python -m venv /tmp/pecanpy-venv && /tmp/pecanpy-venv/bin/pip install pecanpy) and runs
in a subprocess of that Python (--pecanpy-python). embedlab runs in a subprocess too (this file with
--worker), so each side's peak memory is its own process's (VmHWM, peak resident memory: "base" after
imports and reading the graph, "peak" at the end). Both read one CSR file in pecanpy's .csr.npz layout (IDs,
data, indptr, indices), written once; each side times only its walks and its training, inside its
process. Walks include each side's first-call cost: pecanpy compiles its numba walker in every
process (it does not cache), embedlab loads its cached kernels. PreComp's walks include its
precomputed second-order table, timed apart too ("precompute").

pecanpy's mode is its fastest documented one for the graph: FirstOrderUnweighted for p = q = 1
(DeepWalk), PreComp for p/q walks (its README: "PreComp ... for relatively small and sparse graphs",
SparseOTF for large ones; --mode overrides). Its training is gensim's Word2Vec (skip-gram, min_count 0)
on its walks (lists of node-id strings), ours embedlab's kernels (`embedlab.graphs`) on an int32 array.
Sides alternate; medians over --repeats and the ratios print at the end (and go to --json), with both
tables' k-means accuracy on the planted blocks (same scorer, same nodes) so that speed is never bought
with quality. Above --score-nodes nodes, k-means runs on a fixed seeded sample of that many nodes.

The planted partition comes from embedlab's geometric sampler (networkx's distribution in O(N + E);
networkx's own generator draws every pair inside a block: 34 s at 100K nodes, about an hour at 1M).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PECANPY = """
import json, sys, time
import numpy as np
from pecanpy import pecanpy as node2vec
from gensim.models import Word2Vec
def peak():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1])
a = json.loads(sys.argv[1])
g = getattr(node2vec, a["mode"])(p=a["p"], q=a["q"], workers=a["threads"], verbose=False, random_state=a["seed"])
g.read_npz(a["graph"], weighted=False)
base = peak()
start = time.perf_counter()
g._preprocess_transition_probs()  # what simulate_walks calls first (a no-op but for PreComp), timed apart
prepared = time.perf_counter()
walks = g.simulate_walks(num_walks=a["walks"], walk_length=a["length"])
walked = time.perf_counter()
model = Word2Vec(walks, vector_size=a["dim"], window=a["window"], min_count=0, sg=1, workers=a["threads"],
                 epochs=a["epochs"], seed=a["seed"])
done = time.perf_counter()
np.save(a["out"], model.wv.vectors)
print(json.dumps({"walks": walked - start, "precompute": prepared - start, "train": done - walked,
                  "rss_base": base, "rss_peak": peak(), "keys": list(model.wv.index_to_key)}))
"""
SIDES = ("embedlab", "pecanpy")
SAMPLE_SEED = 0  # the scored nodes are the same for every side and repeat


def peak_rss() -> int:
    """This process's peak resident memory in KB: VmHWM, which (unlike getrusage's ru_maxrss, kept across
    fork and exec) starts afresh in a new program, so a worker does not inherit the bench's tables."""
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith("VmHWM")).split()[1])


def ours(settings: dict) -> dict:
    """embedlab's side, in its own process (--worker): the graph file -> walks -> skip-gram, timed."""
    from embedlab.graphs import Graph, WalkConfig, random_walks, train_config, train_walks

    raw = np.load(settings["graph"])
    keys = raw["IDs"].tolist()
    graph = Graph("bench", keys, raw["indptr"].astype(np.int64), raw["indices"].astype(np.int32))
    walks = WalkConfig(settings["walks"], settings["length"], settings["p"], settings["q"], settings["seed"])
    config = train_config(
        dim=settings["dim"],
        window=settings["window"],
        epochs=settings["epochs"],
        seed=settings["seed"],
        threads=settings["threads"],
    )
    base = peak_rss()
    start = time.perf_counter()
    w = random_walks(graph, walks, threads=config.threads)  # (N · walks, length) int32
    walked = time.perf_counter()
    table = train_walks(w, graph.keys, config)
    done = time.perf_counter()
    np.save(settings["out"], table.vectors)
    times = {"walks": walked - start, "train": done - walked}
    return {**times, "rss_base": base, "rss_peak": peak_rss(), "keys": list(table.index_to_key)}


def run_side(side: str, settings: dict, python: str) -> dict:
    """One side in a subprocess -> {"walks", "train", "rss_base", "rss_peak" (KB), "keys", "table" (V, dim)}."""
    if side == "embedlab":
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(settings)]
    else:
        command = [python, "-c", PECANPY, json.dumps(settings)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{side} failed (exit {result.returncode}):\n{result.stderr[-3000:]}")
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    answer["table"] = np.load(settings["out"])
    return answer


def score(keys: list[str], table: np.ndarray, graph, sample: np.ndarray, seed: int) -> float:
    """k-means accuracy on the planted blocks of the sampled nodes (a node the table lacks scores as zeros)."""
    from embedlab.graphs import community_recovery

    index = {key: i for i, key in enumerate(keys)}
    rows = np.zeros((len(sample), table.shape[1]), dtype=np.float32)  # (S, dim)
    for r, v in enumerate(sample.tolist()):
        i = index.get(graph.keys[v])
        if i is not None:
            rows[r] = table[i]
    return community_recovery(rows, graph.labels[sample], seed=seed).accuracy


def summary(runs: list[dict]) -> dict:
    """Per side the medians over repeats, and pecanpy / embedlab for the times (> 1: embedlab faster)."""
    medians = {}
    for side in SIDES:
        mine = [r for r in runs if r["side"] == side]
        fields = ("walks", "train", "total", "accuracy", "rss_peak_mb")
        medians[side] = {f: statistics.median(r[f] for r in mine) for f in fields}
    ratios = {f: medians["pecanpy"][f] / medians["embedlab"][f] for f in ("walks", "train", "total", "rss_peak_mb")}
    return {"medians": medians, "ratios": ratios}


def race(args: argparse.Namespace, graph, mode: str, sample: np.ndarray) -> list[dict]:
    """Both sides on one graph file, alternating each repeat -> one record per run (times in s, memory in MB)."""
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        tables = Path(folder)
        path = tables / "graph.csr.npz"  # pecanpy's CSR layout; both sides read it
        ones = np.ones(len(graph.indices), dtype=np.float32)
        np.savez(path, IDs=np.array(graph.keys), data=ones, indptr=graph.indptr, indices=graph.indices)
        names = ("p", "q", "threads", "walks", "length", "dim", "window", "epochs")
        common = {"graph": str(path), **{name: vars(args)[name] for name in names}, "mode": mode}
        for repeat in range(args.repeats):
            seed = repeat + 1
            for side in SIDES if repeat % 2 == 0 else SIDES[::-1]:
                settings = {**common, "seed": seed, "out": str(tables / f"{side}.npy")}
                run = run_side(side, settings, args.pecanpy_python)
                record = {
                    "side": side,
                    "repeat": repeat,
                    "seed": seed,
                    "walks": run["walks"],
                    "train": run["train"],
                    "total": run["walks"] + run["train"],
                    "rss_base_mb": run["rss_base"] / 1024,
                    "rss_peak_mb": run["rss_peak"] / 1024,
                    "accuracy": score(run["keys"], run["table"], graph, sample, seed),
                }
                if "precompute" in run:
                    record["precompute"] = run["precompute"]
                runs.append(record)
                prep = f" (precompute {record['precompute']:.2f})" if mode == "PreComp" and side == "pecanpy" else ""
                print(
                    f"  {side:9} seed {seed}: walks {record['walks']:.2f} s{prep}, training {record['train']:.2f} s, "
                    f"k-means accuracy {record['accuracy']:.4f}, peak {record['rss_peak_mb']:,.0f} MB "
                    f"(base {record['rss_base_mb']:,.0f})",
                    flush=True,
                )
    return runs


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--degree-in", type=float, default=10.0, help="expected ties inside a node's block")
    parser.add_argument("--degree-out", type=float, default=2.0, help="expected ties to other blocks")
    parser.add_argument("--sampler", default="geometric", choices=("geometric", "networkx"))
    parser.add_argument("--walks", type=int, default=10, help="walks per node (node2vec's r)")
    parser.add_argument("--length", type=int, default=80, help="nodes per walk (node2vec's l)")
    parser.add_argument("--p", type=float, default=1.0)
    parser.add_argument("--q", type=float, default=1.0)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--window", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--score-nodes", type=int, default=100_000, help="k-means on a seeded sample above this")
    parser.add_argument("--mode", default=None, help="pecanpy's mode (default: its fastest for the graph)")
    parser.add_argument("--pecanpy-python", default="/tmp/pecanpy-venv/bin/python")
    parser.add_argument("--json", type=Path, default=None, help="write every run, the medians and ratios here")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)  # embedlab's side, in its own process
    return parser.parse_args()


def main() -> None:
    args = parse()
    if args.worker is not None:
        print(json.dumps(ours(json.loads(args.worker))))
        return
    from embedlab.files import atomic_write_text
    from embedlab.graphs import planted_partition

    size = args.nodes // args.groups
    p_in, p_out = args.degree_in / (size - 1), args.degree_out / (args.nodes - size)
    start = time.perf_counter()
    graph = planted_partition(args.groups, size, p_in, p_out, seed=1, sampler=args.sampler)
    built = time.perf_counter() - start
    mode = args.mode or ("FirstOrderUnweighted" if args.p == args.q == 1.0 else "PreComp")
    N = graph.nodes
    sample = np.arange(N)
    if N > args.score_nodes:
        sample = np.sort(np.random.default_rng(SAMPLE_SEED).choice(N, args.score_nodes, replace=False))
    sampled = f" (a seeded sample, seed {SAMPLE_SEED})" if len(sample) < N else ""
    print(
        f"planted {args.groups}x{size} ({args.sampler}, {built:.1f} s): {N:,} nodes, {graph.edges:,} edges; "
        f"walks {args.walks}x{args.length} ({N * args.walks * args.length:,} steps), p {args.p}, q {args.q}, "
        f"dim {args.dim}, window {args.window}, epochs {args.epochs}, {args.threads} threads; pecanpy {mode}; "
        f"k-means on {len(sample):,} of {N:,} nodes{sampled}",
        flush=True,
    )
    runs = race(args, graph, mode, sample)
    result = summary(runs)
    print(f"{'':10}{'walks s':>10}{'training s':>12}{'total s':>10}{'accuracy':>10}{'peak MB':>10}")
    for side, m in result["medians"].items():
        print(
            f"{side:10}{m['walks']:>10.2f}{m['train']:>12.2f}{m['total']:>10.2f}{m['accuracy']:>10.4f}"
            f"{m['rss_peak_mb']:>10,.0f}"
        )
    r = result["ratios"]
    print(
        f"{'pecanpy / embedlab':18}{r['walks']:>6.2f}{r['train']:>12.2f}{r['total']:>10.2f}{'':>10}"
        f"{r['rss_peak_mb']:>10.2f}   (> 1: embedlab faster, smaller)"
    )
    if args.json is not None:
        graph_info = {
            "nodes": N,
            "edges": graph.edges,
            "groups": args.groups,
            "sampler": args.sampler,
            "seconds": built,
        }
        settings = {k: v for k, v in vars(args).items() if k not in ("json", "worker", "pecanpy_python")}
        document = {
            "settings": {**settings, "pecanpy_mode": mode},
            "graph": graph_info,
            "scoring": {"nodes": len(sample), "of": N, "sample_seed": SAMPLE_SEED, "sampled": len(sample) < N},
            "runs": runs,
            **result,
        }
        atomic_write_text(args.json, json.dumps(document, indent=1) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
