"""One background job at a time, in a daemon thread: the lab's live training run and its quick race.

    job = Job("embedlab-arena")
    job.start(work, busy="a quick race is running already; wait for it to finish")
    job.state()         JobState("running", "") then ("finished", "") or ("failed", why)
    job.stop(5.0)       sets the stop flag `work(stop)` polls, and waits up to 5 s for it to end
    job.close()         the same, at shutdown

`work(stop)` runs in the thread. It returns None (status "finished") or a JobState of its own (a
training run ends "stopped" and says why). An EmbedlabError it raises becomes status "failed" with
the error's message; any other exception "failed" with a generic message and the traceback in the
log (a page shows no internals). Starting while a job runs raises errors.BusyError with `busy`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from embedlab.errors import BusyError, EmbedlabError

log = logging.getLogger("embedlab")

INTERNAL = "internal error (see the server log)"  # what a page is told of a bug in a job


@dataclass(frozen=True)
class JobState:
    status: str  # idle | running | finished | failed, or what the job returned (stopped)
    message: str  # why it failed or stopped ("" otherwise)


IDLE = JobState("idle", "")


class Job:
    """At most one run of a function at a time in a daemon thread, its end kept as a JobState."""

    def __init__(self, name: str) -> None:
        self.name = name  # the thread's name, as logs and debuggers show it
        self._lock = threading.Lock()  # guards _state and _thread
        self._state = IDLE
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def running(self) -> bool:
        return self.state().status == "running"

    def state(self) -> JobState:
        with self._lock:
            return self._state

    def start(self, work: Callable[[threading.Event], JobState | None], busy: str) -> None:
        """Run `work(stop)` in a new daemon thread; BusyError (message `busy`) while one runs."""
        with self._lock:
            if self._state.status == "running":
                raise BusyError(busy)
            self._state = JobState("running", "")
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._run, args=(work, self._stop), name=self.name, daemon=True)
            self._thread.start()

    def _run(self, work: Callable[[threading.Event], JobState | None], stop: threading.Event) -> None:
        try:
            end = work(stop) or JobState("finished", "")
        except EmbedlabError as err:
            end = JobState("failed", str(err))
        except Exception:  # a bug: the traceback goes to the log, the page gets no internals
            log.exception("background job %s failed", self.name)
            end = JobState("failed", INTERNAL)
        with self._lock:
            self._state = end

    def stop(self, timeout: float | None = 5.0) -> None:
        """Ask the job to end (its stop flag) and wait up to `timeout` seconds. Nothing running: no-op."""
        with self._lock:
            stop, thread = self._stop, self._thread
        stop.set()
        if thread is not None:
            thread.join(timeout)

    def join(self, timeout: float | None = None) -> None:
        """Wait up to `timeout` seconds for the job to end, without asking it to."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def close(self, timeout: float = 5.0) -> None:
        """At shutdown: stop the job and wait up to `timeout` s; a job that does not notice is a
        daemon thread, left to end with the process."""
        self.stop(timeout)
