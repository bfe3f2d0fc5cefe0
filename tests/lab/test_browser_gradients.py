"""Sparse gradients and the attention bridge in Debian's chromium against a real `embedlab lab`:
each loads without console errors, and a changed control changes what the page shows. The
gradients page offers only the served tables that have update counts, and says so when none has."""

from __future__ import annotations

SUMMARY = "document.querySelector('#grad-summary')"
Z = "document.querySelector('#att-scaled').data[0]"


def test_gradients_follow_the_batch(open_sim):
    page = open_sim("gradients")
    assert "2 of 12 rows of dE are non-zero (rows 2, 5)" in page.inner_text("#grad-summary")
    assert "none" in page.inner_text("#grad-moved")  # SGD moves no row without gradient
    page.fill("#grad-ids", "1 3 3 9")
    page.dispatch_event("#grad-ids", "change")
    page.wait_for_function(f"() => {SUMMARY}.innerText.includes('rows 1, 3, 9')")
    assert "3 of 12 rows of dE are non-zero" in page.inner_text("#grad-summary")
    rows = page.inner_text("#grad-rows")
    assert "g1 + g2" in rows and "g0 + g1" not in rows  # id 3 at positions 1 and 2 sums their rows
    # Step 2's batch (5 7) lacks 1, 3 and 9: only Adam moves them.
    page.wait_for_function("() => document.querySelector('#grad-moved').innerText.includes('1, 3, 9')")
    adam = [r for r in page.inner_text("#grad-moved").splitlines() if r.startswith("Adam")]
    assert adam and adam[0].rstrip().endswith("1, 3, 9")
    assert "Spearman" in page.inner_text("#grad-bands")  # the served run's update counts


def test_gradients_offer_only_the_runs_with_update_counts(open_sim, lab_run):
    page = open_sim("gradients")  # minilm and wiki-run served; minilm has no update counts
    options = page.eval_on_selector_all("#grad-run option", "nodes => nodes.map(n => n.value)")
    assert options == [lab_run.name]
    page.wait_for_function("() => document.querySelector('#grad-updates').data?.[0]?.x.length > 0")
    assert page.query_selector("#grad-no-runs") is None


def test_gradients_without_a_run_say_so_and_ask_for_nothing(open_sim, minilm_lab_url):
    page = open_sim("gradients", url=minilm_lab_url)  # open_sim fails on the console's 400 a request would log
    assert page.query_selector("#grad-run") is None and page.query_selector("#grad-updates") is None
    assert "No table served here has update counts" in page.inner_text("#grad-no-runs")
    assert "2 of 12 rows of dE are non-zero" in page.inner_text("#grad-summary")  # the rest of the page works


def test_attention_follows_head_and_sentence(open_sim):
    page = open_sim("attention")
    page.wait_for_function(f"() => {Z} && {Z}.z.length === 12")  # [CLS] + 10 words + [SEP]
    head0 = page.evaluate(f"{Z}.z")
    assert all(abs(sum(row) - 1) < 1e-5 for row in head0)  # softmax rows
    page.select_option("#att-head", "2")
    page.wait_for_function("() => document.querySelector('#att-summary').innerText.startsWith('Layer 0, head 2')")
    assert page.evaluate(f"{Z}.z") != head0
    page.fill("#att-text", "a dog barked")
    page.dispatch_event("#att-text", "change")
    page.wait_for_function(f"() => {Z}.y.includes('2 dog')")
    assert page.evaluate(f"{Z}.y") == ["0 [CLS]", "1 a", "2 dog", "3 barked", "4 [SEP]"]
