"""The strategy arena's routes through TestClient: the race found in the lab's cache, and a quick
race started from the page (here: the session's small race resumed from its finished runs, on its own
tiny budget, so it ends in seconds)."""

from __future__ import annotations

import shutil
import time

import pytest

from embedlab.arena.strategies import BUDGETS


@pytest.fixture(scope="module")
def cached_race(small_race, lab_cache):
    """The session's small race, where the lab looks for its quick race: CACHE/lab/arena/quick."""
    folder, summary = small_race
    target = lab_cache / "lab" / "arena" / "quick"
    if not target.exists():
        shutil.copytree(folder, target)
    return target, summary


def test_with_no_race_in_the_cache_the_page_shows_the_recorded_full_race(tmp_path):
    from embedlab.data.races import recorded_race
    from embedlab.sims.arena import ArenaLab

    source, race = ArenaLab(tmp_path).race()
    assert source == "recorded" and race == recorded_race()
    assert race["budget"]["name"] == "full" and race["budget"]["seeds"] == [0, 1, 2]
    assert {"date", "machine", "command", "load", "commit"} <= race["recorded"].keys()


def test_with_no_sweep_in_the_cache_the_page_shows_the_recorded_full_sweep(tmp_path):
    from embedlab.data.races import recorded_sweep
    from embedlab.sims.arena import ArenaLab

    source, sweep = ArenaLab(tmp_path).sweep()
    assert source == "recorded" and sweep == recorded_sweep()
    assert sweep["plan"]["name"] == "full"
    assert {"date", "machine", "command", "load", "commit"} <= sweep["recorded"].keys()


def test_the_page_shows_the_race_in_the_cache(client, cached_race):
    _, summary = cached_race
    state = client.get("/api/arena").json()
    assert state["status"] == "idle" and state["source"] == "quick" and state["progress"] == []
    assert state["race"]["results"] == summary["results"]
    assert client.get("/api/config").json()["limits"]["arena"]["tasks"] == ["lm", "rare", "image", "cost"]


def test_a_started_race_resumes_and_finishes(client, cached_race):
    folder, summary = cached_race
    (folder / "results.json").unlink()  # as a killed race leaves it: runs on disk, no results yet
    state = client.post("/api/arena/start").json()
    assert state["status"] in ("running", "finished")
    deadline = time.monotonic() + 120
    while state["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.5)
        state = client.get("/api/arena").json()
    assert state["status"] == "finished", state["message"]
    assert {p["stage"] for p in state["progress"]} == {"resumed"} and len(state["progress"]) == len(
        BUDGETS["quick"].strategies
    )
    assert state["race"]["results"] == summary["results"]


def test_the_sweep_in_the_cache_is_shown_beside_the_race(client, lab_cache, tiny_sweep):
    folder, _, summary = tiny_sweep
    state = client.get("/api/arena").json()
    if not (lab_cache / "lab" / "arena" / "sweep-quick").exists():  # no sweep of this machine yet
        assert state["sweep_source"] == "recorded" and state["sweep"]["recorded"]["date"] == "2026-11-25"
        shutil.copytree(folder, lab_cache / "lab" / "arena" / "sweep-quick")
    state = client.get("/api/arena").json()
    assert state["sweep_source"] == "sweep-quick"
    assert state["sweep"]["points"] == summary["points"] and state["sweep"]["anchor"] == summary["anchor"]
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert "sweep" in schema["ArenaState"]["properties"]


def test_a_quick_race_is_not_started_in_a_folder_holding_other_files(tmp_path):
    """The lab's quick race folder holds someone's own file and no race: the race fails at once, naming
    the folder, and writes nothing there."""
    from embedlab.sims.arena import ArenaLab

    quick = tmp_path / "quick"
    quick.mkdir()
    (quick / "notes.txt").write_text("mine")
    arena = ArenaLab(tmp_path)
    arena.start()
    arena.close(timeout=30)
    state = arena.state()
    assert state.status == "failed" and f"{quick} exists and holds no race" in state.message, state
    assert [p.name for p in quick.iterdir()] == ["notes.txt"] and (quick / "notes.txt").read_text() == "mine"
