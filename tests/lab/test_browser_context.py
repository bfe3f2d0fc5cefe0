"""Static vs contextual and the attention bridge's layers, in Debian's chromium against a real
`embedlab lab` process: what the pages show follows their controls, with no console errors."""

from __future__ import annotations


def test_static_vs_contextual_follows_the_word_through_the_layers(open_sim, map_labels):
    page = open_sim("context")
    page.wait_for_selector("#ctx-curve .main-svg")
    page.wait_for_selector("#ctx-map .annotation-text")
    texts, overlapping = map_labels(page, "#ctx-map")
    assert overlapping == [] and texts.count("bank") >= 1 and len(texts) >= 20  # of the 3 sentences' 37 pieces
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
    texts, overlapping = map_labels(page, "#ctx-map")  # drawn with the layer's map (drawLayer awaits both)
    assert overlapping == [] and "bank" in texts
    assert "bank" in page.inner_text("#ctx-nearest table")


def test_static_vs_contextual_answers_new_sentences_and_attention(open_sim):
    page = open_sim("context")
    page.wait_for_selector("#ctx-attention .main-svg")
    title = "document.querySelector('#ctx-attention').layout.title.text"
    assert page.evaluate(title) == 'What "bank" attends to in layer 1, head 0 (reading layer 0)'
    page.select_option("#ctx-layer", "5")  # encoder layer 5 of the API: the page's layer 6
    page.wait_for_function(f"() => {title}.includes('in layer 6, head 0')")
    page.select_option("#ctx-head", "11")
    page.wait_for_function(f"() => {title}.includes('in layer 6, head 11')")
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


# Every legend, axis title and tick label of the page's three plots, with its box and its plot's box
# (page pixels), for checking that nothing spills out of a plot onto what follows or is cut off.
PARTS = """() => ["ctx-curve", "ctx-attention", "ctx-map"].flatMap((id) => {
  const plot = document.getElementById(id).getBoundingClientRect();
  const parts = document.querySelectorAll(`#${id} .legend, #${id} .xtick text, #${id} .ytick text, ` +
    `#${id} .g-xtitle, #${id} .g-ytitle, #${id} .gtitle`);
  return [...parts].map((node) => {
    const box = node.getBoundingClientRect();
    return { id, text: node.textContent, box: [box.left, box.top, box.right, box.bottom],
             plot: [plot.left, plot.top, plot.right, plot.bottom] };
  });
})"""
SLACK = 1  # px: a box's edge may sit on its plot's edge


def outside(part: dict) -> bool:
    (left, top, right, bottom), (p_left, p_top, p_right, p_bottom) = part["box"], part["plot"]
    return left < p_left - SLACK or top < p_top - SLACK or right > p_right + SLACK or bottom > p_bottom + SLACK


def set_texts(page, texts: list[str], word: str = "bank") -> None:
    """Set every sentence and the word without events, then send them as one change."""
    page.evaluate(
        """([texts, word]) => { texts.forEach((t, i) => { document.querySelector(`#ctx-text-${i}`).value = t; });
                                document.querySelector('#ctx-word').value = word; }""",
        [texts, word],
    )
    page.dispatch_event("#ctx-word", "change")


def test_legends_and_axis_labels_stay_inside_their_plots(open_sim):
    page = open_sim("context")
    set_texts(page, ["he sat on the river bank and watched the water", "she paid the cheque into the bank", "", ""])
    page.wait_for_function("() => document.querySelector('#ctx-summary').innerText.includes('2 occurrences')")
    page.wait_for_function("() => document.querySelector('#ctx-curve').data.length === 2")
    parts = page.evaluate(PARTS)
    assert {p["id"] for p in parts} == {"ctx-curve", "ctx-attention", "ctx-map"} and len(parts) > 40
    assert [p for p in parts if outside(p)] == []
    # the curve's legend lies above the slider and the map's title, not on them
    legend = next(p["box"] for p in parts if p["id"] == "ctx-curve" and "any two tokens" in p["text"])
    slider = page.eval_on_selector("#ctx-map-layer", "n => n.getBoundingClientRect().top")
    title = next(p["box"] for p in parts if p["id"] == "ctx-map" and p["text"].startswith("Every token"))
    assert legend[3] <= slider and legend[3] <= title[1]


def test_eight_occurrences_are_labelled_and_the_cap_is_said(open_sim):
    page = open_sim("context")
    assert "Up to 8 occurrences of the word" in page.inner_text("#ctx-limits")
    set_texts(page, ["bank bank bank bank the bank bank river bank", "she paid the cheque into the bank", "", ""])
    page.wait_for_function("() => document.querySelector('#ctx-summary').innerText.includes('8 occurrences')")
    names = page.evaluate("document.querySelector('#ctx-attention').data.map((t) => t.name)")
    assert names == [f'"bank" in 1{letter}' for letter in "abcdefg"] + ['"bank" in 2']
    curves = page.evaluate("document.querySelector('#ctx-curve').data.map((t) => t.name)")
    assert len(curves) == 8 * 7 // 2 + 1 and not any("undefined" in name for name in curves)
    assert [p for p in page.evaluate(PARTS) if outside(p)] == []  # 29 legend entries still fit their plot
    # a ninth is a 400 naming the cap (tests/lab/test_context_api.py: a 400 is a console error here)


def test_layers_are_numbered_one_way(open_sim):
    page = open_sim("context")
    page.wait_for_selector("#ctx-attention .main-svg")
    choices = page.eval_on_selector_all("#ctx-layer option", "os => os.map((o) => o.innerText)")
    assert choices == [f"layer {i}" for i in range(1, 7)]  # encoder layers 1..6, as the curve's 1..6
    assert page.evaluate("document.querySelector('#ctx-curve').data[0].x") == list(range(7))  # 0: the input


def test_the_attention_bridge_shows_every_layer(open_sim):
    page = open_sim("attention")
    page.wait_for_selector("#att-summary:not(:empty)")
    assert page.inner_text("#att-summary").startswith("Layer 0, head 0")
    assert page.evaluate("document.querySelectorAll('#att-layer option').length") == 6
    before = page.evaluate("JSON.stringify(document.querySelector('#att-scaled').data[0].z)")
    page.select_option("#att-layer", "3")
    page.wait_for_function("() => document.querySelector('#att-summary').innerText.startsWith('Layer 3, head 0')")
    assert page.evaluate("JSON.stringify(document.querySelector('#att-scaled').data[0].z)") != before
