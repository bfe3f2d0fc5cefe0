"""The projector page in Debian's chromium against a real `embedlab lab` process: every row drawn as
WebGL points, a searched key's neighbours highlighted (the table's own, found in the full space),
on MiniLM and on a trained run, in 2-D and 3-D, with no console error."""

from __future__ import annotations

import pytest
from tests.timeouts import UMAP_FIT_S

from embedlab.vectors import Vectors

NEIGHBOURS = "() => document.querySelector('#proj-neighbours') !== null"


def traces(page) -> list[dict]:
    """The map's traces: name, type and point count (the point arrays stay in the page)."""
    script = ("() => document.querySelector('#proj-map').data.map((t) => "
              "({name: t.name, type: t.type, n: t.x.length, text: Array.from(t.text).slice(0, 20)}))")  # fmt: skip
    return page.evaluate(script)


def search(page, key: str) -> None:
    page.fill("#proj-key", key)
    page.dispatch_event("#proj-key", "change")
    page.wait_for_function(f"() => (document.querySelector('#proj-kept')?.innerText ?? '').startsWith(\"'{key}'\")")


def test_every_minilm_row_is_drawn_and_a_search_highlights_its_neighbours(open_sim, minilm_vectors):
    page = open_sim("projector")
    drawn = traces(page)
    assert sum(t["n"] for t in drawn) == 30522 and {t["type"] for t in drawn} == {"scattergl"}
    assert page.inner_text("#proj-caption").startswith("30,522 points of minilm (30,522 × 384). PCA of all")
    search(page, "king")
    expected = minilm_vectors.most_similar("king", topn=10).keys
    shown = page.eval_on_selector_all("#proj-neighbours tr td:nth-child(2)", "cells => cells.map((c) => c.innerText)")
    assert shown == list(expected)
    marked = traces(page)[-2:]  # the ring around the neighbours, then the key itself
    assert marked[0]["text"] == list(expected) and marked[1]["text"] == ["king"]
    ranges = page.evaluate("() => document.querySelector('#proj-map').layout.xaxis.range")
    point = page.evaluate("() => document.querySelector('#proj-map').data.at(-1).x[0]")
    assert ranges[0] < point < ranges[1] and ranges[1] - ranges[0] < 1.0  # flown to the key


# The 3-D axis cube's 8 corners on the screen, projected by the scene's own camera matrices (plotly draws
# its 3-D ticks in WebGL, not as page elements), with the canvas's size; and the boxes of the toolbar and
# the colour bar's title.
CUBE = """() => { const gl = document.querySelector('#proj-map')._fullLayout.scene._scene.glplot;
  const { model, view, projection } = gl.cameraParams; const [lo, hi] = gl.bounds;
  const times = (m, v) => [0, 1, 2, 3].map((r) => m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r] * v[3]);
  const { width, height } = gl.canvas.getBoundingClientRect(); const corners = [];
  for (const x of [lo[0], hi[0]]) for (const y of [lo[1], hi[1]]) for (const z of [lo[2], hi[2]]) {
    const c = times(projection, times(view, times(model, [x, y, z, 1])));
    corners.push([(c[0] / c[3] + 1) / 2 * width, (1 - c[1] / c[3]) / 2 * height]); }
  return { width, height, corners }; }"""
BOXES = """() => ['.modebar', '.cbtitle'].map((s) => { const b = document.querySelector(`#proj-map ${s}`)
  .getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })"""
TICK_ROOM = 40  # px: a tick label stands off its cube edge and is up to ~35 px wide ("−0.4" and its pad)


def test_a_trained_run_coloured_by_band_in_3d(open_sim, lab_run):
    run = Vectors.load(lab_run)
    page = open_sim("projector")
    page.select_option("#proj-table", "wiki-run")
    page.wait_for_function("() => document.querySelector('#proj-caption').innerText.includes('of wiki-run')")
    page.select_option("#proj-scheme", "band")
    page.wait_for_function("() => document.querySelector('#proj-map').data.some((t) => t.name.startsWith('rare ('))")
    assert sum(t["n"] for t in traces(page)) == len(run)
    page.select_option("#proj-dims", "3")
    page.wait_for_function("() => document.querySelector('#proj-map').data[0].type === 'scatter3d'")
    cube = page.evaluate(CUBE)  # the whole cube and room for its ticks inside the canvas, not cut at its edge
    assert all(TICK_ROOM <= x <= cube["width"] - TICK_ROOM for x, _ in cube["corners"]), cube
    assert all(TICK_ROOM <= y <= cube["height"] - TICK_ROOM for _, y in cube["corners"]), cube
    page.select_option("#proj-scheme", "norm")  # a colour bar, whose title the toolbar must leave free
    page.wait_for_function("() => document.querySelector('#proj-map .cbtitle') !== null")
    toolbar, title = page.evaluate(BOXES)
    assert toolbar[3] <= title[1] or title[2] <= toolbar[0], (toolbar, title)  # above it, or beside it
    search(page, "war")
    shown = page.eval_on_selector_all("#proj-neighbours tr td:nth-child(2)", "cells => cells.map((c) => c.innerText)")
    assert shown == list(run.most_similar("war", topn=10).keys)


