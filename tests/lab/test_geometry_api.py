"""/api/geometry under each metric the page offers (read from /api/config): the table's own queries,
best first, lower first for euclidean distances."""

from __future__ import annotations

import pytest

from embedlab.vectors.similarity import METRICS


def test_the_page_offers_the_librarys_metrics(client):
    assert client.get("/api/config").json()["limits"]["geometry"]["metrics"] == list(METRICS)


@pytest.mark.parametrize("metric", METRICS)
def test_each_metric_answers_as_the_table_does(client, minilm_vectors, metric):
    params = {"table": "minilm", "word": "king", "k": 8, "metric": metric}
    r = client.get("/api/geometry/neighbors", params=params).json()
    expected = minilm_vectors.most_similar("king", topn=8, metric=metric)
    assert r["found"]["keys"] == list(expected.keys) and r["found"]["metric"] == metric
    assert r["found"]["scores"] == pytest.approx(list(expected.scores), rel=1e-6)
    assert r["higher_is_better"] == (metric != "euclidean")
    scores = r["found"]["scores"]
    assert scores == sorted(scores, reverse=r["higher_is_better"])
    params = {"table": "minilm", "expression": "king - man + woman", "k": 3, "metric": metric}
    r = client.get("/api/geometry/analogy", params=params).json()
    assert r["found"]["keys"] == list(minilm_vectors.analogy("king - man + woman", topn=3, metric=metric).keys)


def test_dot_and_cosine_disagree_on_minilm(client):
    keys = {}
    for metric in ("dot", "cosine"):
        params = {"table": "minilm", "word": "king", "k": 10, "metric": metric}
        keys[metric] = client.get("/api/geometry/neighbors", params=params).json()["found"]["keys"]
    assert keys["dot"] != keys["cosine"]  # long rows rank higher under dot


def test_a_subword_table_answers_an_unseen_word_and_says_so(subword_client, subword_bin):
    from embedlab.vectors import load

    table, name = load(subword_bin), subword_bin.name
    assert "unhappinesses" not in table.key_to_index
    r = subword_client.get("/api/geometry/neighbors", params={"table": name, "word": "unhappinesses", "k": 5})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["found"]["keys"] == list(table.most_similar("unhappinesses", topn=5).keys)
    assert (answer["found"]["inputs"], answer["found"]["sources"]) == (["unhappinesses"], ["ngrams"])
    pair = subword_client.get("/api/geometry/pair", params={"table": name, "a": "unhappinesses", "b": "recieve"})
    assert pair.status_code == 200
    assert pair.json()["parts"]["cosine"] == pytest.approx(table.similarity("unhappinesses", "recieve"), abs=1e-6)


def test_defaults_are_the_tables_own(client):
    run = client.get("/api/geometry/defaults", params={"table": "wiki-run"}).json()
    assert run == {"table": "wiki-run", "word": "king", "expression": "king - man + woman", "a": "king", "b": "queen"}
    kept = client.get("/api/geometry/defaults", params={"table": "minilm", "word": "paris", "a": "cat"}).json()
    assert (kept["word"], kept["a"], kept["b"]) == ("paris", "cat", "dog")  # a lone `a` is no pair: the default
    assert (
        client.get("/api/geometry/pair", params={"table": "wiki-run", "a": run["a"], "b": run["b"]}).status_code == 200
    )
    assert client.get("/api/geometry/defaults", params={"table": "nope"}).status_code == 404
