"""Advise in Debian's chromium against a real `embedlab lab` process: the page walks the chart for its
controls, shows the recipe with `embedlab size`'s figures and the path with verdicts, and says where
the chart and the measurements disagree; after a bad size (a 400, tests/lab/test_advise_api.py) it shows
the error and no stale recipe."""

from __future__ import annotations

from embedlab.advise import advise


def _wait_for(page, selector: str, text: str) -> None:
    page.wait_for_function("([s, t]) => document.querySelector(s).innerText.includes(t)", arg=[selector, text])


def test_the_default_answer_and_its_disagreements(open_sim, minilm_lab_url):
    page = open_sim("advise", url=minilm_lab_url)
    advice = advise("text", params=125e6)
    _wait_for(page, "#advise-recipe", f"{advice.size.total_params:,}")
    assert "V = 32,000" in page.inner_text("#advise-recipe")
    items = page.query_selector_all("#advise-path > li")
    assert len(items) == len(advice.path)
    for item, b in zip(items, advice.path, strict=True):
        assert b.question in item.inner_text() and b.verdict in item.inner_text()
    shown = page.query_selector_all("#advise-disagreements p")
    assert len(shown) == len(advice.disagreements) > 0 and "0.24 nats" in page.inner_text("#advise-disagreements")


def test_images_in_a_tight_budget_take_a_coarser_patch(open_sim, minilm_lab_url):
    page = open_sim("advise", url=minilm_lab_url)
    page.select_option("#advise-modality", "image")
    _wait_for(page, "#advise-recipe", "P = 16 on 224 px")
    assert page.is_visible("#advise-image") and not page.is_visible("#advise-text")
    page.select_option("#advise-detail", "detail")
    _wait_for(page, "#advise-recipe", "P = 8 on 224 px")
    page.fill("#advise-batch", "256")
    page.dispatch_event("#advise-batch", "change")
    page.fill("#advise-memory", "300MiB")
    page.dispatch_event("#advise-memory", "change")
    _wait_for(page, "#advise-recipe", "fits")
    assert "P = 16 on 224 px" in page.inner_text("#advise-recipe")
    assert "patch 16 instead of 8" in page.inner_text("#advise-path")


def test_a_refused_size_takes_the_last_recipe_down(open_sim, minilm_lab_url):
    page = open_sim("advise", url=minilm_lab_url, expected_status=400)
    _wait_for(page, "#advise-recipe", "V = 32,000")
    page.fill("#advise-params", "1e400B")
    page.dispatch_event("#advise-params", "change")
    _wait_for(page, "#advise-error", "infinite")
    assert page.inner_text("#advise-recipe") == "" and page.inner_text("#advise-path") == ""
    page.fill("#advise-params", "125M")  # a good size again: the recipe comes back, the error goes
    page.dispatch_event("#advise-params", "change")
    _wait_for(page, "#advise-recipe", "V = 32,000")
    assert page.inner_text("#advise-error") == ""
