"""The measures against hand-worked cases: matched accuracy, ARI, held-out edges, AUC by cosine."""

import numpy as np
import pytest

from embedlab.errors import InvalidValueError
from embedlab.graphs import community_recovery, link_prediction, load_graph, planted_partition, split_edges
from embedlab.graphs.evaluate import matched_accuracy, node_classification


def test_perfect_clusters_score_one_whatever_their_names():
    labels = np.array([0, 0, 0, 1, 1, 1])
    X = np.array([[1, 0], [1, 0.1], [0.9, 0], [0, 1], [0.1, 1], [0, 0.9]])
    recovery = community_recovery(X, labels)
    assert recovery.ari == pytest.approx(1.0) and recovery.accuracy == 1.0
    assert matched_accuracy(labels, 1 - labels) == 1.0
    many = np.repeat(labels, 10)  # 60 nodes: each half of the split holds both classes
    assert node_classification(np.repeat(X, 10, axis=0), many, seed=1) == 1.0
    assert node_classification(np.zeros((60, 2)), many, seed=1) < 0.7  # nothing to learn from: about chance


def test_held_out_edges_leave_the_graph_and_negatives_are_non_edges():
    graph = load_graph("les-miserables")
    train, positive, negative = split_edges(graph, 0.1, seed=4)
    assert len(positive) == len(negative) == round(0.1 * graph.edges) and train.edges == graph.edges - len(positive)
    edges = {tuple(e) for e in graph.edge_list().tolist()}
    kept = {tuple(e) for e in train.edge_list().tolist()}
    assert all(tuple(e) in edges and tuple(e) not in kept for e in positive.tolist())
    assert all(tuple(e) not in edges and e[0] < e[1] for e in negative.tolist())


def test_link_prediction_auc_is_one_for_separating_scores_and_half_for_ties():
    X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert link_prediction(X, np.array([[0, 1]]), np.array([[0, 2], [1, 2]])) == 1.0
    assert link_prediction(X, np.array([[0, 2]]), np.array([[1, 2]])) == 0.5


def test_planted_blocks_are_found_by_their_own_indicator_rows():
    graph = planted_partition(4, 25, 0.5, 0.02, seed=1)
    X = np.eye(4)[graph.labels] + 0.01 * np.random.default_rng(0).normal(size=(100, 4))
    assert community_recovery(X, graph.labels).accuracy == 1.0


def test_a_graph_without_communities_is_refused():
    with pytest.raises(InvalidValueError, match="no known communities"):
        community_recovery(np.zeros((15, 2)), load_graph("florentine").labels)
    with pytest.raises(InvalidValueError, match="holds out 0"):
        split_edges(load_graph("florentine"), 0.01)


def test_a_report_scores_both_embeddings_the_same_way():
    from embedlab.graphs import WalkConfig, train_config
    from embedlab.graphs.report import measure

    report = measure(load_graph("karate"), WalkConfig(seed=1), train_config(dim=16, seed=1, threads=1))
    assert (report.nodes, report.edges, report.dim) == (34, 78, 16)
    assert report.ours.accuracy > report.spectral.accuracy  # measured 0.94 against 0.68
    assert 0.5 < report.ours.link_auc <= 1.0  # measured 0.64 on 8 held-out ties
    assert report.to_dict()["spectral"]["link_auc"] == report.spectral.link_auc
    florentine = measure(load_graph("florentine"), WalkConfig(seed=1), train_config(dim=4, seed=1, threads=1))
    assert florentine.ours.accuracy is None and 0.0 <= florentine.ours.link_auc <= 1.0


def test_a_complete_graph_has_no_non_edge_to_score_against():
    # every pair of 5 nodes is an edge: the draw of non-edges would never end
    with pytest.raises(InvalidValueError, match="0 node pairs without an edge"):
        split_edges(planted_partition(1, 5, 1.0, 0.0), 0.2)


@pytest.mark.parametrize(
    ("groups", "size", "p_in", "found"), [(1, 1, 1.0, "1 node and no edge"), (1, 3, 1.0, "3 edges")]
)
def test_a_graph_too_small_to_measure_is_refused(groups, size, p_in, found):
    from embedlab.graphs import WalkConfig, train_config
    from embedlab.graphs.report import measure

    with pytest.raises(InvalidValueError, match=found):
        measure(planted_partition(groups, size, p_in, 0.0), WalkConfig(walks_per_node=1), train_config(dim=2))
