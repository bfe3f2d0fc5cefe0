"""Graphs from networkx as CSR adjacencies: the built-ins' sizes and communities, edges as given."""

import networkx as nx
import numpy as np
import pytest

from embedlab.errors import InvalidValueError
from embedlab.graphs import GRAPHS, from_edges, from_networkx, load_graph, planted_partition


@pytest.mark.parametrize("name", GRAPHS)
def test_built_in_graphs_hold_networkx_edges(name):
    reference = getattr(nx, GRAPHS[name][0])()
    graph = load_graph(name)
    assert graph.nodes == reference.number_of_nodes() and graph.edges == reference.number_of_edges()
    for a, b in reference.edges:  # every edge, both ways, under its node keys
        i, j = graph.keys.index(str(a)), graph.keys.index(str(b))
        assert j in graph.indices[graph.indptr[i] : graph.indptr[i + 1]]
        assert i in graph.indices[graph.indptr[j] : graph.indptr[j + 1]]
    rows = [graph.indices[graph.indptr[v] : graph.indptr[v + 1]] for v in range(graph.nodes)]
    assert all((np.diff(row) > 0).all() for row in rows)  # sorted, no duplicates: the walks' binary search needs it


def test_karate_has_zacharys_sizes_and_two_clubs():
    graph = load_graph("karate")
    assert (graph.nodes, graph.edges) == (34, 78)
    assert graph.label_names == ("Mr. Hi", "Officer")
    assert np.bincount(graph.labels).tolist() == [17, 17]
    assert graph.labels[0] == 0 and graph.labels[33] == 1  # Mr. Hi is node 0, the Officer node 33
    assert graph.degrees[33] == 17 and graph.degrees[0] == 16


def test_planted_partition_labels_are_the_blocks():
    graph = planted_partition(groups=3, size=50, p_in=0.3, p_out=0.01, seed=2)
    assert graph.nodes == 150 and np.bincount(graph.labels).tolist() == [50, 50, 50]
    edges = graph.edge_list()
    inside = (graph.labels[edges[:, 0]] == graph.labels[edges[:, 1]]).mean()
    expected = 3 * 1225 * 0.3 / (3 * 1225 * 0.3 + 3 * 2500 * 0.01)  # 1102.5 inside, 75 across expected
    assert abs(inside - expected) < 0.03


def test_edges_become_a_symmetric_csr_without_loops_or_duplicates():
    graph = from_edges("g", list("abcd"), np.array([[0, 1], [1, 0], [2, 2], [3, 1]]))
    assert graph.edges == 2 and graph.edge_list().tolist() == [[0, 1], [1, 3]]
    assert graph.degrees.tolist() == [1, 2, 0, 1]
    assert (graph.adjacency() != graph.adjacency().T).nnz == 0


def test_from_networkx_reads_a_community_attribute():
    g = nx.Graph([("x", "y"), ("y", "z")])
    nx.set_node_attributes(g, {"x": "red", "y": "red", "z": "blue"}, "colour")
    graph = from_networkx(g, "tiny", community="colour")
    assert graph.keys == ["x", "y", "z"] and graph.labels.tolist() == [0, 0, 1] and graph.label_names == ("red", "blue")


def test_bad_input_names_the_value():
    with pytest.raises(InvalidValueError, match="karate"):
        load_graph("karat")
    with pytest.raises(InvalidValueError, match="edge endpoint 5 is outside the 3 nodes"):
        from_edges("g", ["a", "b", "c"], np.array([[0, 5]]))
    with pytest.raises(InvalidValueError, match="p_in"):
        planted_partition(2, 10, 1.5, 0.1)
