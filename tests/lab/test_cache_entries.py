"""What the lab keeps in its cache is read back by type, not only by its keys: every kind of entry,
damaged with the right keys and wrong types (a string where a number goes, a list where an object
goes, NaN where a finite number goes), is rebuilt or answered with an error naming the file and the
bad value, never served as data. The app here has a cache of its own, so damage reaches no other test.

The subword ladder's files are rebuilt (tests/sims/test_subwords.py trains them again); here the
page's list of vocabularies stops offering a damaged one as trained. The arena's race and sweep
files (results, settings, finished runs) are the user's measurements: a damaged one is an error
saying how to recover, for the request or the race that read it."""

from __future__ import annotations

import json
import math
import shutil
import time

import pytest
from tests.timeouts import margin

from embedlab.arena.runner import RACE_FILE, RESULTS_FILE, RUNS, Race
from embedlab.data.races import recorded_race, recorded_sweep
from embedlab.sims.subwords import cache_file


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("lab-cache-damaged")


@pytest.fixture(scope="module")
def own_client(cache):
    """The app on MiniLM alone, with the cache folder `cache`."""
    from fastapi.testclient import TestClient

    from embedlab.lab import create_app

    with TestClient(create_app(["minilm"], cache=cache), raise_server_exceptions=False) as c:
        yield c


def _set(data: dict, path: tuple, value: object) -> dict:
    """A deep copy of `data` with the value at `path` (keys and list indices) replaced."""
    data = json.loads(json.dumps(data))
    inner = data
    for step in path[:-1]:
        inner = inner[step]
    inner[path[-1]] = value
    return data


WRONG = {"a string": "0.5", "a list": [0.5], "NaN": math.nan}  # where a finite number goes


@pytest.mark.parametrize("wrong", list(WRONG), ids=list(WRONG))
def test_a_damaged_subword_record_is_not_offered_as_trained(own_client, cache, wrong):
    folder = cache / "subwords"
    folder.mkdir(exist_ok=True)
    info = {"corpus": "enwiki-sample", "size": 1000, "vocab_size": 1000, "lines": 9, "held_out": 1,
            "train_seconds": 0.1, "count_seconds": 0.1}  # fmt: skip
    cache_file(folder, "enwiki-sample", 1000, "json").write_text("{}", encoding="utf-8")
    cache_file(folder, "enwiki-sample", 1000, "meta.json").write_text(json.dumps({**info, "vocab_size": WRONG[wrong]}))
    answer = own_client.get("/api/subwords/vocabularies")
    assert answer.status_code == 200, answer.text
    [corpus] = [c for c in answer.json()["corpora"] if c["name"] == "enwiki-sample"]
    [state] = [v for v in corpus["vocabularies"] if v["size"] == 1000]
    assert state == {"size": 1000, "trained": False, "info": None}  # trained again when the page asks for it
    cache_file(folder, "enwiki-sample", 1000, "meta.json").write_text(json.dumps(info))  # the control: served
    [state] = [v for c in own_client.get("/api/subwords/vocabularies").json()["corpora"]
               if c["name"] == "enwiki-sample" for v in c["vocabularies"] if v["size"] == 1000]  # fmt: skip
    assert state["trained"] and state["info"]["vocab_size"] == 1000
    shutil.rmtree(folder)


RACE_DAMAGE = [
    (("results", 0, "value"), "a string", "results[0]['value'] holds a string where a number goes"),
    (("results", 0, "values"), "NaN", "results[0]['values'] holds NaN where a list goes"),
    (("budget",), "a list", "budget holds a list where an object goes"),
    (("runs", 0, "bits_per_byte"), "a string", "runs[0]['bits_per_byte'] holds a string where a number goes"),
    (("runs", 0, "seed"), "a list", "runs[0]['seed'] holds a list where a number goes"),
    (("orderings", 0, "verdict"), "NaN", "orderings[0]['verdict'] holds NaN where a string goes"),
]
SWEEP_DAMAGE = [
    (("points", 0, "strategies", 0, "bits_per_byte"), "a string", "['bits_per_byte'] holds a string where a number"),
    (("winners", 0, "margin"), "NaN", "winners[0]['margin'] holds NaN where a finite number goes"),
    (("plan", "base"), "a list", "plan['base'] holds a list where an object goes"),
]


