"""One epoch on a small walk corpus: embedlab's skip-gram against gensim's on the same walks.

    python bench/sgns_gap.py --epochs 1            # planted 10 x 200, 2 walks x 20 per node: 80,000 words

Both sides get the same walks (one thread, one worker, gensim's defaults otherwise: sample 1e-3,
negative 5, alpha 0.025 -> 0.0001) and are scored by the same k-means (docs/benchmarks.md,
"One epoch on a small corpus"). Seconds per seed.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from gensim.models import Word2Vec

from embedlab.graphs import WalkConfig, community_recovery, train_config
from embedlab.graphs.embed import train_walks
from embedlab.graphs.evaluate import node_rows
from embedlab.graphs.graph import planted_partition
from embedlab.graphs.walks import random_walks
from embedlab.vectors import Vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    args = parser.parse_args()
    graph = planted_partition(10, 200, 10 / 199, 2 / 1800, seed=1)
    scores = {"embedlab": [], "gensim": []}
    for seed in args.seeds:
        walks = random_walks(graph, WalkConfig(2, 20, seed=seed), threads=1)
        start = time.perf_counter()
        ours = train_walks(walks, graph.keys, train_config(dim=args.dim, epochs=args.epochs, seed=seed, threads=1))
        mid = time.perf_counter()
        sentences = [[graph.keys[v] for v in walk if v >= 0] for walk in walks]
        model = Word2Vec(
            sentences,
            vector_size=args.dim,
            window=10,
            min_count=1,
            sg=1,
            negative=5,
            workers=1,
            epochs=args.epochs,
            seed=seed,
        )
        end = time.perf_counter()
        theirs = Vectors(list(model.wv.index_to_key), model.wv.vectors)
        line = f"seed {seed}:"
        for side, table, seconds in (("embedlab", ours, mid - start), ("gensim", theirs, end - mid)):
            accuracy = community_recovery(node_rows(table, graph), graph.labels, seed=seed).accuracy
            scores[side].append(accuracy)
            line += f"  {side} {accuracy:.4f} ({seconds:.2f} s)"
        print(line, flush=True)
    print("mean:" + "".join(f"  {side} {np.mean(s):.4f}" for side, s in scores.items()))


if __name__ == "__main__":
    main()
