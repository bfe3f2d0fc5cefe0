"""One graph measured: node vectors and the spectral baseline at the same width, side by side.

    report = measure(load_graph("karate"), WalkConfig(), train_config(dim=16))
    report.ours.accuracy, report.spectral.accuracy       # k-means against the known communities
    report.ours.link_auc, report.spectral.link_auc       # 10% of edges held out, cosine scores

Link prediction trains a second table (and a second spectral embedding) on the graph without the
held-out edges, so the two figures never see the edges they are scored on.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from embedlab.errors import InvalidValueError
from embedlab.graphs.embed import train_walks
from embedlab.graphs.evaluate import (
    community_recovery,
    link_prediction,
    node_classification,
    node_rows,
    spectral_embedding,
    split_edges,
)
from embedlab.graphs.graph import Graph
from embedlab.graphs.walks import WalkConfig, check_walkable, random_walks
from embedlab.train.config import RunConfig

HELD_OUT = 0.1  # share of edges hidden for link prediction


@dataclass(frozen=True)
class Scores:
    """One embedding's figures (None where the graph knows no communities)."""

    ari: float | None  # k-means against the communities: adjusted Rand index
    accuracy: float | None  # k-means, clusters matched to communities
    classification: float | None  # logistic regression on half the nodes, accuracy on the other half
    link_auc: float  # ROC AUC of cosine on held-out edges against as many non-edges
    seconds: float  # to embed the whole graph (walks and training, or the eigenvectors)


@dataclass(frozen=True)
class GraphReport:
    graph: str
    nodes: int
    edges: int
    dim: int
    ours: Scores  # random walks + embedlab's skip-gram
    spectral: Scores  # Laplacian eigenmaps at the same dim, or at most N - 2 (a graph of N nodes has no more)
    spectral_dim: int

    def to_dict(self) -> dict:
        return asdict(self)


def _scores(X: np.ndarray, X_split: np.ndarray, graph: Graph, held, seconds: float, seed: int) -> Scores:
    community = None if graph.labels is None else community_recovery(X, graph.labels, seed=seed)
    return Scores(
        ari=None if community is None else community.ari,
        accuracy=None if community is None else community.accuracy,
        classification=None if graph.labels is None else node_classification(X, graph.labels, seed=seed),
        link_auc=link_prediction(X_split, *held),
        seconds=seconds,
    )


MIN_EDGES = int(np.ceil(0.5 / HELD_OUT))  # the fewest edges of which HELD_OUT rounds to one held out
MIN_NODES = 3  # the spectral baseline's width is at most N - 2


def check_measurable(graph: Graph) -> None:
    """Raise InvalidValueError unless `graph` is large enough to measure: walkable, with MIN_EDGES edges
    (link prediction holds out HELD_OUT of them, at least one) and MIN_NODES nodes (spectral's width)."""
    check_walkable(graph)
    if graph.edges < MIN_EDGES or graph.nodes < MIN_NODES:
        raise InvalidValueError(
            f"graph {graph.name} has {graph.nodes:,} nodes and {graph.edges:,} edges: measuring it needs at least "
            f"{MIN_NODES} nodes and {MIN_EDGES} edges ({HELD_OUT:.0%} of them are held out for link prediction)"
        )


def measure(graph: Graph, walks: WalkConfig, config: RunConfig) -> GraphReport:
    """Embed `graph` both ways at config.dim and score both the same way (seeded by config.seed); the
    spectral width is capped at N - 2, so a small graph (karate: 34 nodes) takes the default width too."""
    check_measurable(graph)
    seed, spectral_dim = config.seed, min(config.dim, graph.nodes - 2)
    split, *held = split_edges(graph, HELD_OUT, seed=seed)

    start = time.perf_counter()
    ours = node_rows(train_walks(random_walks(graph, walks, config.threads), graph.keys, config), graph)
    ours_seconds = time.perf_counter() - start
    ours_split = node_rows(train_walks(random_walks(split, walks, config.threads), split.keys, config), split)

    start = time.perf_counter()
    spectral = spectral_embedding(graph, spectral_dim, seed=seed)
    spectral_seconds = time.perf_counter() - start
    spectral_split = spectral_embedding(split, spectral_dim, seed=seed)

    return GraphReport(
        graph.name, graph.nodes, graph.edges, config.dim,
        _scores(ours, ours_split, graph, held, ours_seconds, seed),
        _scores(spectral, spectral_split, graph, held, spectral_seconds, seed), spectral_dim,
    )  # fmt: skip