def test_minilm_offers_no_band_colouring_nor_moved_before_a_comparison(open_sim):
    page = open_sim("projector")
    options = "os => os.filter((o) => o.disabled).map((o) => o.value)"
    assert page.eval_on_selector_all("#proj-scheme option", options) == ["band", "moved"]
    page.select_option("#proj-other", "wiki-run")
    assert page.eval_on_selector_all("#proj-scheme option", options) == ["band"]


def test_compare_lists_the_movers_and_colours_the_map_by_them(open_sim):
    page = open_sim("projector")
    assert page.eval_on_selector_all("#proj-other option", "os => os.map((o) => o.value)") == ["", "wiki-run"]
    page.select_option("#proj-other", "wiki-run")
    page.wait_for_selector("#proj-movers")
    assert "shared keys (" in page.inner_text("#proj-compare-summary")
    page.select_option("#proj-scheme", "moved")
    page.wait_for_function("() => document.querySelector('#proj-map').data[0].name.startsWith('moved')")
    names = [t["name"] for t in traces(page)]
    assert names[1].startswith("not in the compared table")
    first = page.inner_text("#proj-movers tr.clickable td:nth-child(2)")
    page.click("#proj-movers tr.clickable >> nth=0")
    page.wait_for_function(f"() => (document.querySelector('#proj-kept')?.innerText ?? '').startsWith(\"'{first}'\")")


@pytest.mark.slow
def test_a_first_umap_map_says_it_is_being_fitted_and_the_lab_keeps_answering(open_sim):
    page = open_sim("projector")
    page.select_option("#proj-table", "wiki-run")
    page.wait_for_function("() => document.querySelector('#proj-caption').innerText.includes('of wiki-run')")
    page.select_option("#proj-method", "umap")
    # at once: the old PCA map and its caption go, and the page says what it is doing
    page.wait_for_selector("#proj-fitting")
    assert page.inner_text("#proj-fitting").startswith("Fitting UMAP on ")
    assert page.inner_text("#proj-caption") == ""
    assert page.evaluate("(document.querySelector('#proj-map').data ?? []).length") == 0
    # the fit runs in a child process: a cheap request is answered while it goes
    answered = page.evaluate("""async () => { const r = await fetch('/api/tables');
        return { ok: r.ok, fitting: document.querySelector('#proj-fitting') !== null }; }""")
    assert answered == {"ok": True, "fitting": True}
    page.wait_for_function(
        "() => document.querySelector('#proj-caption').innerText.includes('UMAP fitted on')",
        timeout=UMAP_FIT_S * 1000,
    )
    assert page.query_selector("#proj-fitting") is None
    assert page.evaluate("document.querySelector('#proj-map').data.length") > 0


def test_the_first_api_call_does_not_wait_for_plotly(open_sim):
    page = open_sim("projector", cold=True)  # a first visit: plotly.js arrives over the wire
    entries = page.evaluate("""() => performance.getEntriesByType('resource').map((e) =>
        ({ name: new URL(e.name).pathname, start: e.startTime, end: e.responseEnd, bytes: e.transferSize }))""")
    plotly = next(e for e in entries if e["name"].endswith("plotly.min.js"))
    assert plotly["bytes"] > 1_000_000  # the whole file (about 1.4 MB gzipped), not a cached copy's 304
    first_api = min(e["start"] for e in entries if e["name"].startswith("/api/"))
    assert first_api < plotly["end"]  # asked while plotly was still arriving, not after it was parsed
    assert page.evaluate("document.head.querySelector('script[src$=\"plotly.min.js\"]').async") is True


def test_the_compare_note_says_where_the_neighbours_are_searched(open_sim):
    page = open_sim("projector")
    note = page.inner_text("#proj-compare-note")
    assert "searched among the shared keys only" in note and "each list found in its own table" not in note
    page.select_option("#proj-other", "wiki-run")
    page.wait_for_selector("#proj-movers")
    headers = page.eval_on_selector_all("#proj-movers th", "hs => hs.map((h) => h.innerText)")
    assert headers[-2:] == ["near in minilm (shared keys)", "near in wiki-run (shared keys)"]
