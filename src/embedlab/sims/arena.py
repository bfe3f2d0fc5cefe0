"""Strategy arena (lab page): the full race, and beside it a quick race run while the page watches.

    arena = ArenaLab(cache_dir() / "lab" / "arena")
    arena.state()          ArenaState("idle", source="recorded", race=the full race, quick=None, ...)
    arena.start()          the quick race in a background thread (sims.job); a second start while it runs: BusyError
    arena.state()          "running", one progress entry per (strategy, seed), then "finished" and `quick`

The page shows two races side by side, each labelled by its budget: the full race (a full race in
`root/full`, from `embedlab arena --out ROOT/full`, else the one recorded on the development machine
that ships with embedlab, `data.races.recorded_race`, source "recorded"), so a newcomer's page opens on
measured results; and the quick race in `root/quick`, once one has finished there. A quick race never
replaces the full one: one seed on a sixteenth of the compute orders strategies by how far each got.
Each race's orderings are served as claims.holm_orderings judges them (one Holm family per race), not
as an older results.json recorded them. A start resumes only the lab's own quick race (this budget, on
this device): a `root/quick` holding another race, or other files, is refused at once (a 4xx).
Beside them, the budget sweep it finds: a full sweep in `root/sweep` (`embedlab arena --sweep --out
ROOT/sweep`), else a quick one in `root/sweep-quick`, else the full sweep recorded with the race
(`data.races.recorded_sweep`, source "recorded").
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from embedlab.arena.claims import holm_orderings
from embedlab.arena.runner import RACE_FILE, Race, RaceEvent
from embedlab.arena.strategies import BUDGETS, STRATEGIES, TASKS, Budget
from embedlab.arena.sweep import Sweep
from embedlab.data.races import recorded_race, recorded_sweep
from embedlab.errors import BusyError, InvalidValueError
from embedlab.files.reading import file_exists
from embedlab.sims.job import Job

FULL, QUICK = "full", "quick"  # the folders under root the page reads its two races from
SWEEP_SOURCES = ("sweep", "sweep-quick")  # the sweeps the page looks for, the better first; then the recorded one
LIMITS: dict[str, Any] = {"tasks": list(TASKS), "strategies": list(STRATEGIES)}  # the page's choices (/api/config)
LABELS = {name: s.label for name, s in STRATEGIES.items()}  # a strategy's id -> the name the page shows
BUSY = "a quick race is running already; wait for it to finish"


@dataclass(frozen=True)
class ArenaState:
    """The quick race this server runs (if any), the full race and the quick race found."""

    status: str  # idle | running | finished | failed (the race this server started)
    message: str  # why it failed
    progress: tuple[RaceEvent, ...]  # one per (strategy, seed) of the running race
    labels: dict[str, str]  # strategy id -> the name the page shows (LABELS)
    source: str  # "full" (root/full) or "recorded" (the race that ships with embedlab): which race `race` is
    race: dict[str, Any]  # the full race's summary, as results.json holds it (see embedlab.arena.runner)
    sweep_source: str | None = None  # "sweep", "sweep-quick" or "recorded" (the sweep that ships with embedlab)
    sweep: dict[str, Any] | None = None  # the sweep's summary, as its results.json holds it (embedlab.arena.sweep)
    quick: dict[str, Any] | None = None  # the finished race in root/quick (its budget says which), else None


def judged(summary: dict) -> dict:
    """A race's summary with its orderings judged as one Holm family (claims.holm_orderings)."""
    return {**summary, "orderings": holm_orderings(summary)}


class ArenaLab:
    """The lab's race folders under `root`, and at most one quick race running at a time."""

    def __init__(self, root: str | Path, device: str = "cpu", budget: Budget = BUDGETS["quick"]) -> None:
        self.root = Path(root)
        self.device = device
        self.budget = budget  # the quick race's: the only race a start runs or resumes
        self._job = Job("embedlab-arena")
        self._lock = threading.Lock()  # guards _progress
        self._progress: dict[tuple[str, int], RaceEvent] = {}

    def race(self) -> tuple[str, dict]:
        """(source, summary) of the full race: the finished one in `root/full`, else ("recorded", the
        race that ships with embedlab, whose summary adds "recorded": date, machine, command)."""
        summary = Race.read_results(self.root / FULL)  # a damaged one: FileFormatError, saying how to recover
        return (FULL, judged(summary)) if summary is not None else ("recorded", judged(recorded_race()))

    def quick(self) -> dict | None:
        """The summary of the finished race in `root/quick` (None before one finishes there)."""
        summary = Race.read_results(self.root / QUICK)
        return None if summary is None else judged(summary)

    def sweep(self) -> tuple[str, dict]:
        """(source, summary) of the best finished budget sweep found under `root`, else ("recorded",
        the sweep that ships with embedlab, whose summary adds "recorded" as the race's does)."""
        for source in SWEEP_SOURCES:
            summary = Sweep.read_results(self.root / source)
            if summary is not None:
                return source, summary
        return "recorded", recorded_sweep()

    def start(self) -> ArenaState:
        """Run (or resume) the quick race in a daemon thread -> the state it starts in. Refused at once
        (InvalidValueError, a 4xx) where `root/quick` holds another race or other files; BusyError while
        one runs."""
        if self._job.running:  # before the folder is touched: the running race owns it
            raise BusyError(BUSY)
        race = self._open()
        with self._lock:  # held while the job starts: its events wait for the old progress to go
            self._job.start(lambda stop: self._run(race), busy=BUSY)
            self._progress = {}
        return self.state()

    def _open(self) -> Race:
        """The quick race in `root/quick`: a new one, or the one a killed start left there (on the
        strategies and tasks it was begun with). Any other race there (another budget, or another
        device) is refused, never resumed in its place; so is a folder holding anything else."""
        folder = self.root / QUICK
        if not file_exists(folder / RACE_FILE, "a race setting"):
            return Race.open(folder, self.budget, device=self.device)  # other files there: refused, naming the folder
        setting = Race.read_setting(folder)  # damaged: FileFormatError naming the file and the bad value
        budget, device = Race.read_budget(folder, setting), setting["device"]
        if (budget, device) != (self.budget, self.device):
            raise InvalidValueError(
                f"{folder} holds a {budget.name} race on {device}, not the lab's {self.budget.name} race on "
                f"{self.device}: the lab resumes only its own; move that folder elsewhere to run the "
                f"{self.budget.name} race here"
            )
        return Race.resume(folder)

    def _run(self, race: Race) -> None:
        """The job's body. A race cannot stop midway (the job's stop flag goes unread): its finished runs
        are on disk, and the next start resumes from them."""
        race.run(self._event)

    def _event(self, event: RaceEvent) -> None:
        with self._lock:
            self._progress[event.strategy, event.seed] = event

    def state(self) -> ArenaState:
        """The status, each run's progress, the full race, the sweep and the quick race (None before one)."""
        with self._lock:
            job, progress = self._job.state(), tuple(self._progress.values())
        source, race = self.race()
        return ArenaState(job.status, job.message, progress, LABELS, source, race, *self.sweep(), self.quick())

    def close(self, timeout: float = 1.0) -> None:
        """At shutdown: a running race is a daemon thread; it is left to die with the process (its
        finished runs are on disk, and the next start resumes from them)."""
        self._job.join(timeout)
