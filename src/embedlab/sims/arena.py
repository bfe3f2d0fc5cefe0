"""Strategy arena (lab page): the results of a real race, or a quick race run while the page watches.

    arena = ArenaLab(cache_dir() / "lab" / "arena")
    arena.state()          ArenaState("idle", source=None, race=None, ...): nothing raced yet
    arena.start()          a quick race in a background thread (sims.job); a second start while it runs: BusyError
    arena.state()          "running", one progress entry per (strategy, seed), then "finished" and the race

The page shows the best race it finds: a full race in `root/full` (`embedlab arena --out
ROOT/full`), else the quick race in `root/quick`, else the full race recorded on the development
machine that ships with embedlab (`data.races.recorded_race`, source "recorded"), so a newcomer's
page opens on measured results. A quick race the page starts resumes whatever a
killed one left in `root/quick`. Beside it, the budget sweep it finds: a full sweep in
`root/sweep` (`embedlab arena --sweep --out ROOT/sweep`), else a quick one in `root/sweep-quick`,
else the full sweep recorded with the race (`data.races.recorded_sweep`, source "recorded").
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from embedlab.arena.runner import RACE_FILE, Race, RaceEvent
from embedlab.arena.strategies import STRATEGIES, TASKS
from embedlab.arena.sweep import Sweep
from embedlab.data.races import recorded_race, recorded_sweep
from embedlab.sims.job import Job

SOURCES = ("full", "quick")  # the races the page looks for, the better first; then the recorded one
SWEEP_SOURCES = ("sweep", "sweep-quick")  # the sweeps the page looks for, the better first; then the recorded one
LIMITS: dict[str, Any] = {"tasks": list(TASKS), "strategies": list(STRATEGIES)}  # the page's choices (/api/config)
LABELS = {name: s.label for name, s in STRATEGIES.items()}  # a strategy's id -> the name the page shows


@dataclass(frozen=True)
class ArenaState:
    """The quick race this server runs (if any) and the best finished race found."""

    status: str  # idle | running | finished | failed (the race this server started)
    message: str  # why it failed
    progress: tuple[RaceEvent, ...]  # one per (strategy, seed) of the running race
    labels: dict[str, str]  # strategy id -> the name the page shows (LABELS)
    source: str | None  # "full", "quick" or "recorded" (the race that ships with embedlab): which race `race` is
    race: dict[str, Any] | None  # the race's summary, as results.json holds it (see embedlab.arena.runner)
    sweep_source: str | None = None  # "sweep", "sweep-quick" or "recorded" (the sweep that ships with embedlab)
    sweep: dict[str, Any] | None = None  # the sweep's summary, as its results.json holds it (embedlab.arena.sweep)


class ArenaLab:
    """The lab's race folders under `root`, and at most one quick race running at a time."""

    def __init__(self, root: str | Path, device: str = "cpu") -> None:
        self.root = Path(root)
        self.device = device
        self._job = Job("embedlab-arena")
        self._lock = threading.Lock()  # guards _progress
        self._progress: dict[tuple[str, int], RaceEvent] = {}

    def race(self) -> tuple[str | None, dict | None]:
        """(source, summary) of the best finished race found under `root`, else ("recorded", the
        race that ships with embedlab, whose summary adds "recorded": date, machine, command)."""
        for source in SOURCES:
            summary = Race.read_results(self.root / source)  # a damaged one: FileFormatError, saying how to recover
            if summary is not None:
                return source, summary
        return "recorded", recorded_race()

    def sweep(self) -> tuple[str, dict]:
        """(source, summary) of the best finished budget sweep found under `root`, else ("recorded",
        the sweep that ships with embedlab, whose summary adds "recorded" as the race's does)."""
        for source in SWEEP_SOURCES:
            summary = Sweep.read_results(self.root / source)
            if summary is not None:
                return source, summary
        return "recorded", recorded_sweep()

    def start(self) -> ArenaState:
        """Run (or resume) the quick race in a daemon thread -> the state it starts in."""
        with self._lock:  # held while the job starts: its events wait for the old progress to go
            self._job.start(self._run, busy="a quick race is running already; wait for it to finish")
            self._progress = {}
        return self.state()

    def _run(self, stop: threading.Event) -> None:
        """The job's body. A race cannot stop midway (`stop` goes unread): its finished runs are on
        disk, and the next start resumes from them, on the setting they were begun with."""
        folder = self.root / "quick"
        race = Race.resume(folder) if (folder / RACE_FILE).is_file() else Race.open(folder, "quick", device=self.device)
        race.run(self._event)

    def _event(self, event: RaceEvent) -> None:
        with self._lock:
            self._progress[event.strategy, event.seed] = event

    def state(self) -> ArenaState:
        """The status, each run's progress, and the best race found (None before any)."""
        with self._lock:
            job, progress = self._job.state(), tuple(self._progress.values())
        source, race = self.race()
        return ArenaState(job.status, job.message, progress, LABELS, source, race, *self.sweep())

    def close(self, timeout: float = 1.0) -> None:
        """At shutdown: a running race is a daemon thread; it is left to die with the process (its
        finished runs are on disk, and the next start resumes from them)."""
        self._job.join(timeout)
