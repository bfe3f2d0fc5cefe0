"""The strategy arena page in Debian's chromium: the full race with the quick race beside it (each
named by its budget, neither replacing the other), each ranking judged as one Holm family, a bar's
details on click, the sweep's lines in the colours its legend names, the details clear of the learning
curve's axes, and a quick race run from the page, with no console errors.

The page's own lab runs in this process (uvicorn in a thread), its quick race the session's small race's
tiny budget (`ArenaLab(budget=)`), so the button resumes that race in seconds where the real lab's
would train the three-minute quick race; and its cache is this module's, so no other test sees it."""

from __future__ import annotations

import json
import shutil
import threading
import time

import pytest
from tests.lab.conftest import free_port
from tests.timeouts import LAB_START_S, LAB_STOP_S, margin

from embedlab.arena.claims import holm_orderings
from embedlab.arena.runner import RESULTS_FILE, RUNS, Race
from embedlab.arena.strategies import BUDGETS, STRATEGIES
from embedlab.data.races import recorded_race, recorded_sweep
from embedlab.sims.arena import ArenaLab

BARS = "document.querySelector('#arena-bars')"
SWEEP = "document.querySelector('#arena-sweep')"
QUICK = BUDGETS["quick"].strategies  # 6 text strategies (lesson 001's four, adaptive, hashed) and 2 patch sizes
TEXT = sum(STRATEGIES[name].kind == "text" for name in QUICK)
LABELS = {name: s.label for name, s in STRATEGIES.items()}
RETRAIN_S = margin(30.0)  # the small race resumed, one tiny image run trained again: under 30 s (load 16)


@pytest.fixture(scope="module")
def arena_lab(lab_run, small_race, tmp_path_factory):
    """(base URL, arena folder) of a lab serving the small run, whose quick race is the small race's budget."""
    import uvicorn

    from embedlab.lab import create_app

    folder, _ = small_race
    cache = tmp_path_factory.mktemp("arena-lab")
    app = create_app([str(lab_run)], cache=cache)
    # registered before the first request asks for it (lab.deps.get_arena would make the quick-budget one)
    app.state.lab.service("arena", lambda: ArenaLab(cache / "arena", budget=Race.read_budget(folder)))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="arena-lab", daemon=True)
    thread.start()
    deadline = time.monotonic() + LAB_START_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the arena's lab did not start"
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}", cache / "arena"
    server.should_exit = True
    thread.join(LAB_STOP_S)


def _cells(page, selector: str) -> list[list[str]]:
    """The body rows of a table, each a list of its cells' text."""
    script = "rs => rs.filter((r) => r.querySelector('td')).map((r) => [...r.cells].map((c) => c.innerText))"
    return page.eval_on_selector_all(f"{selector} tr", script)


def _ranked(race: dict, metric: str) -> tuple[list[str], dict]:
    """The race's strategies ranked on `metric` (lower first) and its Holm verdicts by (winner, loser)."""
    rows = {r["strategy"]: r for r in race["results"] if r["metric"] == metric and r["value"] is not None}
    judged = {(o["winner"], o["loser"]): o["verdict"] for o in holm_orderings(race) if o["metric"] == metric}
    return sorted(rows, key=lambda name: rows[name]["value"]), judged


def _boxes(page, selector: str) -> list[dict]:
    return page.eval_on_selector_all(selector, "ns => ns.map((n) => n.getBoundingClientRect().toJSON())")


