"""Bag of embeddings in Debian's chromium against a real `embedlab lab` process: the default classifier
trained on the first visit, its curve, confusions and label table drawn, a typed text's rows and the
quantized sizes following their controls, no console errors."""

from __future__ import annotations


def test_the_bag_page_trains_explains_and_quantizes(open_sim):
    page = open_sim("bag")  # ready once the default run has finished and its first answers are drawn
    epochs = int(page.input_value("#bag-epochs"))
    assert page.evaluate("document.querySelector('#bag-curve').data[0].x.length") == epochs
    labels = page.evaluate("document.querySelector('#bag-confusion').data[0].y")
    assert len(labels) == 15 and labels[0] == "zool"
    assert page.locator("#bag-label-table tr").count() == 16  # a header and a row per label
    assert "P@1" in page.inner_text("#bag-status") and "held-out lines" in page.inner_text("#bag-status")
    assert page.locator("#bag-top-table tr").count() == 1 + int(page.input_value("#bag-k"))
    # a definition of music's kind (P 0.98 measured): its first label is music, the bars name its word pairs
    page.fill("#bag-text", "a stringed instrument played with a bow")
    page.dispatch_event("#bag-text", "change")
    page.wait_for_function("() => document.querySelector('#bag-top').innerText.includes('stringed instrument')")
    bars = page.evaluate("document.querySelector('#bag-rows').data[0].y")
    assert "stringed instrument" in bars and "&lt;/s&gt;" in bars  # escaped: plotly reads labels as HTML
    assert page.inner_text("#bag-top-table tr:nth-child(2) td") == "mus"
    # quantizing harder: fewer rows, a smaller file
    before = page.inner_text("#bag-size-table")
    assert ".ftz" in before and "10,000" in before  # the server's default cutoff, shown in the control too
    page.fill("#bag-cutoff", "2000")
    page.select_option("#bag-dsub", "4")
    page.dispatch_event("#bag-cutoff", "change")
    page.wait_for_function("() => document.querySelector('#bag-size-table')?.innerText.includes('2,000')")
    assert "dsub 4" in page.inner_text("#bag-size-note")
