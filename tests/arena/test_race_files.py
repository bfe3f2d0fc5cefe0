"""The race folder's files read back: race.json and results.json through Race, a damaged one named
with how to get past it, and `force` starting over even when race.json is damaged."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from embedlab.arena.runner import RACE_FILE, RESULTS_FILE, RUNS, Race
from embedlab.arena.strategies import BUDGETS
from embedlab.errors import FileFormatError, InvalidValueError, OutputExistsError

START_OVER = "remove the folder, or force to start a new race there"


def test_the_setting_and_results_read_back(tmp_path):
    race = Race.open(tmp_path, "quick", strategies=["bytes"], tasks=["lm"])
    setting = Race.read_setting(tmp_path)
    assert setting["budget"]["name"] == "quick" and setting["strategies"] == ["bytes"] and setting["tasks"] == ["lm"]
    assert Race.read_results(tmp_path) is None  # before the race ends
    summary = {
        "budget": setting["budget"],
        "device": "cpu",
        "strategies": [],
        "tasks": ["lm"],
        "results": [],
        "runs": [],
    }
    (tmp_path / RESULTS_FILE).write_text(json.dumps(summary))
    assert Race.read_results(tmp_path) == summary
    assert race.finished() == {}


def test_a_race_begun_before_a_budget_field_existed_resumes_and_takes_new_strategies(tmp_path):
    """race.json from before Budget.text_dim and Budget.strategies: they read as their defaults, so
    the race resumes (here with a strategy it did not have) instead of being refused as another race."""
    Race.open(tmp_path, "full", strategies=["bytes"], tasks=["lm"])
    setting = json.loads((tmp_path / RACE_FILE).read_text())
    for field in ("text_dim", "strategies"):
        del setting["budget"][field]
    (tmp_path / RACE_FILE).write_text(json.dumps(setting))
    race = Race.open(tmp_path, "full", strategies=["bytes", "small-v-tied"], tasks=["lm"])
    assert race.strategies == ("bytes", "small-v-tied")
    assert Race.read_setting(tmp_path)["budget"]["strategies"] == []  # written again, whole
    setting["budget"]["text_dim"] = 128  # a field that differs from the default: another race
    (tmp_path / RACE_FILE).write_text(json.dumps(setting))
    with pytest.raises(InvalidValueError, match="holds a full race on cpu"):
        Race.open(tmp_path, "full", strategies=["bytes"], tasks=["lm"])


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"budget": {"name": "qu', "cut short: unterminated string starting at line 1 column 21"),
        ('{"budget": "quick", "device": "cpu"}', "budget holds a string where an object goes"),
        ('{"budget": {"name": 7}, "device": "cpu"}', "budget has no 'corpus' field"),
        ('{"device": "cpu"}', "no 'budget' field"),
    ],
)
def test_a_damaged_race_json_is_named_and_force_starts_over(tmp_path, content, says):
    Race.open(tmp_path, "quick", strategies=["bytes"], tasks=["lm"])
    (tmp_path / RUNS / "bytes-seed0.json").write_text("{}")
    (tmp_path / RACE_FILE).write_text(content)
    with pytest.raises(FileFormatError) as info:
        Race.open(tmp_path, "quick", strategies=["bytes"], tasks=["lm"])
    assert str(info.value) == f"{tmp_path / RACE_FILE}: not a readable race setting ({says}); {START_OVER}"
    assert (tmp_path / RACE_FILE).read_text() == content  # untouched until asked
    race = Race.open(tmp_path, "quick", strategies=["bytes"], tasks=["lm"], force=True)
    assert Race.read_setting(tmp_path)["budget"]["name"] == "quick" and race.finished() == {}


RACERS = 6  # threads starting a race in one new folder at once: more than the cores, so they interleave


def test_of_races_started_at_once_in_one_new_folder_exactly_one_wins(tmp_path, at_once):
    """Each race has its own budget, so a latecomer that finds the winner's race.json cannot take
    it as its own to resume: whoever loses, at the claim or after it, gets an error naming the folder."""
    folder = tmp_path / "race"
    budgets = [replace(BUDGETS["quick"], name=f"quick{i}") for i in range(RACERS)]
    outcome = at_once(RACERS, lambda i: Race.open(folder, budgets[i], strategies=["bytes"], tasks=["lm"]))
    winners = [i for i, err in enumerate(outcome) if err is None]
    assert len(winners) == 1, outcome
    for err in outcome:
        assert err is None or (isinstance(err, (OutputExistsError, InvalidValueError)) and str(folder) in str(err))
    assert Race.read_setting(folder)["budget"]["name"] == f"quick{winners[0]}"
    assert sorted(p.name for p in folder.iterdir()) == [RACE_FILE, RUNS]


def test_a_race_claimed_but_not_yet_written_is_not_taken(tmp_path):
    (tmp_path / RACE_FILE).touch()  # another race's claim (make_new_folder), its setting not yet written
    with pytest.raises(OutputExistsError, match="was taken by another race"):
        Race.open(tmp_path, "quick", strategies=["bytes"], tasks=["lm"])
