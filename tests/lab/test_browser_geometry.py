"""Geometry in Debian's chromium against a real `embedlab lab` process: the metric switch offers the
API's metrics and each one's neighbours are the table's own."""

from __future__ import annotations

import pytest

from embedlab.vectors.similarity import METRICS

# the keys of a ranked table, in the order shown
KEYS = "box => [...document.querySelectorAll(`${box} tr`)].slice(1).map((row) => row.cells[1].innerText)"


def _keys(page, selector: str) -> list[str]:
    return page.evaluate(KEYS, selector)


@pytest.mark.parametrize("metric", [m for m in METRICS if m != "cosine"])
def test_the_metric_switch_ranks_by_that_metric(open_sim, minilm_vectors, metric):
    page = open_sim("geometry")
    page.wait_for_selector("#geo-neighbors table")
    assert [o.get_attribute("value") for o in page.query_selector_all("#geo-metric option")] == list(METRICS)
    assert _keys(page, "#geo-neighbors") == list(minilm_vectors.most_similar("king", topn=8).keys)  # cosine first
    before = page.inner_text("#geo-neighbors")
    page.select_option("#geo-metric", metric)
    page.wait_for_function("t => document.querySelector('#geo-neighbors').innerText !== t", arg=before)
    assert _keys(page, "#geo-neighbors") == list(minilm_vectors.most_similar("king", topn=8, metric=metric).keys)
    expected = list(minilm_vectors.analogy("king - man + woman", topn=5, metric=metric).keys)
    page.wait_for_function(f"keys => ({KEYS})('#geo-analogy').join() === keys", arg=",".join(expected))
    marked = {"dot": "a·b ◂", "euclidean": "‖a − b‖ ◂"}[metric]  # the pair's column the metric ranks by
    assert marked in page.inner_text("#geo-pair")


def test_another_table_opens_on_queries_it_can_answer(open_sim, lab_run):
    from embedlab.vectors import Vectors

    run = Vectors.load(lab_run)
    assert "cat" not in run and "king" in run  # the small run lacks MiniLM's pair cat, dog
    page = open_sim("geometry")  # open_sim fails the test on the console error a 404 would log
    page.wait_for_selector("#geo-pair-table")
    assert page.input_value("#geo-a") == "cat" and page.input_value("#geo-word") == "king"
    page.fill("#geo-word", "france")  # the user's own word, which the run has, stays
    page.select_option("#geo-table", "wiki-run")
    page.wait_for_function("() => document.querySelector('#geo-a').value !== 'cat'")
    assert (page.input_value("#geo-a"), page.input_value("#geo-b")) == ("king", "queen")  # the next default pair
    page.wait_for_function("() => document.querySelector('#geo-pair-table') !== null")
    cosine = run.similarity("king", "queen")
    page.wait_for_function(f"() => document.querySelector('#geo-pair').innerText.includes('{cosine:.4f}')")
    assert page.input_value("#geo-word") == "france"
    page.wait_for_function(f"keys => ({KEYS})('#geo-neighbors').join() === keys",
                           arg=",".join(run.most_similar("france", topn=8).keys))  # fmt: skip
