"""Static vs contextual and the attention bridge's layers, in Debian's chromium against a real
`embedlab lab` process: what the pages show follows their controls, with no console errors."""

from __future__ import annotations


def test_static_vs_contextual_follows_the_word_through_the_layers(open_sim):
    page = open_sim("context")
    page.wait_for_selector("#ctx-curve .main-svg")
    summary = page.inner_text("#ctx-summary")
    assert '"bank" is one piece, 3 occurrences' in summary and "after layer 6" in summary
    # the curve: three pairs of occurrences and the level of any two tokens, over layers 0..6
    assert page.evaluate("document.querySelector('#ctx-curve').data.length") == 4
    assert page.evaluate("document.querySelector('#ctx-curve').data[0].x.length") == 7
    # the map moves with the slider, without a new request
    before = page.evaluate("JSON.stringify(document.querySelector('#ctx-map').data[0].x)")
    assert "layer 0 (input embedding)" in page.inner_text("#ctx-map-layer-value")
    page.fill("#ctx-map-layer", "6")
    page.dispatch_event("#ctx-map-layer", "input")
    page.wait_for_function("() => document.querySelector('#ctx-map-layer-value').innerText === 'layer 6'")
    assert page.evaluate("JSON.stringify(document.querySelector('#ctx-map').data[0].x)") != before
    assert "Closest static token rows at layer 6" in page.inner_text("#ctx-nearest")
    assert "bank" in page.inner_text("#ctx-nearest table")


def test_static_vs_contextual_answers_new_sentences_and_attention(open_sim):
    page = open_sim("context")
    page.wait_for_selector("#ctx-attention .main-svg")
    title = "document.querySelector('#ctx-attention').layout.title.text"
    assert page.evaluate(title) == 'What "bank" attends to: layer 0, head 0'
    page.select_option("#ctx-layer", "5")
    page.wait_for_function(f"() => {title}.includes('layer 5, head 0')")
    page.select_option("#ctx-head", "11")
    page.wait_for_function(f"() => {title}.includes('layer 5, head 11')")
    # a new word and two sentences of its own, set without events and sent as one change (each
    # half-typed state would be a 400 for a word missing from a sentence, which the API tests cover)
    texts = ["the cat sat on the mat", "my cat chased a mouse", "", ""]
    page.evaluate(
        """texts => { texts.forEach((t, i) => { document.querySelector(`#ctx-text-${i}`).value = t; });
                                document.querySelector('#ctx-word').value = 'cat'; }""",
        texts,
    )
    page.dispatch_event("#ctx-word", "change")
    page.wait_for_function("() => document.querySelector('#ctx-summary').innerText.includes('\"cat\"')")
    assert "2 occurrences" in page.inner_text("#ctx-summary")
    assert page.evaluate("document.querySelector('#ctx-curve').data.length") == 2  # one pair and the level


def test_the_attention_bridge_shows_every_layer(open_sim):
    page = open_sim("attention")
    page.wait_for_selector("#att-summary:not(:empty)")
    assert page.inner_text("#att-summary").startswith("Layer 0, head 0")
    assert page.evaluate("document.querySelectorAll('#att-layer option').length") == 6
    before = page.evaluate("JSON.stringify(document.querySelector('#att-scaled').data[0].z)")
    page.select_option("#att-layer", "3")
    page.wait_for_function("() => document.querySelector('#att-summary').innerText.startsWith('Layer 3, head 0')")
    assert page.evaluate("JSON.stringify(document.querySelector('#att-scaled').data[0].z)") != before
