"""sims.nodes: karate's node table at six points of one run, each map the PCA of that snapshot's rows
(scikit-learn's PCA as the oracle, up to each axis's sign and the turn to the next map), the clubs as
networkx holds them, the factions emerging as the passes go, and the spectral baseline beside."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from sklearn.decomposition import PCA

from embedlab.errors import InvalidValueError
from embedlab.graphs import WalkConfig, community_recovery, load_graph, spectral_embedding, train_config, train_walks
from embedlab.graphs.evaluate import node_rows
from embedlab.graphs.walks import random_walks
from embedlab.sims.nodes import DIM, LENGTH, PASSES, SNAPSHOTS, karate_passes

PCA_TOL = 1e-4  # float32 rows, two SVDs (LAPACK against scikit-learn's)


@pytest.fixture(scope="module")
def answer():
    return karate_passes(p=1.0, q=1.0, seed=1, walks=1)


def test_the_clubs_and_ties_are_networkxs(answer):
    karate = nx.karate_club_graph()
    assert answer.keys == tuple(str(v) for v in karate.nodes)
    assert [answer.club_names[c] for c in answer.clubs] == [karate.nodes[v]["club"] for v in karate.nodes]
    assert {tuple(sorted(e)) for e in answer.edges.tolist()} == {tuple(sorted(e)) for e in karate.edges}


def test_each_map_is_the_pca_of_its_snapshot(answer):
    graph = load_graph("karate")
    walks = random_walks(graph, WalkConfig(walks_per_node=1, length=LENGTH, seed=1), threads=1)
    tables = {}
    config = train_config(dim=DIM, epochs=PASSES, seed=1, threads=1)
    train_walks(walks, graph.keys, config, on_pass=lambda passes, table: tables.setdefault(passes, table))
    assert [s.passes for s in answer.snapshots] == list(SNAPSHOTS)
    for snapshot in answer.snapshots:
        rows = node_rows(tables[snapshot.passes], graph)
        oracle = PCA(2).fit(rows.astype(np.float64))
        assert snapshot.variance == pytest.approx(tuple(oracle.explained_variance_ratio_), abs=PCA_TOL)
        # the map is turned to line up with the next one: its distances are PCA's all the same
        points, truth = snapshot.points.astype(np.float64), oracle.transform(rows)
        gaps = np.linalg.norm(points[:, None] - points[None], axis=2)
        assert gaps == pytest.approx(np.linalg.norm(truth[:, None] - truth[None], axis=2), abs=PCA_TOL)
        found = community_recovery(rows, graph.labels, seed=1)
        assert (snapshot.ari, snapshot.accuracy) == (found.ari, found.accuracy)
    last = answer.snapshots[-1]  # nothing after it: PCA's own axes, signs as pca_2d fixes them
    assert np.abs(last.points) == pytest.approx(
        np.abs(PCA(2).fit_transform(node_rows(tables[PASSES], graph))), abs=1e-4
    )


def test_the_factions_emerge_and_the_baseline_is_beside(answer):
    accuracy = [s.accuracy for s in answer.snapshots]
    assert accuracy[0] < 0.6 and accuracy[-1] > 0.9  # measured 0.529 at the init, 0.941 after 16 passes
    assert max(accuracy[:3]) < 0.7 < max(accuracy[3:])  # passes 0-2 below 0.65, 8 passes 0.971
    graph = load_graph("karate")
    assert [b.dim for b in answer.spectral] == [DIM, 2]
    for baseline in answer.spectral:
        found = community_recovery(spectral_embedding(graph, baseline.dim, seed=1), graph.labels, seed=1)
        assert (baseline.ari, baseline.accuracy) == (found.ari, found.accuracy)
    assert answer.spectral[1].accuracy == pytest.approx(33 / 34)  # the Fiedler vector: one member misplaced


def test_a_setting_is_seeded():
    a, b = karate_passes(p=0.5, q=2.0, seed=3), karate_passes(p=0.5, q=2.0, seed=3)
    assert all(np.array_equal(x.points, y.points) for x, y in zip(a.snapshots, b.snapshots, strict=True))
    assert not np.array_equal(a.snapshots[-1].points, karate_passes(p=0.5, q=2.0, seed=4).snapshots[-1].points)


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"p": 3.0}, "p must be one of 0.25, 0.5, 1.0, 2.0, 4.0; got 3.0"),
        ({"q": 0.0}, "q must be one of"),
        ({"seed": 100}, "seed must be between 0 and 99; got 100"),
        ({"walks": 11}, "walks must be between 1 and 10; got 11"),
    ],
)
def test_settings_outside_the_limits_name_the_value(settings, message):
    with pytest.raises(InvalidValueError, match=message):
        karate_passes(**settings)
