"""Patches and Tied vs untied in Debian's chromium against a real `embedlab lab` process: each loads
without console errors, and its controls change what it shows."""

from __future__ import annotations

import json
import math
import urllib.request

IMAGE = 224  # the page's image side, pixels


def _plot_y(page, selector: str) -> list[float]:
    return page.evaluate(f"() => Array.from(document.querySelector('{selector}').data[0].y)")


def test_patch_size_changes_the_count(open_sim):
    page = open_sim("patches")
    assert f"{(IMAGE // 16) ** 2:,} patches" in page.inner_text("#patch-n")  # the default P = 16
    before = page.inner_text("#patch-n")
    page.select_option("#patch-size", "8")
    page.wait_for_function("t => document.querySelector('#patch-n').innerText !== t", arg=before)
    text = page.inner_text("#patch-count")
    n = (IMAGE // 8) ** 2
    assert f"{n:,} patches" in text and f"N² = {n * n:,}" in text and "8·8·3 = 192" in text


def test_clicking_a_patch_shows_its_pixels_and_embedding(open_sim):
    page = open_sim("patches")
    page.wait_for_selector("#patch-info:not(:empty)")
    before_info, before_embedding = page.inner_text("#patch-info"), _plot_y(page, "#patch-embedding")
    box = page.locator("#patch-canvas").bounding_box()
    x, y = 0.9 * box["width"], 0.15 * box["height"]
    page.click("#patch-canvas", position={"x": x, "y": y})
    page.wait_for_function("t => document.querySelector('#patch-info').innerText !== t", arg=before_info)
    row, col = math.floor(0.15 * IMAGE / 16), math.floor(0.9 * IMAGE / 16)
    assert f"(row {row}, column {col})" in page.inner_text("#patch-info")
    assert _plot_y(page, "#patch-embedding") != before_embedding
    pixels = page.evaluate("() => document.querySelector('#patch-pixels').data.map((t) => t.y.length)")
    assert pixels == [16 * 16] * 3  # one trace per channel, P·P values each


def _variance(lab_url: str, image: str, patch_size: int) -> dict:
    query = f"image={image}&size={IMAGE}&patch_size={patch_size}"
    with urllib.request.urlopen(f"{lab_url}/api/patches/variance?{query}") as r:
        return json.loads(r.read())


def test_the_variance_heat_map_draws_the_apis_values(open_sim, lab_url):
    page = open_sim("patches")
    page.wait_for_selector("#patch-variance .main-svg")
    z = "() => document.querySelector('#patch-variance').data[0].z"
    china = _variance(lab_url, "china", 16)
    assert page.evaluate(z) == china["variance"]  # 14 rows of 14, as the API sent them
    note = page.inner_text("#patch-variance-note")
    assert "Lowest variance: the patch at row 0, column 13" in note and "highest: row 4, column 6" in note

    page.select_option("#patch-image", "flower")
    page.select_option("#patch-size", "8")
    flower = _variance(lab_url, "flower", 8)
    drawn = f"v => ({z})().length === {IMAGE // 8} && ({z})()[0][0] === v"  # the new image at the new P
    page.wait_for_function(drawn, arg=flower["variance"][0][0])
    assert page.evaluate(z) == flower["variance"]
    lo, hi = flower["lowest"], flower["highest"]
    note = page.inner_text("#patch-variance-note")
    assert f"row {lo['row']}, column {lo['col']}" in note and f"highest: row {hi['row']}, column {hi['col']}" in note


def test_tying_toggle_and_h_change_the_logits(open_sim):
    page = open_sim("tying")
    page.wait_for_selector("#tying-logits .main-svg")
    tied = _plot_y(page, "#tying-logits")
    assert "tied head" in page.inner_text("#tying-top")
    page.select_option("#tying-mode", "untied")
    page.wait_for_function("() => document.querySelector('#tying-top').innerText.startsWith('untied')")
    untied = _plot_y(page, "#tying-logits")
    assert len(untied) == len(tied) and untied != tied
    # A fresh untied head's logits are ~0.02·‖h‖; the tied ones are h·E[i], of order ‖h‖².
    assert max(map(abs, untied)) < max(map(abs, tied)) / 5

    page.select_option("#tying-mode", "tied")
    page.select_option("#tying-a", "paris")
    page.wait_for_function("() => document.querySelector('#tying-top').innerText.includes('\"paris\"')")
    assert _plot_y(page, "#tying-logits") != tied
