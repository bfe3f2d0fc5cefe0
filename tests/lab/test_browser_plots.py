"""Every chart of these pages, in Debian's chromium at the default viewport, keeps its title, tick labels
and axis titles inside its own drawing (nothing cut off at the edge), against a real `embedlab lab`."""

from __future__ import annotations

import pytest

# page -> a plot that is drawn once the page has answered
PAGES = {
    "size": "#size-heatmap",
    "recipe": "#recipe-x",
    "patches": "#patch-embedding",
    "tying": "#tying-logits",
    "scale": "#scale-heat",
    "gradients": "#grad-step2",
    "attention": "#att-heads",
}
CLIPPED = """() => {
  const cut = [];
  for (const chart of document.querySelectorAll('#sim .js-plotly-plot')) {
    const box = chart.querySelector('svg.main-svg').getBoundingClientRect();
    for (const text of chart.querySelectorAll('.gtitle, .xtick text, .ytick text, .xtitle, .ytitle, .legendtext')) {
      const r = text.getBoundingClientRect();
      if (r.width === 0) continue;  // an empty label
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
        cut.push(`${chart.id}: ${text.textContent}`);
    }
  }
  return cut;
}"""


@pytest.mark.parametrize("name", PAGES)
def test_no_label_is_cut_off(open_sim, name):
    page = open_sim(name)
    page.wait_for_selector(f"{PAGES[name]} .main-svg")
    page.wait_for_timeout(500)  # plotly's automargin redraws once after the first draw
    assert page.evaluate(CLIPPED) == []


def test_attention_with_a_long_sentence(open_sim):
    page = open_sim("attention")
    page.wait_for_selector("#att-heads .main-svg")
    before = page.inner_text("#att-summary")
    page.fill("#att-text", "the bank raised its interest rates while the river bank flooded the meadows nearby")
    page.dispatch_event("#att-text", "change")
    page.wait_for_function("t => document.querySelector('#att-summary').innerText !== t", arg=before)
    page.wait_for_timeout(500)
    assert page.evaluate(CLIPPED) == []
