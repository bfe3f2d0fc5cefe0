"""The strategy arena's routes through TestClient: the full race (recorded, or one in the lab's
cache) with the quick race found beside it, never in its place; each race's orderings judged as one
Holm family; and a quick race started from the page, which resumes only a race on the lab's quick
budget (here: the session's small race, resumed from its finished runs on its own tiny budget by a lab
whose quick race is that budget, so it ends in seconds)."""

from __future__ import annotations

import json
import shutil

import pytest
from tests.timeouts import margin

from embedlab.arena.claims import holm_orderings
from embedlab.arena.runner import RACE_FILE, RESULTS_FILE, Race
from embedlab.arena.strategies import BUDGETS
from embedlab.data.races import recorded_race
from embedlab.errors import InvalidValueError
from embedlab.sims.arena import ArenaLab

RESUME_S = margin(12.0)  # the small race resumed from all its runs (results and figures only): 11.6 s at load 13


@pytest.fixture(scope="module")
def cached_race(small_race, lab_cache):
    """The session's small race, where the lab looks for its quick race: CACHE/lab/arena/quick."""
    folder, summary = small_race
    target = lab_cache / "lab" / "arena" / "quick"
    if not target.exists():
        shutil.copytree(folder, target)
    return target, summary


def test_with_no_race_in_the_cache_the_page_shows_the_recorded_full_race(tmp_path):
    source, race = ArenaLab(tmp_path).race()
    recorded = recorded_race()
    assert source == "recorded" and {k: v for k, v in race.items() if k != "orderings"} == {
        k: v for k, v in recorded.items() if k != "orderings"
    }
    assert race["budget"]["name"] == "full" and race["budget"]["seeds"] == [0, 1, 2]
    assert {"date", "machine", "command", "load", "commit"} <= race["recorded"].keys()
    assert ArenaLab(tmp_path).quick() is None


def test_the_recorded_race_is_served_with_its_orderings_judged_as_one_holm_family(tmp_path):
    race = ArenaLab(tmp_path).race()[1]
    recorded = recorded_race()["orderings"]
    assert race["orderings"] == holm_orderings(recorded_race()) and len(race["orderings"]) == len(recorded) == 502
    verdicts = {(o["metric"], o["winner"], o["loser"]): o["verdict"] for o in race["orderings"]}
    # held at 95% alone (the file's verdict), within noise among the race's 502 claims (p_holm 0.23)
    assert next(o["verdict"] for o in recorded if (o["metric"], o["winner"]) == ("accuracy", "patch-32")) == "holds"
    assert verdicts["accuracy", "patch-32", "patch-16"] == "within noise"
    assert sum(v == "holds" for v in verdicts.values()) == 232  # of the 444 the file records (test_claims.py)


def test_with_no_sweep_in_the_cache_the_page_shows_the_recorded_full_sweep(tmp_path):
    from embedlab.data.races import recorded_sweep

    source, sweep = ArenaLab(tmp_path).sweep()
    assert source == "recorded" and sweep == recorded_sweep()
    assert sweep["plan"]["name"] == "full"
    assert {"date", "machine", "command", "load", "commit"} <= sweep["recorded"].keys()


def test_the_quick_race_in_the_cache_is_shown_beside_the_full_race(client, cached_race):
    _, summary = cached_race
    state = client.get("/api/arena").json()
    assert state["status"] == "idle" and state["progress"] == []
    assert state["source"] == "recorded" and state["race"]["budget"]["name"] == "full"  # kept, not replaced
    assert state["quick"]["budget"]["name"] == "tiny" and state["quick"]["results"] == summary["results"]
    assert state["quick"]["orderings"] == holm_orderings(summary)
    assert client.get("/api/config").json()["limits"]["arena"]["tasks"] == ["lm", "rare", "image", "cost"]


def test_a_full_race_in_the_cache_replaces_the_recorded_one(tmp_path, small_race):
    folder, summary = small_race
    shutil.copytree(folder, tmp_path / "full")
    source, race = ArenaLab(tmp_path).race()
    assert source == "full" and race["results"] == summary["results"] and ArenaLab(tmp_path).quick() is None


def test_a_quick_folder_holding_another_race_is_refused_not_resumed(client, cached_race):
    """The quick race resumes only a race on the quick budget: the small race in quick/ (its budget
    "tiny") is refused at once, with a 4xx naming the folder and both budgets, and left as it was."""
    folder, _ = cached_race
    before = {p.relative_to(folder): p.stat().st_mtime_ns for p in folder.rglob("*")}
    answer = client.post("/api/arena/start")
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert f"{folder} holds a tiny race on cpu, not the lab's quick race on cpu" in error, error
    assert {p.relative_to(folder): p.stat().st_mtime_ns for p in folder.rglob("*")} == before
    assert client.get("/api/arena").json()["status"] == "idle"


def test_a_full_race_begun_in_the_quick_folder_is_refused(tmp_path):
    Race.open(tmp_path / "quick", "full")  # begun there by hand (`embedlab arena --out …/quick`), no run yet
    with pytest.raises(InvalidValueError, match="holds a full race on cpu, not the lab's quick race on cpu"):
        ArenaLab(tmp_path).start()
    assert Race.read_budget(tmp_path / "quick").name == "full"  # left as it was


def test_a_started_race_resumes_and_finishes(small_race, tmp_path):
    """A lab whose quick race is the small race's tiny budget resumes it from its runs (as a killed
    race leaves them: no results yet) and serves it as its quick race."""
    folder, summary = small_race
    shutil.copytree(folder, tmp_path / "quick")
    (tmp_path / "quick" / RESULTS_FILE).unlink()
    arena = ArenaLab(tmp_path, budget=Race.read_budget(folder))
    state = arena.start()
    assert state.status in ("running", "finished") and state.quick is None
    arena.close(timeout=RESUME_S)
    state = arena.state()
    assert state.status == "finished", state.message
    assert {p.stage for p in state.progress} == {"resumed"} and len(state.progress) == len(BUDGETS["quick"].strategies)
    assert state.quick["results"] == summary["results"] and state.source == "recorded"
    assert json.loads((tmp_path / "quick" / RACE_FILE).read_text())["budget"]["name"] == "tiny"


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
    """The lab's quick race folder holds someone's own file and no race: the start is refused at once,
    naming the folder, and writes nothing there."""
    quick = tmp_path / "quick"
    quick.mkdir()
    (quick / "notes.txt").write_text("mine")
    arena = ArenaLab(tmp_path)
    with pytest.raises(InvalidValueError, match=f"{quick} exists and holds no race"):
        arena.start()
    assert arena.state().status == "idle"
    assert [p.name for p in quick.iterdir()] == ["notes.txt"] and (quick / "notes.txt").read_text() == "mine"
