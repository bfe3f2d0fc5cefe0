"""Random walks against the exact transition probabilities: 1/degree for DeepWalk, node2vec's p/q weights."""

import numpy as np
import pytest

from embedlab.errors import InvalidValueError
from embedlab.graphs import WalkConfig, from_edges, load_graph, random_walks
from embedlab.graphs.walks import walk_kernel

DRAWS = 40_000
SIGMAS = 5  # a frequency more than 5 binomial standard deviations off its probability fails (chance ~1e-6)


def _within(freq: np.ndarray, prob: np.ndarray, n: int) -> bool:
    return bool((np.abs(freq - prob) <= SIGMAS * np.sqrt(prob * (1 - prob) / n) + 1e-12).all())


def test_first_steps_are_uniform_over_neighbours():
    graph = load_graph("karate")
    starts = np.full(DRAWS, 33, dtype=np.int64)  # the Officer: 17 neighbours
    walks = walk_kernel(graph.indptr, graph.indices, starts, 2, 1.0, 1.0, False, 7)
    neighbours = graph.indices[graph.indptr[33] : graph.indptr[34]]
    freq = np.bincount(walks[:, 1], minlength=graph.nodes)[neighbours] / DRAWS
    assert freq.sum() == 1.0 and _within(freq, np.full(17, 1 / 17), DRAWS)


@pytest.mark.parametrize(("p", "q"), [(0.5, 2.0), (4.0, 0.25), (1.0, 1.0)])
def test_second_steps_follow_node2vecs_weights(p, q):
    # 0 - 1, 0 - 2, 1 - 2, 1 - 3, 1 - 4: a walk 0 -> 1 returns to 0 (weight 1/p), stays near 0 at 2
    # (weight 1, 2 neighbours 0) or moves out to 3 or 4 (weight 1/q each)
    graph = from_edges("hand", list("01234"), np.array([[0, 1], [0, 2], [1, 2], [1, 3], [1, 4]]))
    walks = walk_kernel(graph.indptr, graph.indices, np.zeros(2 * DRAWS, dtype=np.int64), 3, 1 / p, 1 / q, True, 3)
    via_1 = walks[walks[:, 1] == 1]
    weights = np.array([1 / p, 1.0, 1 / q, 1 / q])  # next node 0, 2, 3, 4
    freq = np.bincount(via_1[:, 2], minlength=5)[[0, 2, 3, 4]] / len(via_1)
    assert _within(freq, weights / weights.sum(), len(via_1))


def test_walks_step_along_edges_and_stop_at_isolated_nodes():
    graph = from_edges("g", list("abcde"), np.array([[0, 1], [1, 2], [2, 3], [3, 0]]))  # a square and lone e
    walks = random_walks(graph, WalkConfig(walks_per_node=3, length=6, p=0.5, q=2.0))
    assert walks.shape == (15, 6) and sorted(walks[:, 0].tolist()) == sorted(list(range(5)) * 3)
    lone = walks[walks[:, 0] == 4]
    assert (lone[:, 1:] == -1).all()
    edges = {tuple(e) for e in graph.edge_list().tolist()}
    for walk in walks[walks[:, 0] != 4]:
        assert all((min(a, b), max(a, b)) in edges for a, b in zip(walk[:-1], walk[1:], strict=True))


def test_a_seed_gives_the_same_walks_at_any_thread_count():
    graph = load_graph("les-miserables")
    config = WalkConfig(walks_per_node=2, length=20, p=0.25, q=4.0, seed=5)
    one, two = random_walks(graph, config, threads=1), random_walks(graph, config, threads=2)
    assert np.array_equal(one, two)
    assert not np.array_equal(one, random_walks(graph, WalkConfig(walks_per_node=2, length=20, p=0.25, q=4.0, seed=6)))


def test_bad_walk_settings_name_the_value():
    with pytest.raises(InvalidValueError, match="p and q must be > 0"):
        WalkConfig(p=0.0)
    with pytest.raises(InvalidValueError, match="length"):
        WalkConfig(length=0)


@pytest.mark.parametrize("graph", [from_edges("lonely", ["a"], np.empty((0, 2))), from_edges("dust", list("abc"), [])])
def test_a_graph_without_edges_is_refused_before_walking(graph):
    with pytest.raises(InvalidValueError, match=rf"graph {graph.name} has {graph.nodes} nodes? and no edge"):
        random_walks(graph, WalkConfig(walks_per_node=1, length=2))


def test_walks_larger_than_memory_are_refused_before_allocating():
    # 34 nodes × 10^12 walks × 80 int32 steps: 10 PiB, past any machine
    with pytest.raises(InvalidValueError, match=r"34,000,000,000,000 walks of 80 nodes on karate: needs at least"):
        random_walks(load_graph("karate"), WalkConfig(walks_per_node=10**12))
