"""How well node vectors know their graph: community recovery, node classification, link prediction,
and the spectral baseline measured the same way.

    X = node_rows(vectors, graph)                          # (N, d) in the graph's node order
    community_recovery(X, graph.labels, seed=1)            # Recovery(ari=..., accuracy=...): k-means, k = communities
    node_classification(X, graph.labels, seed=1)           # logistic regression, half the nodes to train on
    train_graph, pos, neg = split_edges(graph, 0.1, seed=1)  # 10% of edges held out, as many non-edges
    link_prediction(node_rows(embed(train_graph)), pos, neg)  # ROC AUC of cosine(u, v)
    spectral_embedding(graph, dim=16, seed=1)              # (N, 16) Laplacian eigenmaps (scikit-learn)

Every measure takes arrays and returns numbers; scikit-learn supplies k-means, the regression, the
ROC AUC and the spectral embedding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from embedlab.errors import InvalidValueError, check_float, check_int
from embedlab.graphs.graph import Graph, from_edges
from embedlab.vectors import Vectors

COSINE_EPS = 1e-12  # a zero row (an isolated node's spectral row) scores 0, not NaN


@dataclass(frozen=True)
class Recovery:
    """Communities found by k-means against the known ones."""

    ari: float  # adjusted Rand index: 1 identical partitions, about 0 for chance
    accuracy: float  # share of nodes in the right community under the best matching of clusters to communities


def node_rows(vectors: Vectors, graph: Graph) -> np.ndarray:
    """(N, d) float32 each node's row in the graph's node order (a node the table lacks gets zeros)."""
    rows = np.zeros((graph.nodes, vectors.vectors.shape[1]), dtype=np.float32)
    index = vectors.key_to_index
    for v, key in enumerate(graph.keys):
        if key in index:
            rows[v] = vectors.vectors[index[key]]
    return rows


def _labels(labels: np.ndarray | None, N: int) -> np.ndarray:
    if labels is None:
        raise InvalidValueError("this graph has no known communities: use karate or a planted partition")
    labels = np.asarray(labels)
    if labels.shape != (N,):
        raise InvalidValueError(f"labels must have one entry per node ({N}); got shape {labels.shape}")
    return labels


def matched_accuracy(truth: np.ndarray, found: np.ndarray) -> float:
    """Share of nodes whose cluster, matched one-to-one to communities for the most agreement, is theirs.

    >>> matched_accuracy(np.array([0, 0, 1, 1]), np.array([1, 1, 0, 1]))
    0.75
    """
    from scipy.optimize import linear_sum_assignment

    table = np.zeros((truth.max() + 1, found.max() + 1), dtype=np.int64)
    np.add.at(table, (truth, found), 1)
    rows, cols = linear_sum_assignment(table, maximize=True)
    return float(table[rows, cols].sum() / len(truth))


def community_recovery(X: np.ndarray, labels: np.ndarray | None, seed: int = 1) -> Recovery:
    """(N, d) rows, (N,) known communities -> Recovery of k-means (k = number of communities) on the unit rows."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    labels = _labels(labels, len(X))
    k = int(labels.max()) + 1
    unit = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), COSINE_EPS)
    found = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(unit)
    return Recovery(float(adjusted_rand_score(labels, found)), matched_accuracy(labels, found))


def node_classification(X: np.ndarray, labels: np.ndarray | None, train_share: float = 0.5, seed: int = 1) -> float:
    """(N, d) rows, (N,) communities -> accuracy of a logistic regression (on standardised columns) trained
    on a random `train_share` of the nodes, on the rest."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    labels = _labels(labels, len(X))
    check_float("train_share", train_share, low=0.0, high=1.0)
    order = np.random.default_rng(seed).permutation(len(X))
    cut = int(round(train_share * len(X)))
    if cut == 0 or cut == len(X):
        raise InvalidValueError(f"train_share {train_share} leaves no node to train on or to test on")
    train, test = order[:cut], order[cut:]
    # standardised first: eigenvector entries are ~1/sqrt(N), which the default regularisation would flatten
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X[train], labels[train])
    return float((model.predict(X[test]) == labels[test]).mean())


def split_edges(graph: Graph, fraction: float = 0.1, seed: int = 1) -> tuple[Graph, np.ndarray, np.ndarray]:
    """Hold out a random `fraction` of the edges -> (the graph without them, (H, 2) held-out edges,
    (H, 2) node pairs drawn uniformly that are not edges of the whole graph)."""
    check_float("fraction", fraction, low=0.0, high=1.0)
    check_int("seed", seed, low=0)
    edges = graph.edge_list()
    held = int(round(fraction * len(edges)))
    if held == 0 or held == len(edges):
        raise InvalidValueError(f"fraction {fraction} of {len(edges)} edges holds out {held}: none or all")
    N = graph.nodes
    non_edges = N * (N - 1) // 2 - len(edges)
    if non_edges < held:  # the draw below would never end
        raise InvalidValueError(
            f"graph {graph.name} has {non_edges:,} node pairs without an edge; link prediction scores {held:,} "
            f"held-out edges against as many of them (a complete graph has none to score against)"
        )
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(edges))
    kept, positive = edges[order[held:]], edges[order[:held]]
    existing = set((edges[:, 0] * N + edges[:, 1]).tolist())
    negative: list[tuple[int, int]] = []
    while len(negative) < held:
        a, b = rng.integers(0, N, size=2)
        a, b = min(a, b), max(a, b)
        if a != b and a * N + b not in existing:
            negative.append((int(a), int(b)))
    train = from_edges(graph.name, graph.keys, kept, graph.labels, graph.label_names)
    return train, positive, np.array(negative, dtype=np.int64)


def link_prediction(X: np.ndarray, positive: np.ndarray, negative: np.ndarray) -> float:
    """(N, d) rows, (H, 2) true pairs, (H', 2) false pairs -> ROC AUC of cosine(row u, row v)."""
    from sklearn.metrics import roc_auc_score

    unit = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), COSINE_EPS)
    pairs = np.concatenate([positive, negative])
    scores = (unit[pairs[:, 0]] * unit[pairs[:, 1]]).sum(axis=1)
    truth = np.concatenate([np.ones(len(positive)), np.zeros(len(negative))])
    return float(roc_auc_score(truth, scores))


def spectral_embedding(graph: Graph, dim: int, seed: int = 1) -> np.ndarray:
    """Graph -> (N, dim) float64 Laplacian eigenmaps: the eigenvectors of the normalised Laplacian with the
    smallest eigenvalues after the first (scikit-learn's SpectralEmbedding on the adjacency)."""
    import warnings

    from sklearn.manifold import SpectralEmbedding

    check_int("dim", dim, low=1, high=graph.nodes - 2)
    model = SpectralEmbedding(n_components=dim, affinity="precomputed", random_state=seed)
    with warnings.catch_warnings():  # a graph with held-out edges may fall apart: the embedding is still defined
        warnings.filterwarnings("ignore", message="Graph is not fully connected")
        return model.fit_transform(graph.adjacency())
