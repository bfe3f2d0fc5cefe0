"""Graphs from networkx as CSR adjacencies: the built-ins' sizes and communities, edges as given."""

import networkx as nx
import numpy as np
import pytest

from embedlab.errors import InvalidValueError
from embedlab.graphs import GRAPHS, from_edges, from_networkx, load_graph, planted_partition
from embedlab.graphs.graph import PLANTED_SAMPLERS, _pairs_inside


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


@pytest.mark.parametrize("sampler", PLANTED_SAMPLERS)
@pytest.mark.parametrize(("p_in", "p_out"), [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)])
def test_certain_pairs_give_every_pair_once(sampler, p_in, p_out):
    # cliques, the complete multipartite graph, the complete graph: each pair decoded exactly once
    graph = planted_partition(groups=3, size=7, p_in=p_in, p_out=p_out, sampler=sampler)
    same = graph.labels[:, None] == graph.labels[None, :]
    expected = np.triu((same & (p_in == 1.0)) | (~same & (p_out == 1.0)), k=1)
    assert graph.edge_list().tolist() == np.argwhere(expected).tolist()


GROUPS, SIZE, P_IN, P_OUT, SEEDS = 3, 60, 0.2, 0.02, range(30)
PAIRS_IN, PAIRS_OUT = GROUPS * SIZE * (SIZE - 1) // 2, GROUPS * (GROUPS - 1) // 2 * SIZE * SIZE
DEGREE_MEAN = (SIZE - 1) * P_IN + (GROUPS - 1) * SIZE * P_OUT  # 14.2
DEGREE_VAR = (SIZE - 1) * P_IN * (1 - P_IN) + (GROUPS - 1) * SIZE * P_OUT * (1 - P_OUT)  # 11.79: two binomials


def _planted_statistics(sampler: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Over SEEDS: (seeds,) edges inside blocks, (seeds,) across, (seeds, N) degrees."""
    inside, across, degrees = [], [], []
    for seed in SEEDS:
        graph = planted_partition(GROUPS, SIZE, P_IN, P_OUT, seed=seed, sampler=sampler)
        edges = graph.edge_list()
        same = graph.labels[edges[:, 0]] == graph.labels[edges[:, 1]]
        inside.append(same.sum())
        across.append((~same).sum())
        degrees.append(graph.degrees)
    return np.array(inside), np.array(across), np.array(degrees)


def test_the_geometric_sampler_draws_networkx_distribution():
    # the exact expectations (binomial counts), and networkx's own draws, as oracles: 4 standard errors
    ours, theirs = _planted_statistics("geometric"), _planted_statistics("networkx")
    n = len(SEEDS)
    for count, pairs, p in ((0, PAIRS_IN, P_IN), (1, PAIRS_OUT, P_OUT)):
        error = (pairs * p * (1 - p) / n) ** 0.5  # of a mean of n binomial counts
        assert abs(ours[count].mean() - pairs * p) < 4 * error
        assert abs(theirs[count].mean() - pairs * p) < 4 * error
        assert abs(ours[count].mean() - theirs[count].mean()) < 4 * 2**0.5 * error
    for degrees in (ours[2], theirs[2]):
        assert abs(degrees.mean() - DEGREE_MEAN) < 0.2 and abs(degrees.var() - DEGREE_VAR) < 1.0
    # no node is favoured: a pair decoded to the wrong row would raise some positions' degrees
    by_position = ours[2].reshape(n * GROUPS, SIZE).mean(axis=0)  # (SIZE,) mean degree of each place in a block
    assert np.abs(by_position - DEGREE_MEAN).max() < 5 * (DEGREE_VAR / (n * GROUPS)) ** 0.5


def test_pair_indices_decode_at_a_million_node_block_size():
    # every row's first and last pair of a 100,000-node block (the 1M-node graph's): the float sqrt is exact
    size = 100_000
    i = np.arange(size - 1)
    first = i * (2 * size - 1 - i) // 2
    k = np.concatenate([first, first + (size - 2 - i)])  # pairs (i, i+1) and (i, size-1)
    a, b = _pairs_inside(k, size)
    assert a.tolist() == np.concatenate([i, i]).tolist()
    assert b.tolist() == np.concatenate([i + 1, np.full(size - 1, size - 1)]).tolist()


def test_the_geometric_sampler_is_seeded():
    a, b = (planted_partition(4, 50, 0.1, 0.01, seed=3, sampler="geometric") for _ in range(2))
    c = planted_partition(4, 50, 0.1, 0.01, seed=4, sampler="geometric")
    assert np.array_equal(a.indices, b.indices) and not np.array_equal(a.indices, c.indices)


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
    with pytest.raises(InvalidValueError, match="geometric"):
        planted_partition(2, 10, 0.5, 0.1, sampler="fast")


def test_a_graph_without_edges_is_built_with_an_empty_adjacency():
    for graph in (from_edges("none", ["a", "b", "c"], np.empty((0, 2))), planted_partition(2, 3, 0.0, 0.0)):
        assert graph.edges == 0 and graph.indptr.tolist() == [0] * (graph.nodes + 1)
    assert planted_partition(1, 1, 1.0, 0.0).nodes == 1


def test_a_planted_graph_larger_than_memory_is_refused_before_drawing():
    # 10^5 blocks of 10^5 nodes at p_out 0.1: ~5·10^18 expected edges, far past any machine
    with pytest.raises(InvalidValueError, match=r"100,000 blocks of 100,000 nodes: needs at least .* available"):
        planted_partition(100_000, 100_000, 0.5, 0.1)
