"""The strategy arena page in Debian's chromium against a real `embedlab lab`: bars from the real
race, n/a where a task does not apply, a bar's details on click, with no console errors."""

from __future__ import annotations

import json
import shutil
import time

from embedlab.arena.strategies import BUDGETS, STRATEGIES
from embedlab.data.races import recorded_race, recorded_sweep

BARS = "document.querySelector('#arena-bars')"
QUICK = BUDGETS["quick"].strategies  # 6 text strategies (lesson 001's four, adaptive, hashed) and 2 patch sizes
TEXT = sum(STRATEGIES[name].kind == "text" for name in QUICK)
LABELS = {name: s.label for name, s in STRATEGIES.items()}


def _cells(page, selector: str) -> list[list[str]]:
    """The body rows of a table, each a list of its cells' text."""
    script = "rs => rs.filter((r) => r.querySelector('td')).map((r) => [...r.cells].map((c) => c.innerText))"
    return page.eval_on_selector_all(f"{selector} tr", script)


def test_the_arena_page_shows_the_race(open_sim, small_race, lab_cache):
    folder, summary = small_race
    target = lab_cache / "lab" / "arena" / "quick"
    if not target.exists():
        shutil.copytree(folder, target)
    page = open_sim("arena")
    page.wait_for_function(f"() => {BARS}.data && {BARS}.data[0].x.length === {len(QUICK)}")
    assert "Showing the tiny race" in page.inner_text("#arena-status")  # the race's own budget, found in quick/
    assert "its order is how far each got" in page.inner_text("#arena-status")  # why it may differ
    # language modelling: the text bars, the two patch strategies marked n/a, not drawn as zero
    assert TEXT == 6 and page.evaluate(f"{BARS}.data[0].y.filter((y) => y !== null).length") == TEXT
    assert page.evaluate(f"{BARS}.layout.annotations.map((a) => a.text)") == ["n/a", "n/a"]
    lm = [r for r in summary["results"] if (r["task"], r["metric"]) == ("lm", "bits_per_byte")]
    bpb = {r["strategy"]: r["value"] for r in lm if r["value"] is not None}
    assert page.evaluate(f"{BARS}.data[0].y[3]") == bpb["bytes"]
    # one seed: every ordering is within noise, and the ranking says so
    verdicts = _cells(page, "#arena-verdict-table")
    assert [row[1] for row in verdicts] == [LABELS[name] for name in sorted(bpb, key=bpb.get)]
    assert {row[4] for row in verdicts[:-1]} == {"within noise"} and verdicts[0][3] == "one seed"
    page.select_option("#arena-task", "image")
    page.wait_for_function(f"() => {BARS}.layout.annotations.length === {TEXT}")
    # a bar's details: both scales and the learning curve of its seeds
    page.evaluate(f"{BARS}.emit('plotly_click', {{points: [{{customdata: 'patch-32'}}]}})")
    page.wait_for_function("() => document.querySelector('#arena-picked').innerText === 'patch 32 (ViT)'")
    assert "2,360,064" in page.inner_text("#arena-details")
    assert page.evaluate("document.querySelector('#arena-curve').data.length") == 1  # one seed in the quick race


def test_counts_read_as_counts(open_sim, small_race, lab_cache):
    folder, summary = small_race
    target = lab_cache / "lab" / "arena" / "quick"
    if not target.exists():
        shutil.copytree(folder, target)
    page = open_sim("arena")
    page.wait_for_function(f"() => {BARS}.data && {BARS}.data[0].x.length === {len(QUICK)}")
    page.select_option("#arena-task", "cost")
    page.evaluate(f"{BARS}.emit('plotly_click', {{points: [{{customdata: 'large-v-untied'}}]}})")
    page.wait_for_function("() => document.querySelector('#arena-picked').innerText === 'large V + untied'")
    rows = page.eval_on_selector_all(
        "#arena-details table:nth-of-type(2) tr", "rs => rs.map((r) => [...r.cells].map((c) => c.innerText))"
    )
    params = next(r for r in rows if r[1] == "embedding params arena")
    expected = next(
        r["value"]
        for r in summary["results"]
        if r["strategy"] == "large-v-untied" and r["metric"] == "embedding_params_arena"
    )
    assert params[2] == f"{round(expected):,}" and params[4] == "parameters"  # 4,096,000, not 4096000.0000


