"""Graph: an undirected graph as a CSR adjacency whose nodes carry keys (and, when known, communities).

    graph = load_graph("karate")                     # Zachary's karate club: 34 nodes, 78 edges, 2 clubs
    graph = planted_partition(groups=10, size=1000, p_in=0.01, p_out=0.0005, seed=1)   # 10,000 nodes, known blocks
    graph.indptr, graph.indices                       # (N+1,) int64, (2E,) int32: node v's neighbours, sorted
    graph.keys[v], graph.labels                       # node v's id as a string; (N,) int64 communities or None

The built-in graphs ship with networkx (a dependency of torch), so nothing is downloaded. Node keys
are the networkx node ids as strings, the keys of the trained table (`embed.embed_graph`), so a node
table is queried like a word table: `vectors.most_similar("33")`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from embedlab.errors import InvalidValueError, check_choice, check_float, check_int
from embedlab.sizing.memory import check_memory

# name -> (networkx generator, node attribute holding a known community or None, what it is)
GRAPHS = {
    "karate": (
        "karate_club_graph",
        "club",
        "Zachary's karate club: 34 members, 78 ties, split into Mr. Hi's and the Officer's clubs",
    ),
    "les-miserables": ("les_miserables_graph", None, "Les Misérables: 77 characters, 254 co-appearances (Knuth)"),
    "florentine": ("florentine_families_graph", None, "Florentine families: 15 families, 20 marriage ties (Padgett)"),
}


@dataclass(frozen=True, eq=False)
class Graph:
    """N nodes, E undirected edges (no self-loops): node v's neighbours are indices[indptr[v]:indptr[v+1]], sorted."""

    name: str
    keys: list[str]  # node -> its id as a string
    indptr: np.ndarray  # (N+1,) int64
    indices: np.ndarray  # (2E,) int32, each edge stored both ways
    labels: np.ndarray | None = None  # (N,) int64 community of each node, when the graph knows one
    label_names: tuple[str, ...] = ()  # community -> its name ("Mr. Hi", "Officer"), when it has one

    @property
    def nodes(self) -> int:
        return len(self.keys)

    @property
    def edges(self) -> int:
        return len(self.indices) // 2

    @property
    def degrees(self) -> np.ndarray:
        """(N,) int64."""
        return np.diff(self.indptr)

    def edge_list(self) -> np.ndarray:
        """(E, 2) int64 each edge once, smaller node first, sorted."""
        src = np.repeat(np.arange(self.nodes), self.degrees)
        once = src < self.indices
        return np.stack([src[once], self.indices[once].astype(np.int64)], axis=1)

    def adjacency(self):
        """(N, N) scipy.sparse CSR float64 0/1 adjacency."""
        import scipy.sparse as sp

        data = np.ones(len(self.indices))
        return sp.csr_matrix((data, self.indices, self.indptr), shape=(self.nodes, self.nodes))


