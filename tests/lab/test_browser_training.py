"""The training simulation in Debian's chromium against a real `embedlab lab` process: Start trains a
small real run on enwiki-sample, the map and the progress line follow its frames, a click on a word
shows its row, the slider scrubs back, and the themes ticked decide which words the map shows."""

from __future__ import annotations

import math

import pytest

from embedlab.data.themes import THEMES

LIMIT = 30_000  # words: a few snapshots, seconds after enwiki-sample is read (~5 s)

# The map's points as drawn: token -> (x, y), from Plotly's own data on the div.
DRAWN = """() => Object.fromEntries(document.querySelector('#train-map').data.flatMap(
  (t) => (t.text ?? []).map((word, i) => [word, [t.x[i], t.y[i]]])))"""
# Where a word's point is on the screen, from Plotly's axes.
SCREEN = """(word) => { const d = document.querySelector('#train-map');
  const t = d._fullData.find((t) => t.text.includes(word)); const i = t.text.indexOf(word);
  const box = d.querySelector('.nsewdrag').getBoundingClientRect();
  return [box.left + d._fullLayout.xaxis.l2p(t.x[i]), box.top + d._fullLayout.yaxis.l2p(t.y[i])]; }"""
API = "async (path) => (await fetch(path)).json()"


def test_a_run_started_from_the_page_moves_the_map(open_sim, map_labels):
    page = open_sim("training")
    before = page.inner_text("#train-progress")
    page.select_option("#train-corpus", "enwiki-sample")
    page.select_option("#train-dim", "8")
    page.fill("#train-epochs", "1")
    page.fill("#train-limit", str(LIMIT))
    page.click("#train-start")
    page.wait_for_function("t => document.querySelector('#train-progress').innerText !== t", arg=before)
    page.wait_for_function("() => document.querySelector('#train-progress').innerText.includes('stopped')")
    assert f"stopped at the limit of {LIMIT:,} words" in page.inner_text("#train-progress")
    assert "dim 8, enwiki-sample" in page.inner_text("#train-progress")

    state = page.evaluate(API, "/api/training/state")
    n = state["frame_count"]
    assert n >= 3 and state["status"] == "stopped"
    page.wait_for_function(
        f"() => document.querySelector('#train-frame-label').innerText.startsWith('frame {n} of {n}')"
    )
    drawn = page.evaluate(DRAWN)
    assert set(drawn) == set(state["tokens"])
    page.wait_for_selector("#train-map .annotation-text")
    texts, overlapping = map_labels(page, "#train-map")
    assert overlapping == [] and set(texts) <= set(drawn) and len(texts) >= 10  # named, none on another
    for token, xy in zip(state["tokens"], state["frames"][-1]["coordinates"], strict=True):
        assert drawn[token] == pytest.approx(xy, rel=1e-9)  # the map shows the last frame's numbers

    # a real click on the word drawn farthest from any other, so that no neighbour's marker lies on top
    # of it (where the words land depends on the run: "battle" once covered "king")
    screen = {token: page.evaluate(SCREEN, token) for token in state["tokens"]}
    word = max(screen, key=lambda t: min(math.dist(screen[t], xy) for u, xy in screen.items() if u != t))
    page.mouse.click(*screen[word])
    page.wait_for_function("() => document.querySelector('#train-row-note').innerText.includes('‖row‖')")
    row = page.evaluate(API, f"/api/training/row?token={word}&frame={n - 1}")["row"]
    assert f"“{word}” in frame {n}: its 8 numbers" in page.inner_text("#train-row-note")
    assert page.evaluate("() => document.querySelector('#train-row').data[0].y") == pytest.approx(row, rel=1e-6)

    page.eval_on_selector("#train-frame", "s => { s.value = 0; s.dispatchEvent(new Event('input')); }")
    page.wait_for_function("() => document.querySelector('#train-frame-label').innerText.startsWith('frame 1 of')")
    first = page.evaluate(DRAWN)
    for token, xy in zip(state["tokens"], state["frames"][0]["coordinates"], strict=True):
        assert first[token] == pytest.approx(xy, rel=1e-9)  # the random start, before any training
    assert first["king"] != drawn["king"]
    assert map_labels(page, "#train-map")[1] == []  # the random start, its rows bunched near zero


def test_the_map_shows_the_themes_ticked(open_sim):
    page = open_sim("training")
    names = page.eval_on_selector_all("#train-themes input[data-theme]", "boxes => boxes.map((b) => b.dataset.theme)")
    assert names == list(THEMES)  # from /api/config, in its order
    for name in THEMES:  # before the run: the lesson's easy case, two groups
        if name not in ("numbers", "months"):
            page.uncheck(f'#train-themes input[data-theme="{name}"]')
    assert not page.is_disabled('#train-themes input[data-theme="months"]')  # two ticked: neither locked
    page.select_option("#train-corpus", "enwiki-sample")
    page.select_option("#train-dim", "8")
    page.fill("#train-epochs", "1")
    page.fill("#train-limit", str(LIMIT))
    before = page.inner_text("#train-progress")  # maybe the last test's run, stopped
    page.click("#train-start")
    page.wait_for_function("t => document.querySelector('#train-progress').innerText !== t", arg=before)
    page.wait_for_function("() => document.querySelector('#train-progress').innerText.includes('stopped')")
    state = page.evaluate(API, "/api/training/state?themes=numbers&themes=months")
    n = state["frame_count"]
    page.wait_for_function(
        f"() => document.querySelector('#train-frame-label').innerText.startsWith('frame {n} of {n}')"
    )
    drawn = page.evaluate(DRAWN)
    assert set(drawn) == set(state["tokens"]) == {*THEMES["numbers"], *THEMES["months"]}
    for token, xy in zip(state["tokens"], state["frames"][-1]["coordinates"], strict=True):
        assert drawn[token] == pytest.approx(xy, rel=1e-9)  # the map fitted on these two groups' rows

    page.check('#train-themes input[data-theme="people"]')  # after the run: the map is fitted anew
    page.wait_for_function("() => document.querySelector('#train-map').data.some((t) => t.name === 'people')")
    page.wait_for_function(
        f"() => document.querySelector('#train-frame-label').innerText.startsWith('frame {n} of {n}')"
    )
    state = page.evaluate(API, "/api/training/state?themes=people&themes=numbers&themes=months")
    drawn = page.evaluate(DRAWN)
    assert set(drawn) == set(state["tokens"]) and "king" in drawn
    for token, xy in zip(state["tokens"], state["frames"][-1]["coordinates"], strict=True):
        assert drawn[token] == pytest.approx(xy, rel=1e-9)