def _meet(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def _check_the_sweep_and_the_layout(page) -> None:
    """Every line the sweep draws, in every width's panel, is in a colour its legend names, one colour a
    strategy; the direction sentence says what docs/arena.md says; no details table meets the curve's axes."""
    page.wait_for_function(f"() => {SWEEP}?.data?.length === 8")  # 4 strategies × 2 widths
    stroke = "ns => ns.map((n) => getComputedStyle(n).stroke)"
    drawn = page.eval_on_selector_all("#arena-sweep .scatterlayer .trace .js-line", stroke)
    named = page.eval_on_selector_all("#arena-sweep .legend .traces .js-line", stroke)
    assert len(drawn) == 8 and len(named) == len(set(named)) == 4, (drawn, named)
    assert set(drawn) == set(named)  # the d = 128 panel once drew four colours no legend entry had
    by_name = page.evaluate(f"{SWEEP}.data.map((t) => [t.name, t.line.color])")
    assert all(dict(by_name[:4])[name] == paint for name, paint in by_name[4:])  # one colour per strategy
    direction = page.inner_text("#arena-direction")
    assert "the arena resolves no change of winner, with compute or with width" in direction, direction
    assert "none of its 10 winners beats the runner-up beyond noise (1 seed a point)" in direction, direction
    assert "32K becomes the optimum between N = 703M (where it overtakes 24K" in direction, direction  # a range
    page.wait_for_selector("#arena-curve .yaxislayer-above")
    axes = _boxes(page, "#arena-curve .yaxislayer-above, #arena-curve .xaxislayer-above, #arena-curve .g-ytitle")
    tables = _boxes(page, "#arena-details table, #arena-figures table")
    assert len(tables) == 2 and len(axes) >= 2
    assert not [(t, a) for t in tables for a in axes if _meet(t, a)]  # the figures table once ran into the y axis


def test_the_full_race_stays_beside_a_quick_race_run_from_the_page(open_sim, arena_lab, small_race):
    url, arena = arena_lab
    folder, summary = small_race
    # as a killed quick race leaves it: one image run missing (trained again on its tiny budget), no results
    shutil.copytree(folder, arena / "quick")
    (arena / "quick" / RESULTS_FILE).unlink()
    (arena / "quick" / RUNS / "patch-32-seed0.json").unlink()
    page = open_sim("arena", url=url)
    # no finished quick race yet: the full race recorded with embedlab, named by its budget
    assert page.inner_text("#arena-status").startswith("Showing the full race recorded on 2026-11-25")
    recorded = recorded_race()
    page.wait_for_function(f"() => {BARS}?.data?.length === 1")
    assert page.evaluate(f"{BARS}.data[0].name") == "full race, 3 seeds, recorded 2026-11-25"
    # its ranking on bits per byte, each step down with its verdict among the race's orderings (Holm)
    ranked, judged = _ranked(recorded, "bits_per_byte")
    verdicts = _cells(page, "#arena-verdict-table")
    assert [row[1] for row in verdicts] == [LABELS[name] for name in ranked]
    assert [row[4] for row in verdicts[:-1]] == [judged[a, b] for a, b in zip(ranked, ranked[1:], strict=False)]
    assert verdicts[0][3].count(" – ") == 1  # 3 seeds: an interval
    # the file recorded "holds" for adaptive input over BPE, judged alone; among the race's 502, within noise
    alone = {(o["winner"], o["loser"]): o["verdict"] for o in recorded["orderings"] if o["metric"] == "bits_per_byte"}
    assert ranked[:2] == ["large-v-adaptive", "bpe-32k"] and alone[tuple(ranked[:2])] == "holds"
    assert verdicts[0][4] == "within noise"
    _check_the_sweep_and_the_layout(page)
    # the quick race: its progress, named as the bars name strategies
    page.click("#arena-start")
    page.wait_for_function(
        "() => document.querySelector('#arena-status').innerText.startsWith('A quick race is running')"
    )
    assert "Meanwhile the bars show the full race recorded on" in page.inner_text("#arena-status")
    page.wait_for_function(
        "() => document.querySelector('#arena-progress-table')?.innerText.includes('patch 32 (ViT)')"
    )
    names = page.eval_on_selector_all("#arena-progress-table tr td:first-child", "cs => cs.map((c) => c.innerText)")
    assert "subword BPE" in names and "bpe-32k" not in names
    # another page: the arena page asks no more, and the race goes on on the server
    asked = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/api/arena") else None)
    page.evaluate("location.hash = '#lookup'")
    page.wait_for_selector('#sim[data-sim="lookup"][data-ready="true"]')
    running = json.loads(page.evaluate("fetch('/api/arena').then((r) => r.text())"))
    assert running["status"] == "running"  # the image run is still training
    page.wait_for_timeout(2500)  # two and a half poll intervals
    assert len(asked) <= 2  # our own fetch, and at most a poll already under way when the page was left
    deadline = time.monotonic() + RETRAIN_S
    while running["status"] == "running":
        assert time.monotonic() < deadline, "the resumed race did not finish"
        time.sleep(1)
        running = json.loads(page.evaluate("fetch('/api/arena').then((r) => r.text())"))
    assert running["status"] == "finished", running["message"]
    # back on the arena page: both races, each named by its budget, the full one first
    page.evaluate("location.hash = '#arena'")
    page.wait_for_function(f"() => {BARS}?.data?.length === 2")
    assert page.evaluate(f"{BARS}.data.map((t) => t.name)") == [
        "full race, 3 seeds, recorded 2026-11-25",
        "tiny race, 1 seed",
    ]
    status = page.inner_text("#arena-status")
    assert "the full race recorded on 2026-11-25" in status and "beside it the tiny race run here" in status
    assert "its order is how far each got" in status  # why the two may differ
    # language modelling: text bars in both, the two patch strategies n/a, not drawn as zero
    assert page.evaluate(f"{BARS}.data[1].y.filter((y) => y !== null).length") == TEXT == 6
    assert page.evaluate(f"{BARS}.layout.annotations.map((a) => a.text)") == ["n/a", "n/a"]
    tiny = {r["strategy"]: r["value"] for r in summary["results"] if r["metric"] == "bits_per_byte"}
    x = page.evaluate(f"{BARS}.data[1].x")
    assert page.evaluate(f"{BARS}.data[1].y[{x.index(LABELS['bytes'])}]") == tiny["bytes"]
    # the quick race's own ranking: one seed, so every step within noise
    quick_ranked, _ = _ranked(summary, "bits_per_byte")
    quick = _cells(page, "#arena-verdict-table-quick")
    assert [row[1] for row in quick] == [LABELS[name] for name in quick_ranked]
    assert {row[4] for row in quick[:-1]} == {"within noise"} and quick[0][3] == "one seed"
    assert len(_cells(page, "#arena-verdict-table")) == len(verdicts)  # the full race's ranking is still there
    # a bar's details, in the race it belongs to
    page.select_option("#arena-task", "image")
    page.wait_for_function(f"() => {BARS}?.layout?.annotations?.length === {len(ranked)}")  # every text strategy n/a
    page.evaluate(f"{BARS}.emit('plotly_click', {{points: [{{customdata: ['patch-32', 'quick']}}]}})")
    page.wait_for_function("() => document.querySelector('#arena-picked').innerText === 'patch 32 (ViT)'")
    assert page.inner_text("#arena-picked-race") == "in the tiny race, 1 seed"
    assert "2,360,064" in page.inner_text("#arena-details")
    assert page.evaluate("document.querySelector('#arena-curve').data.length") == 1  # one seed
    page.evaluate(f"{BARS}.emit('plotly_click', {{points: [{{customdata: ['patch-32', 'race']}}]}})")
    page.wait_for_function("() => document.querySelector('#arena-curve')?.data?.length === 3")  # the full race's seeds
    # counts read as counts: the cost task's parameters with separators, not 4096000.0000
    page.select_option("#arena-task", "cost")
    page.evaluate(f"{BARS}.emit('plotly_click', {{points: [{{customdata: ['large-v-untied', 'quick']}}]}})")
    page.wait_for_function("() => document.querySelector('#arena-picked').innerText === 'large V + untied'")
    params = next(r for r in _cells(page, "#arena-figures table") if r[1] == "embedding params arena")
    expected = next(r["value"] for r in summary["results"]
                    if r["strategy"] == "large-v-untied" and r["metric"] == "embedding_params_arena")  # fmt: skip
    assert params[2] == f"{round(expected):,}" and params[4] == "parameters"  # 4,096,000
    _check_the_sweep_and_the_layout(page)  # and with two races on the page


def test_the_sweep_panel_draws_the_sweep_in_the_cache(open_sim, tiny_sweep, lab_cache):
    folder, _, summary = tiny_sweep
    target = lab_cache / "lab" / "arena" / "sweep-quick"
    shutil.rmtree(target, ignore_errors=True)  # none of this machine's: the page opens on the recorded sweep
    sweep = "document.querySelector('#arena-sweep')"
    page = open_sim("arena")
    page.wait_for_function(f"() => {sweep}?.data?.length === 8")  # 4 strategies × 2 widths
    status = page.inner_text("#arena-sweep-status")
    assert status.startswith("Showing the full sweep recorded on 2026-11-25") and "embedlab arena --sweep" in status
    recorded = recorded_sweep()
    at128 = [p for p in recorded["points"] if p["width"] == 128]
    small = [r for p in at128 for r in p["strategies"] if r["strategy"] == "small-v-tied"]
    trace = page.evaluate(f"{sweep}.data.find((t) => t.name === 'small V + tied' && t.xaxis === 'x2')")
    assert trace["y"] == [r["bits_per_byte"] for r in small] and len(small) == len(recorded["plan"]["shares"])
    shutil.copytree(folder, target)
    page = open_sim("arena")
    page.wait_for_function(f"() => {sweep}?.data?.length === 8")  # 4 strategies × 2 widths
    assert "Showing the tiny sweep" in page.inner_text("#arena-sweep-status")
    bytes64 = [r for p in summary["points"] if p["width"] == 64 for r in p["strategies"] if r["strategy"] == "bytes"]
    trace = page.evaluate(f"{sweep}.data.find((t) => t.name === 'character-level' && t.xaxis === 'x2')")
    assert trace["y"] == [r["bits_per_byte"] for r in bytes64] and trace["x"] == [r["train_flops"] for r in bytes64]
    assert page.evaluate(f"{sweep}.layout.xaxis.type") == "log"
    assert "Tao et al. 2024" in page.inner_text("#arena-anchor")