def from_edges(name: str, keys: list[str], edges: np.ndarray, labels=None, label_names=()) -> Graph:
    """(E, 2) int node pairs -> Graph on len(keys) nodes (duplicates and self-loops dropped).

    >>> g = from_edges("path", ["a", "b", "c"], np.array([[0, 1], [2, 1], [1, 0]]))
    >>> g.indptr.tolist(), g.indices.tolist()
    ([0, 1, 3, 4], [1, 0, 2, 1])
    """
    N = len(keys)
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if edges.size and (edges.min() < 0 or edges.max() >= N):
        bad = edges[(edges < 0) | (edges >= N)][0]
        raise InvalidValueError(f"edge endpoint {bad} is outside the {N} nodes (0..{N - 1})")
    edges = edges[edges[:, 0] != edges[:, 1]]
    # each edge both ways as one int64 source·N + target, sorted (by source, then target) and deduplicated:
    # 1.5 s on 12M pairs where np.unique takes 16 s (its hash pass) and np.unique(axis=0) 9 s
    both = np.sort(np.concatenate([edges[:, 0] * N + edges[:, 1], edges[:, 1] * N + edges[:, 0]]))
    both = both[np.concatenate([both[:1] == both[:1], both[1:] != both[:-1]])]  # (2E,); no edge: empty
    indptr = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(np.bincount(both // N, minlength=N), out=indptr[1:])
    labels = None if labels is None else np.asarray(labels, dtype=np.int64)
    return Graph(name, list(keys), indptr, (both % N).astype(np.int32), labels, tuple(label_names))


def from_networkx(graph, name: str = "graph", community: str | None = None) -> Graph:
    """A networkx graph (directions dropped) -> Graph; `community`: the node attribute naming each node's group."""
    nodes = list(graph.nodes)
    index = {node: i for i, node in enumerate(nodes)}
    edges = np.array([(index[a], index[b]) for a, b in graph.edges], dtype=np.int64).reshape(-1, 2)
    labels, names = None, ()
    if community is not None:
        values = [graph.nodes[node][community] for node in nodes]
        names = tuple(dict.fromkeys(values))  # in order of first appearance
        labels = [names.index(value) for value in values]
    return from_edges(name, [str(node) for node in nodes], edges, labels, names)


def load_graph(name: str) -> Graph:
    """A built-in graph by name (GRAPHS): the networkx graph as a Graph, with its communities where known."""
    import networkx as nx

    check_choice("graph", name, tuple(GRAPHS))
    generator, community, _ = GRAPHS[name]
    return from_networkx(getattr(nx, generator)(), name, community)


PLANTED_SAMPLERS = ("networkx", "geometric")  # the same distribution; "geometric" in O(N + E) numpy, for 100K+ nodes


def planted_partition(
    groups: int, size: int, p_in: float, p_out: float, seed: int = 1, sampler: str = "networkx"
) -> Graph:
    """`groups` blocks of `size` nodes, an edge inside a block with probability p_in, across blocks with
    p_out, every pair independently. Node v is in block v // size (its label).

    sampler "networkx": networkx's planted_partition_graph, which draws a random number for every pair
    inside a block (O(groups · size²): 0.5 s at 10K nodes, 34 s at 100K, about an hour at 1M).
    "geometric": `_bernoulli_positions` for each block pair, the same distribution (not the same draws
    for a seed) in O(N + E): seconds at 1M nodes.
    """
    check_int("groups", groups, low=1)
    check_int("size", size, low=1)
    check_float("p_in", p_in, low=0.0, high=1.0)
    check_float("p_out", p_out, low=0.0, high=1.0)
    check_int("seed", seed, low=0)
    check_choice("sampler", sampler, PLANTED_SAMPLERS)
    what = f"a planted partition of {groups:,} blocks of {size:,} nodes"
    check_memory(what, planted_bytes(groups, size, p_in, p_out))  # before networkx or numpy draws a pair
    if sampler == "networkx":
        import networkx as nx

        edges = np.array(nx.planted_partition_graph(groups, size, p_in, p_out, seed=seed).edges, dtype=np.int64)
    else:
        edges = _planted_edges(groups, size, p_in, p_out, np.random.default_rng(seed))
    name = f"planted-{groups}x{size}"
    labels = np.arange(groups * size) // size
    return from_edges(
        name, [str(v) for v in range(groups * size)], edges, labels, tuple(f"block {b}" for b in range(groups))
    )


# bytes a planted graph needs at least, per expected edge: the (E, 2) int64 draw, the (2E,) int64 pairs both
# ways that from_edges sorts, and the (2E,) int32 CSR indices; per node: indptr and label (int64) and the key
# (a str object, 49 bytes at least)
_BYTES_PER_EDGE, _BYTES_PER_NODE = 2 * 8 + 2 * 8 + 2 * 4, 8 + 8 + 49


def planted_bytes(groups: int, size: int, p_in: float, p_out: float) -> int:
    """A lower bound of the bytes planted_partition allocates, from its expected number of edges.

    >>> planted_bytes(2, 3, 1.0, 0.0)   # 6 edges (3 a block) × 40 + 6 nodes × 65
    630
    """
    inside = groups * size * (size - 1) / 2 * p_in
    across = groups * (groups - 1) / 2 * size * size * p_out
    return int((inside + across) * _BYTES_PER_EDGE) + groups * size * _BYTES_PER_NODE


def _bernoulli_positions(count: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """Each of the positions 0..count-1 kept with probability p, independently -> (K,) int64 sorted.

    The gaps between kept positions are geometric, so they are drawn directly (networkx's sparse
    method for pairs across blocks, vectorised): O(K) draws instead of `count`.
    """
    if p == 0.0 or count == 0:
        return np.empty(0, dtype=np.int64)
    parts, last = [], -1
    while last < count - 1:
        expected = (count - 1 - last) * p
        gaps = rng.geometric(p, size=int(expected + 6 * expected**0.5 + 16))  # >= 1 trials to the next kept
        positions = last + np.cumsum(gaps)
        parts.append(positions[positions < count])
        last = int(positions[-1])
    return np.concatenate(parts)


def _pairs_inside(k: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(K,) indices into the size·(size-1)/2 pairs i < j, in order (0,1), (0,2), .., (1,2), .. -> (i, j).

    >>> [a.tolist() for a in _pairs_inside(np.arange(6), 4)]
    [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]
    """
    n = 2 * size - 1

    def start(i):  # index of the pair (i, i+1)
        return i * (n - i) // 2

    i = np.floor((n - np.sqrt(np.maximum(n * n - 8.0 * k, 0.0))) / 2).astype(np.int64)
    i = np.clip(i, 0, size - 2)
    for _ in range(2):  # subtle: exact in float64 up to ~10^7 nodes a block; past that rounding may put i a row off
        i -= start(i) > k
        i += start(i + 1) <= k
    return i, k - start(i) + i + 1


def _planted_edges(groups: int, size: int, p_in: float, p_out: float, rng: np.random.Generator) -> np.ndarray:
    """(E, 2) int64 edges of a planted partition, block pair by block pair."""
    parts = []
    for a in range(groups):
        i, j = _pairs_inside(_bernoulli_positions(size * (size - 1) // 2, p_in, rng), size)
        parts.append(np.stack([a * size + i, a * size + j], axis=1))
        for b in range(a + 1, groups):  # every pair across blocks a < b: size · size of them
            k = _bernoulli_positions(size * size, p_out, rng)
            parts.append(np.stack([a * size + k // size, b * size + k % size], axis=1))
    return np.concatenate(parts).reshape(-1, 2)
