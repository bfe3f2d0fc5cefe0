"""The lookup page and the table-size heat map in Debian's chromium against a real `embedlab lab`
process: each loads without console errors, and a click, a new value or a theme ticked redraws it
with the numbers of the row, block or groups asked for."""

from __future__ import annotations

import math

import pytest

from embedlab.data.themes import THEMES
from embedlab.vectors import Vectors
from embedlab.vectors.frequency import word_rows

ROW_FLOAT32 = 1e-6  # a float32 row sent as JSON and read back by plotly
LESSON_GROUPS = ["animals", "colours", "buildings", "function words"]  # cat, dog, house, building, "the"
# whether the map's traces are named `names`, in order
SHOWN = "names => document.querySelector('#lookup-map').data.map((t) => t.name).join() === names.join()"


def plot_data(page, selector: str) -> list[dict]:
    """The traces plotly drew in `selector` (x, y, z, text as plain JSON)."""
    return page.evaluate("s => JSON.parse(JSON.stringify(document.querySelector(s).data))", selector)


def test_lookup_follows_the_chosen_token(open_sim, minilm_vectors, map_labels):
    page = open_sim("lookup")
    page.wait_for_selector("#lookup-map .annotation-text")
    texts, overlapping = map_labels(page, "#lookup-map")
    points = sum(len(t["x"]) for t in plot_data(page, "#lookup-map")[:-1])  # the ring is no word of its own
    assert overlapping == [] and "king" in texts and len(texts) >= points // 2  # most words named, none on another
    king = minilm_vectors.index_of("king")
    assert f"row {king:,} of 30,522" in page.inner_text("#lookup-row-caption")
    assert page.inner_text("#lookup-difference").endswith("over all 384 columns = 0")
    page.click('#lookup-chips button[data-word="paris"]')
    page.wait_for_function("() => document.querySelector('#lookup-row-caption').innerText.startsWith(\"'paris'\")")
    paris = minilm_vectors.index_of("paris")
    assert f"row {paris:,} of 30,522" in page.inner_text("#lookup-row-caption")
    [bars] = plot_data(page, "#lookup-bars")
    assert bars["y"] == pytest.approx(minilm_vectors.get_vector("paris").tolist(), abs=ROW_FLOAT32)
    marked = plot_data(page, "#lookup-map")[-1]  # the ring around the chosen token's point
    assert marked["customdata"] == ["paris"]
    page.wait_for_function("() => [...document.querySelectorAll('#lookup-map .annotation-text')]"
                           ".some((n) => n.textContent === 'paris')")  # fmt: skip
    assert map_labels(page, "#lookup-map")[1] == []
    assert page.inner_text("#lookup-chips button.selected") == "paris"
    assert page.inner_text("#lookup-looked-up").startswith(f"E[{paris}]")


def test_lookup_map_can_normalise_first(open_sim):
    page = open_sim("lookup")
    before = page.inner_text("#lookup-map-caption")
    assert ", centred, not normalised; axes explain" in before
    page.check("#lookup-normalize")
    page.wait_for_function("t => document.querySelector('#lookup-map-caption').innerText !== t", arg=before)
    assert ", centred, normalised; axes explain" in page.inner_text("#lookup-map-caption")


def test_the_map_shows_the_themes_ticked(open_sim):
    page = open_sim("lookup")
    page.wait_for_selector("#lookup-themes input[data-theme]")
    names = page.eval_on_selector_all("#lookup-themes input[data-theme]", "boxes => boxes.map((b) => b.dataset.theme)")
    assert names == list(THEMES)  # from /api/config, in its order
    assert [t["name"] for t in plot_data(page, "#lookup-map")] == [*THEMES, "'king'"]  # all ticked; king is a person
    page.fill("#lookup-token", "cat")
    page.dispatch_event("#lookup-token", "change")
    for name in THEMES:
        if name not in LESSON_GROUPS:
            page.uncheck(f'#lookup-themes input[data-theme="{name}"]')
    page.wait_for_function(SHOWN, arg=[*LESSON_GROUPS, "chosen", "'cat'"])
    traces = plot_data(page, "#lookup-map")
    points = {w: (x, y) for t in traces[:-1] for w, x, y in zip(t["customdata"], t["x"], t["y"], strict=True)}
    assert set(points) == {*(w for g in LESSON_GROUPS for w in THEMES[g]), "cat"}
    away = {w: math.dist(xy, points["cat"]) for w, xy in points.items() if w != "cat"}
    assert sorted(away, key=away.get)[0] in THEMES["animals"] and away["the"] > 4 * away["dog"]  # the lesson's map
    n = sum(len(THEMES[g]) for g in LESSON_GROUPS) + 1  # the PCA is fitted on these groups' rows and cat's
    assert f"PCA of {n} rows" in page.inner_text("#lookup-map-caption")
    for name in ("colours", "buildings", "function words"):
        page.uncheck(f'#lookup-themes input[data-theme="{name}"]')
    page.wait_for_function(SHOWN, arg=["animals", "chosen", "'cat'"])
    assert page.is_disabled('#lookup-themes input[data-theme="animals"]')  # the last group ticked stays ticked


def test_size_heat_map_follows_its_table_and_start(open_sim, minilm_vectors, lab_run):
    page = open_sim("size")
    [heat] = plot_data(page, "#size-heatmap")
    start = minilm_vectors.index_of("the")  # 1996: the first word, past [PAD], 998 [unused…] and 997 characters
    assert heat["y"] == minilm_vectors.index_to_key[start : start + 32] and len(heat["z"][0]) == 64
    assert page.input_value("#size-start") == str(start)  # the page says where it opened
    page.fill("#size-start", "2000")
    page.wait_for_function(
        "() => document.querySelector('#size-slice-caption').innerText.startsWith('rows 2,000–2,031')"
    )  # thousands separated
    [heat] = plot_data(page, "#size-heatmap")
    assert heat["y"] == minilm_vectors.index_to_key[2000:2032]
    assert heat["z"][0] == pytest.approx(minilm_vectors.vectors[2000, :64].tolist(), abs=ROW_FLOAT32)
    page.select_option("#size-table", "wiki-run")
    page.wait_for_function("() => document.querySelector('#size-slice-caption').innerText.includes('wiki-run')")
    [heat] = plot_data(page, "#size-heatmap")
    assert len(heat["z"][0]) == 32  # the run's rows are 32 wide: the 64 columns asked for are cut to 32
    run = Vectors.load(lab_run)  # another table opens on its own first word, not on row 2,000
    first = word_rows(run.index_to_key, 1)[0]
    assert page.input_value("#size-start") == str(first) and heat["y"][0] == run.index_to_key[first]
