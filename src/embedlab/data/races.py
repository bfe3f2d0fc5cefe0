"""The arena's recorded races: a full race and a full budget sweep run on the development machine,
shipped so the lab's Strategy arena page opens on measured results at once, before anyone has raced here.

    race = recorded_race()           # results.json of the full race, plus "recorded": how it was run
    race["recorded"]["command"]      # 'embedlab arena --out runs/arena'
    sweep = recorded_sweep()         # results.json of the full sweep, plus "recorded"

race_files/full-race.json is that race's results.json (`embedlab.arena.runner.Race.read_results`
reads the same shape) and race_files/full-sweep.json the sweep's (`embedlab.arena.sweep.Sweep.read_results`),
each with one key added, "recorded": the date, the machine, the command, the machine's load while it
ran and the embedlab commit it ran. Nothing in them is computed here: they are what the race and the
sweep wrote. docs/arena.md reports the same two.
"""

from __future__ import annotations

import json
from pathlib import Path

RACE_FILE = Path(__file__).parent / "race_files" / "full-race.json"
SWEEP_FILE = Path(__file__).parent / "race_files" / "full-sweep.json"


def recorded_race() -> dict:
    """The recorded full race: results.json's keys (budget, device, strategies, tasks, results,
    orderings, runs) and "recorded" ({"date", "machine", "command", "load", "commit"})."""
    return json.loads(RACE_FILE.read_text(encoding="utf-8"))


def recorded_sweep() -> dict:
    """The recorded full sweep: results.json's keys (plan, device, corpus, strategies, points,
    winners, anchor) and "recorded" ({"date", "machine", "command", "load", "commit"})."""
    return json.loads(SWEEP_FILE.read_text(encoding="utf-8"))
