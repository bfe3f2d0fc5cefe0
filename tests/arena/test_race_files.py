"""The race folder's files read back: race.json and results.json through Race, a damaged one named
with how to get past it, and `force` starting over even when race.json is damaged."""

from __future__ import annotations

import json

import pytest

from embedlab.arena.runner import RACE_FILE, RESULTS_FILE, RUNS, Race
from embedlab.errors import FileFormatError, InvalidValueError

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
        ('{"budget": "quick", "device": "cpu"}', "its budget has no name"),
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
