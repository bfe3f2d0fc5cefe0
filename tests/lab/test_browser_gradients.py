"""Sparse gradients and the attention bridge in Debian's chromium against a real `embedlab lab`:
each loads without console errors, and a changed control changes what the page shows."""

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


def test_attention_follows_head_and_sentence(open_sim):
    page = open_sim("attention")
    page.wait_for_function(f"() => {Z} && {Z}.z.length === 12")  # [CLS] + 10 words + [SEP]
    head0 = page.evaluate(f"{Z}.z")
    assert all(abs(sum(row) - 1) < 1e-5 for row in head0)  # softmax rows
    page.select_option("#att-head", "2")
    page.wait_for_function("() => document.querySelector('#att-summary').innerText.startsWith('Head 2')")
    assert page.evaluate(f"{Z}.z") != head0
    page.fill("#att-text", "a dog barked")
    page.dispatch_event("#att-text", "change")
    page.wait_for_function(f"() => {Z}.y.includes('2 dog')")
    assert page.evaluate(f"{Z}.y") == ["0 [CLS]", "1 a", "2 dog", "3 barked", "4 [SEP]"]
