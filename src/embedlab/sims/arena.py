"""Strategy arena (lab page): the results of a real race, or a quick race run while the page watches.

    arena = ArenaLab(cache_dir() / "lab" / "arena")
    arena.state()          {"status": "idle", "source": None, "race": None, ...}: nothing raced yet
    arena.start()          a quick race in a background thread; a second start while it runs: BusyError
    arena.state()          "running", one progress entry per (strategy, seed), then "finished" and the race

The page shows the best race it finds: a full race in `root/full` (`embedlab arena --out
ROOT/full`), else the quick race in `root/quick`. A quick race the page starts resumes whatever a
killed one left in `root/quick`.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import asdict
from pathlib import Path

from embedlab.arena.runner import Race, RaceEvent
from embedlab.arena.strategies import STRATEGIES, TASKS
from embedlab.errors import BusyError

log = logging.getLogger("embedlab")

LIMITS = {"tasks": list(TASKS), "strategies": list(STRATEGIES)}  # the lab page's choices, listed by /api/config
SOURCES = ("full", "quick")  # the races the page looks for, the better first


class ArenaLab:
    """The lab's race folders under `root`, and at most one quick race running at a time."""

    def __init__(self, root: str | Path, device: str = "cpu") -> None:
        self.root = Path(root)
        self.device = device
        self._lock = threading.Lock()
        self._status, self._message = "idle", ""
        self._progress: dict[tuple[str, int], RaceEvent] = {}
        self._thread: threading.Thread | None = None

    def race(self) -> tuple[str | None, dict | None]:
        """(source, summary) of the best finished race found under `root`, or (None, None)."""
        for source in SOURCES:
            summary = Race.read_results(self.root / source)  # a damaged one: FileFormatError, saying how to recover
            if summary is not None:
                return source, summary
        return None, None

    def start(self) -> None:
        """Run (or resume) the quick race in a daemon thread."""
        with self._lock:
            if self._status == "running":
                raise BusyError("a quick race is running already; wait for it to finish")
            race = Race.open(self.root / "quick", "quick", device=self.device)
            self._status, self._message, self._progress = "running", "", {}
            self._thread = threading.Thread(target=self._run, args=(race,), name="embedlab-arena", daemon=True)
            self._thread.start()

    def _run(self, race: Race) -> None:
        try:
            race.run(self._event)
        except Exception as err:  # the page shows why; the server keeps serving
            log.exception("the quick race failed")
            with self._lock:
                self._status, self._message = "failed", f"{type(err).__name__}: {err}"
            return
        with self._lock:
            self._status = "finished"

    def _event(self, event: RaceEvent) -> None:
        with self._lock:
            self._progress[event.strategy, event.seed] = event

    def state(self) -> dict:
        """JSON-ready: the status, each run's progress, and the best race found (None before any)."""
        with self._lock:
            status, message = self._status, self._message
            progress = [asdict(event) for event in self._progress.values()]
        source, race = self.race()
        return {"status": status, "message": message, "progress": progress, "source": source, "race": race}

    def close(self, timeout: float = 1.0) -> None:
        """At shutdown: a running race is a daemon thread; it is left to die with the process (its
        finished runs are on disk, and the next start resumes from them)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
