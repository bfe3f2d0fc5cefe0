"""Random walks on a Graph: DeepWalk's uniform walks and node2vec's second-order p/q walks, compiled and seeded.

    walks = random_walks(graph, WalkConfig(walks_per_node=10, length=80))          # DeepWalk
    walks = random_walks(graph, WalkConfig(p=0.5, q=2.0))                          # node2vec
    walks.shape                      # (N · walks_per_node, length) int32 node indices, -1 after a dead end

Each round visits every node once, in an order shuffled by the seed, and starts a walk there (as
DeepWalk, node2vec and pecanpy do). A uniform walk steps to a neighbour drawn uniformly. A node2vec
walk that came from t to v steps to a neighbour x of v with probability proportional to

    1/p  if x == t           (return)
    1    if x is t's neighbour (stay close: breadth-first-like)
    1/q  otherwise           (move out: depth-first-like)

drawn exactly by rejection (KnightKing's way): draw x uniformly among v's neighbours and keep it with
probability weight(x) / max(1/p, 1, 1/q); whether x neighbours t is a binary search in t's sorted row.
Nothing is precomputed, so memory stays O(E) at any p and q (pecanpy's SparseOTF is also
O(E) but computes every neighbour's weight at each step; its PreComp stores them all, O(Σ deg²)).

Each walk has its own random stream (splitmix64 of the seed and the walk's number), so the walks are
the same for a seed whatever the number of threads.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from embedlab.errors import InvalidValueError, check_float, check_int
from embedlab.graphs.graph import Graph
from embedlab.sizing.memory import check_memory

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # splitmix64's increment
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32, _S11 = (np.uint64(s) for s in (30, 27, 31, 32, 11))
_UNIT = 1.0 / 2.0**53  # a 53-bit integer times this is a float in [0, 1)


@dataclass(frozen=True)
class WalkConfig:
    walks_per_node: int = 10  # rounds: DeepWalk's γ, node2vec's r (both use 10)
    length: int = 80  # nodes per walk, the start included (node2vec's l = 80; DeepWalk's t = 40)
    p: float = 1.0  # return parameter: weight 1/p to step back to the previous node
    q: float = 1.0  # in-out parameter: weight 1/q to step to a node not adjacent to the previous one
    seed: int = 1

    def __post_init__(self) -> None:
        check_int("walks_per_node", self.walks_per_node, low=1)
        check_int("length", self.length, low=1)
        check_float("p", self.p, low=0.0)
        check_float("q", self.q, low=0.0)
        if self.p == 0.0 or self.q == 0.0:
            raise InvalidValueError(
                f"p and q must be > 0 (their inverses weight the steps); got p {self.p}, q {self.q}"
            )
        check_int("seed", self.seed, low=0)

    @property
    def uniform(self) -> bool:
        """p = q = 1 makes every neighbour equally likely: DeepWalk's walk, drawn without the second-order test."""
        return self.p == 1.0 and self.q == 1.0


@njit(inline="always")
def _next(state):
    """splitmix64: -> (next state, a 64-bit random)."""
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return state, z ^ (z >> _S31)


@njit(inline="always")
def _below(r, n):
    """A 64-bit random -> an integer uniform in 0..n-1 (n < 2**32; Lemire's multiply-shift)."""
    return np.int64(((r >> _S32) * np.uint64(n)) >> _S32)


@njit(inline="always")
def _adjacent(indptr, indices, a, b):
    """Whether b is in a's sorted neighbour row (binary search)."""
    lo, hi = indptr[a], indptr[a + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < b:
            lo = mid + 1
        else:
            hi = mid
    return lo < indptr[a + 1] and indices[lo] == b


@njit(parallel=True, cache=True)
def walk_kernel(indptr, indices, starts, length, inv_p, inv_q, second_order, seed):
    """(N+1,) int64, (2E,) int32 CSR; (W,) int64 start nodes -> (W, length) int32 walks, -1 after a dead end."""
    W = len(starts)
    out = np.full((W, length), -1, dtype=np.int32)
    top = max(inv_p, 1.0, inv_q)
    for w in prange(W):
        state, _ = _next(np.uint64(seed) * _GOLDEN ^ np.uint64(w))
        v = starts[w]
        prev = np.int64(-1)
        out[w, 0] = v
        for step in range(1, length):
            lo = indptr[v]
            degree = indptr[v + 1] - lo
            if degree == 0:
                break
            state, r = _next(state)
            x = np.int64(indices[lo + _below(r, degree)])
            if second_order and prev >= 0:
                while True:  # rejection: keep x with probability weight(x) / top
                    if x == prev:
                        weight = inv_p
                    elif _adjacent(indptr, indices, prev, x):
                        weight = 1.0
                    else:
                        weight = inv_q
                    state, r = _next(state)
                    if np.float64(r >> _S11) * _UNIT * top < weight:
                        break
                    state, r = _next(state)
                    x = np.int64(indices[lo + _below(r, degree)])
            out[w, step] = x
            prev = v
            v = x
    return out


def walk_starts(nodes: int, config: WalkConfig) -> np.ndarray:
    """(N · walks_per_node,) int64: each round a permutation of the nodes, drawn from the seed."""
    rng = np.random.default_rng(config.seed)
    return np.concatenate([rng.permutation(nodes) for _ in range(config.walks_per_node)]).astype(np.int64)


WALK_BYTES, START_BYTES = 4, 8  # a walk's node (int32), a walk's start node (int64)


def check_walkable(graph: Graph) -> None:
    """Raise InvalidValueError unless `graph` has an edge: a walk on a graph with none never takes a
    step, so every walk is its start node alone and skip-gram has no context to learn from."""
    if graph.edges == 0:
        nodes = f"{graph.nodes:,} node" + ("" if graph.nodes == 1 else "s")
        raise InvalidValueError(
            f"graph {graph.name} has {nodes} and no edge: a random walk has nowhere to step, so there is "
            "nothing to learn; give it edges (a planted graph: p_in or p_out above 0, blocks of 2 or more nodes)"
        )


def random_walks(graph: Graph, config: WalkConfig, threads: int | None = None) -> np.ndarray:
    """Graph -> (N · walks_per_node, length) int32 walks of node indices; -1 fills a walk after a dead end
    (only an isolated node has one: a walk stays on its component). threads: numba's (None: all)."""
    if threads is not None:
        numba.set_num_threads(min(check_int("threads", threads, low=1), numba.config.NUMBA_NUM_THREADS))
    check_walkable(graph)
    W = graph.nodes * config.walks_per_node
    check_memory(
        f"{W:,} walks of {config.length:,} nodes on {graph.name}", W * config.length * WALK_BYTES + W * START_BYTES
    )
    starts = walk_starts(graph.nodes, config)
    inverse = (1.0 / config.p, 1.0 / config.q)
    return walk_kernel(graph.indptr, graph.indices, starts, config.length, *inverse, not config.uniform, config.seed)
