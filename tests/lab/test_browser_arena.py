"""The strategy arena page in Debian's chromium against a real `embedlab lab`: bars from the real
race, n/a where a task does not apply, a bar's details on click, with no console errors."""

from __future__ import annotations

import shutil

BARS = "document.querySelector('#arena-bars')"


def test_the_arena_page_shows_the_race(open_sim, quick_race, lab_cache):
    folder, summary = quick_race
    target = lab_cache / "lab" / "arena" / "quick"
    if not target.exists():
        shutil.copytree(folder, target)
    page = open_sim("arena")
    page.wait_for_function(f"() => {BARS}.data && {BARS}.data[0].x.length === 6")
    assert "Showing the quick race" in page.inner_text("#arena-status")
    # language modelling: four text bars, the two patch strategies marked n/a, not drawn as zero
    assert page.evaluate(f"{BARS}.data[0].y.filter((y) => y !== null).length") == 4
    assert page.evaluate(f"{BARS}.layout.annotations.map((a) => a.text)") == ["n/a", "n/a"]
    bpb = {r["strategy"]: r["value"] for r in summary["results"] if r["task"] == "lm" and r["value"] is not None}
    assert page.evaluate(f"{BARS}.data[0].y[3]") == bpb["bytes"]
    page.select_option("#arena-task", "image")
    page.wait_for_function(f"() => {BARS}.layout.annotations.length === 4")
    # a bar's details: both scales and the learning curve of its seeds
    page.evaluate(f"{BARS}.emit('plotly_click', {{points: [{{customdata: 'patch-32'}}]}})")
    page.wait_for_function("() => document.querySelector('#arena-picked').innerText === 'patch 32 (ViT)'")
    assert "2,360,064" in page.inner_text("#arena-details")
    assert page.evaluate("document.querySelector('#arena-curve').data.length") == 1  # one seed in the quick race