def _arena_error(client) -> tuple[int, str]:
    answer = client.get("/api/arena")
    return answer.status_code, answer.json().get("error", "")


@pytest.mark.parametrize("where", ["full", "quick"])  # the page reads both races
@pytest.mark.parametrize(("path", "wrong", "says"), RACE_DAMAGE, ids=[f"{p[0]}-{w}" for p, w, _ in RACE_DAMAGE])
def test_a_damaged_race_result_is_an_error_never_data(own_client, cache, path, wrong, says, where):
    folder = cache / "arena" / where
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RESULTS_FILE).write_text(json.dumps(_set(recorded_race(), path, WRONG[wrong])))
    try:
        status, error = _arena_error(own_client)
        assert status >= 400 and str(folder / RESULTS_FILE) in error and says in error, (status, error)
        (folder / RESULTS_FILE).write_text(json.dumps(recorded_race()))  # the control: the same file whole
        state = own_client.get("/api/arena").json()
        assert state["source"] == ("full" if where == "full" else "recorded") and (state["quick"] is None) == (
            where == "full"
        )
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize(("path", "wrong", "says"), SWEEP_DAMAGE, ids=[f"{p[0]}-{w}" for p, w, _ in SWEEP_DAMAGE])
def test_a_damaged_sweep_result_is_an_error_never_data(own_client, cache, path, wrong, says):
    folder = cache / "arena" / "sweep-quick"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RESULTS_FILE).write_text(json.dumps(_set(recorded_sweep(), path, WRONG[wrong])))
    try:
        status, error = _arena_error(own_client)
        assert status >= 400 and str(folder / RESULTS_FILE) in error and says in error, (status, error)
        (folder / RESULTS_FILE).write_text(json.dumps(recorded_sweep()))
        assert own_client.get("/api/arena").json()["sweep_source"] == "sweep-quick"
    finally:
        shutil.rmtree(folder)


# The damage is found before any training: 0.63 s at the slowest of these tests (the whole test), measured.
DAMAGE_FOUND_S = margin(0.7)


def _started(client) -> dict:
    state = client.post("/api/arena/start").json()
    deadline = time.monotonic() + DAMAGE_FOUND_S
    while state["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
        state = client.get("/api/arena").json()
    return state


@pytest.mark.parametrize("wrong", list(WRONG), ids=list(WRONG))
def test_a_quick_race_does_not_resume_from_a_damaged_run_or_setting(own_client, cache, wrong):
    """The quick race the page starts resumes from its finished runs: one damaged by type fails the
    race, naming the file and how to recover, before anything is trained."""
    folder = cache / "arena" / "quick"
    race = Race.open(folder, "quick", strategies=["bytes"], tasks=["lm"])
    run = {"strategy": "bytes", "seed": 0, "budget": "quick", **recorded_race()["runs"][0]}
    run = {**run, "strategy": "bytes", "seed": 0, "bits_per_byte": WRONG[wrong]}
    race.run_file("bytes", 0).write_text(json.dumps(run))
    try:
        state = _started(own_client)
        assert state["status"] == "failed", state
        assert str(race.run_file("bytes", 0)) in state["message"] and "remove it" in state["message"], state
        assert "['bits_per_byte'] holds" in state["message"] or "bits_per_byte holds" in state["message"], state
        setting = json.loads((folder / RACE_FILE).read_text())
        (folder / RACE_FILE).write_text(json.dumps(_set(setting, ("budget", "text_flops"), WRONG[wrong])))
        (folder / RUNS / "bytes-seed0.json").unlink()
        answer = own_client.post("/api/arena/start")  # a damaged setting is read before the start: refused at once
        assert answer.status_code == 400 and str(folder / RACE_FILE) in answer.json()["error"], answer.text
        assert "budget['text_flops'] holds" in answer.json()["error"], answer.text
    finally:
        shutil.rmtree(folder)
