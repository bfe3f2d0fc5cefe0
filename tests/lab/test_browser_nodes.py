"""Graph nodes in Debian's chromium against a real `embedlab lab` process: the map's points are the API's
snapshot points, each member in its real club's colour (the colours /api/config gives), the accuracy
shown is the snapshot's, and the slider, the step buttons and the p/q controls move through real answers."""

from __future__ import annotations

import pytest

# each trace of the map as drawn: its name, points, labels and marker colour
TRACES = """() => document.querySelector('#nodes-map').data.map((t) =>
  ({name: t.name, x: t.x, y: t.y, text: t.text, color: t.marker?.color}))"""
POINT_TOL = 1e-6  # float32 points through JSON twice


def _api(page, **settings):
    query = "&".join(f"{k}={v}" for k, v in {"p": 1, "q": 1, "walks": 1, "seed": 1, **settings}.items())
    return page.evaluate(f"async () => (await fetch('/api/nodes?{query}')).json()")


def _check_map(page, answer, at: int) -> None:
    snapshot, colours = answer["snapshots"][at], page.evaluate("async () => (await fetch('/api/config')).json()")
    colours = colours["limits"]["nodes"]["colours"]
    traces = page.evaluate(TRACES)
    ties, clubs = traces[0], traces[1:]
    assert ties["name"] == "ties" and len(ties["x"]) == 3 * len(answer["edges"])
    assert [t["name"] for t in clubs] == answer["club_names"] == ["Mr. Hi", "Officer"]
    for club, trace in enumerate(clubs):
        members = [i for i, c in enumerate(answer["clubs"]) if c == club]
        assert trace["text"] == [answer["keys"][i] for i in members] and trace["color"] == colours[club]
        assert trace["x"] == pytest.approx([snapshot["points"][i][0] for i in members], abs=POINT_TOL)
        assert trace["y"] == pytest.approx([snapshot["points"][i][1] for i in members], abs=POINT_TOL)
    score = page.inner_text("#nodes-score")
    assert score.startswith(f"k-means accuracy {snapshot['accuracy']:.3f}, ARI {snapshot['ari']:.2f}")
    assert f"({round(snapshot['accuracy'] * 34)} of 34 members)" in score
    assert all(f"{b['dim']} dims {b['accuracy']:.3f}" in score for b in answer["spectral"])


def test_the_map_is_the_apis_snapshot(open_sim):
    page = open_sim("nodes")
    answer = _api(page)
    last = len(answer["snapshots"]) - 1
    assert (
        page.input_value("#nodes-snapshot") == str(last) and page.inner_text("#nodes-passes") == "after 16 of 16 passes"
    )
    _check_map(page, answer, last)
    assert answer["snapshots"][last]["accuracy"] > 0.9  # 0.941: the factions found
    page.click("#nodes-back")
    page.wait_for_function("() => document.querySelector('#nodes-passes').innerText === 'after 8 of 16 passes'")
    _check_map(page, answer, last - 1)
    page.fill("#nodes-snapshot", "0")
    page.dispatch_event("#nodes-snapshot", "input")
    page.wait_for_function("() => document.querySelector('#nodes-passes').innerText.startsWith('before training')")
    _check_map(page, answer, 0)
    assert answer["snapshots"][0]["accuracy"] < 0.6  # 0.529: the seeded init knows no clubs
    rows = page.eval_on_selector_all("#nodes-scores tr", "rs => rs.map((r) => r.innerText)")
    assert len(rows) == 1 + len(answer["snapshots"]) + len(answer["spectral"]) and "current" in page.get_attribute(
        "#nodes-scores tr:nth-child(2)", "class"
    )


def test_a_new_setting_draws_its_own_run(open_sim):
    page = open_sim("nodes")
    answer = _api(page, q=0.5, seed=2)
    first = answer["snapshots"][-1]["points"][answer["clubs"].index(0)][0]  # the Mr. Hi trace's first point
    page.select_option("#nodes-q", "0.5")
    page.fill("#nodes-seed", "2")
    page.dispatch_event("#nodes-seed", "change")
    # subtle: the q change and the seed change are two requests; wait for the second one's map
    page.wait_for_function("x => Math.abs(document.querySelector('#nodes-map').data[1].x[0] - x) < 1e-6", arg=first)
    page.wait_for_function("() => document.querySelector('#nodes-status').innerText === ''")
    _check_map(page, answer, len(answer["snapshots"]) - 1)
