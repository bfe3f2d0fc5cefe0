"""Graph nodes: Zachary's karate club embedded by random walks and skip-gram, watched as it learns.

    answer = karate_passes(p=1.0, q=1.0, seed=1)
    [s.passes for s in answer.snapshots]        # [0, 1, 2, 4, 8, 16]: one run of 16 passes, seen 6 times
    answer.snapshots[-1].accuracy               # k-means (k = 2) against the real clubs, after 16 passes
    [b.dim for b in answer.spectral]            # [16, 2]: the spectral baseline at the same width and at 2

One real run (embedlab.graphs: walks, then embedlab's skip-gram over them, seeded), snapshotted by
graphs.embed.train_walks before its first pass and after passes 1, 2, 4, 8 and 16; each snapshot's
node rows are put on a 2-D map (PCA) and scored as `embedlab graph --evaluate` scores a table
(graphs.evaluate.community_recovery). The maps are turned (vectors.projection.project_frame) to line up
with the snapshot after them, so the factions move only as the rows do; the last keeps PCA's own signs.

Karate is 34 nodes: one run with its scores takes tens of milliseconds (a k-means per snapshot),
so the route is marked heavy and each setting is made once per app.
"""

from __future__ import annotations

from dataclasses import dataclass

from embedlab.errors import check_choice, check_int
from embedlab.files import IdMatrix, IdVector, Matrix
from embedlab.graphs import WalkConfig, community_recovery, load_graph, spectral_embedding, train_config, train_walks
from embedlab.graphs.evaluate import node_rows
from embedlab.graphs.walks import random_walks
from embedlab.vectors import Vectors
from embedlab.vectors.projection import project_frame

GRAPH = "karate"
RATES = (0.25, 0.5, 1.0, 2.0, 4.0)  # p and q the page offers: node2vec's grid (0.25 .. 4), 1 = DeepWalk
DIM = 16  # docs/graphs.md's karate width
LENGTH = 80  # nodes per walk, node2vec's l
PASSES = 16  # passes over the walks in the one run
SNAPSHOTS = (0, 1, 2, 4, 8, 16)  # passes after which the rows are drawn (0: the seeded init)
MAX_WALKS = 10  # walks per node: 10 is DeepWalk's and node2vec's; 1 (the page's default) shows the factions form
MAX_SEED = 99  # every setting is kept once made: the seeds are few
SPECTRAL_DIMS = (DIM, 2)  # the baseline at the same width, and at 2 (the Fiedler vector: its best on karate)
CLUB_COLOURS = ["#e8871e", "#2f6fde"]  # the page's colour for club 0 (Mr. Hi) and club 1 (the Officer)
LIMITS = {
    "p": list(RATES),
    "q": list(RATES),
    "walks": [1, MAX_WALKS],
    "seed": [0, MAX_SEED],
    "colours": CLUB_COLOURS,
}


@dataclass(frozen=True)
class Snapshot:
    """The node table after some passes: its map and its scores."""

    passes: int  # passes over the walks done (0: the seeded init, before any training)
    points: Matrix  # (N, 2) PCA coordinates of the node rows, in the graph's node order
    variance: tuple[float, float]  # each map axis's share of the rows' variance
    ari: float  # k-means (k = 2) on the unit rows against the clubs: adjusted Rand index
    accuracy: float  # the same k-means, clusters matched to clubs: share of members placed right


@dataclass(frozen=True)
class Baseline:
    """The spectral baseline (Laplacian eigenmaps), scored the same way."""

    dim: int  # eigenvectors kept
    ari: float  # k-means against the clubs: adjusted Rand index
    accuracy: float  # the same, clusters matched to clubs


@dataclass(frozen=True)
class NodePasses:
    """Karate's node table at several points of one seeded run, beside the spectral baseline."""

    graph: str  # "karate"
    keys: tuple[str, ...]  # the node ids, in the graph's order (the rows of every snapshot's points)
    clubs: IdVector  # (N,) each member's real club, an index into club_names
    club_names: tuple[str, ...]  # ("Mr. Hi", "Officer")
    edges: IdMatrix  # (E, 2) the ties, as node indices
    p: float  # return parameter of the walks
    q: float  # in-out parameter of the walks
    walks: int  # walks started at each node
    length: int  # nodes per walk
    dim: int  # width of the node rows
    passes: int  # passes over the walks in the run
    seed: int  # seeds the walks, the table's init, k-means and the baseline
    snapshots: tuple[Snapshot, ...]  # in order of passes
    spectral: tuple[Baseline, ...]  # at the same width, and at 2


def karate_passes(p: float = 1.0, q: float = 1.0, seed: int = 1, walks: int = 1) -> NodePasses:
    """One run on karate (walks × 34 walks of 80 nodes, skip-gram at width 16, 16 passes), snapshotted."""
    check_choice("p", p, RATES)
    check_choice("q", q, RATES)
    seed = check_int("seed", seed, low=0, high=MAX_SEED)
    walks = check_int("walks", walks, low=1, high=MAX_WALKS)
    graph = load_graph(GRAPH)
    tables: dict[int, Vectors] = {}

    def keep(passes: int, table: Vectors) -> None:
        if passes in SNAPSHOTS:
            tables[passes] = table

    walked = random_walks(graph, WalkConfig(walks_per_node=walks, length=LENGTH, p=p, q=q, seed=seed), threads=1)
    train_walks(walked, graph.keys, train_config(dim=DIM, epochs=PASSES, seed=seed, threads=1), on_pass=keep)
    snapshots: list[Snapshot] = []
    after = None  # the map after this one, which it is turned to line up with
    for passes in reversed(SNAPSHOTS):
        rows = node_rows(tables[passes], graph)  # (N, DIM)
        points, variance = project_frame(rows, after)
        found = community_recovery(rows, graph.labels, seed=seed)
        snapshots.append(Snapshot(passes, points.astype("float32"), variance, found.ari, found.accuracy))
        after = points
    spectral = []
    for dim in SPECTRAL_DIMS:
        found = community_recovery(spectral_embedding(graph, dim, seed=seed), graph.labels, seed=seed)
        spectral.append(Baseline(dim, found.ari, found.accuracy))
    return NodePasses(
        graph.name,
        tuple(graph.keys),
        graph.labels,
        tuple(graph.label_names),
        graph.edge_list(),
        p,
        q,
        walks,
        LENGTH,
        DIM,
        PASSES,
        seed,
        tuple(reversed(snapshots)),
        tuple(spectral),
    )