def test_a_running_race_says_so_names_strategies_and_stops_polling_when_left(open_sim, small_race, lab_cache):
    folder, summary = small_race
    target = lab_cache / "lab" / "arena" / "quick"
    if not target.exists():
        shutil.copytree(folder, target)
    # as a killed race leaves it: one image run missing (trained again on its tiny budget), no results yet
    (target / "results.json").unlink()
    (target / "runs" / "patch-32-seed0.json").unlink()
    page = open_sim("arena")
    # no finished race in the cache: the page opens on the recorded full race that ships with embedlab
    assert page.inner_text("#arena-status").startswith("Showing the full race recorded on 2026-11-25")
    # its ranking on bits per byte, each step down with the verdict results.json records for it
    recorded = recorded_race()
    lm = {r["strategy"]: r for r in recorded["results"] if r["metric"] == "bits_per_byte" and r["value"] is not None}
    ranked = sorted(lm, key=lambda name: lm[name]["value"])
    judged = {(o["winner"], o["loser"]): o["verdict"] for o in recorded["orderings"] if o["metric"] == "bits_per_byte"}
    page.wait_for_selector("#arena-verdict-table")
    verdicts = _cells(page, "#arena-verdict-table")
    assert [row[1] for row in verdicts] == [LABELS[name] for name in ranked]
    assert [row[4] for row in verdicts[:-1]] == [judged[a, b] for a, b in zip(ranked, ranked[1:], strict=False)]
    assert "holds" in [row[4] for row in verdicts] and verdicts[0][3].count(" – ") == 1  # 3 seeds: an interval
    page.click("#arena-start")
    page.wait_for_function(
        "() => document.querySelector('#arena-status').innerText.startsWith('A quick race is running')"
    )
    status = page.inner_text("#arena-status")
    assert "Meanwhile the bars show the full race recorded on" in status
    # the progress table names strategies as the bars do, not by their ids
    page.wait_for_function(
        "() => document.querySelector('#arena-progress-table')?.innerText.includes('patch 32 (ViT)')"
    )
    names = page.eval_on_selector_all("#arena-progress-table tr td:first-child", "cs => cs.map((c) => c.innerText)")
    assert "subword BPE" in names and "bpe-32k" not in names
    # another page: the arena page asks no more
    asked = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/api/arena") else None)
    page.evaluate("location.hash = '#lookup'")
    page.wait_for_selector('#sim[data-sim="lookup"][data-ready="true"]')
    page.wait_for_timeout(2500)  # two and a half poll intervals
    assert len(asked) <= 1  # at most a poll already under way when the page was left
    running = json.loads(page.evaluate("fetch('/api/arena').then((r) => r.text())"))
    assert running["status"] == "running"  # the race itself goes on on the server
    deadline = time.monotonic() + 300
    while running["status"] == "running":
        assert time.monotonic() < deadline, "the resumed race did not finish"
        time.sleep(1)
        running = json.loads(page.evaluate("fetch('/api/arena').then((r) => r.text())"))
    assert running["status"] == "finished"
    # put the session's race back as it was, for the tests that compare with it
    shutil.rmtree(target)
    shutil.copytree(folder, target)


def test_the_sweep_panel_draws_the_sweep_in_the_cache(open_sim, tiny_sweep, lab_cache):
    folder, _, summary = tiny_sweep
    target = lab_cache / "lab" / "arena" / "sweep-quick"
    shutil.rmtree(target, ignore_errors=True)  # none of this machine's: the page opens on the recorded sweep
    sweep = "document.querySelector('#arena-sweep')"
    page = open_sim("arena")
    page.wait_for_function(f"() => {sweep}.data && {sweep}.data.length === 8")  # 4 strategies × 2 widths
    status = page.inner_text("#arena-sweep-status")
    assert status.startswith("Showing the full sweep recorded on 2026-11-25") and "embedlab arena --sweep" in status
    recorded = recorded_sweep()
    at128 = [p for p in recorded["points"] if p["width"] == 128]
    small = [r for p in at128 for r in p["strategies"] if r["strategy"] == "small-v-tied"]
    trace = page.evaluate(f"{sweep}.data.find((t) => t.name === 'small V + tied' && t.xaxis === 'x2')")
    assert trace["y"] == [r["bits_per_byte"] for r in small] and len(small) == len(recorded["plan"]["shares"])
    shutil.copytree(folder, target)
    page = open_sim("arena")
    page.wait_for_function(f"() => {sweep}.data && {sweep}.data.length === 8")  # 4 strategies × 2 widths
    assert "Showing the tiny sweep" in page.inner_text("#arena-sweep-status")
    bytes64 = [r for p in summary["points"] if p["width"] == 64 for r in p["strategies"] if r["strategy"] == "bytes"]
    trace = page.evaluate(f"{sweep}.data.find((t) => t.name === 'character-level' && t.xaxis === 'x2')")
    assert trace["y"] == [r["bits_per_byte"] for r in bytes64] and trace["x"] == [r["train_flops"] for r in bytes64]
    assert page.evaluate(f"{sweep}.layout.xaxis.type") == "log"
    assert "Tao et al. 2024" in page.inner_text("#arena-anchor")
