"""The background-job helper (`embedlab.sims.job`): one run at a time, its end kept as its state,
a stop flag the work reads, and close() that waits for the thread."""

from __future__ import annotations

import threading

import pytest

from embedlab.errors import BusyError, InvalidValueError
from embedlab.sims.job import INTERNAL, Job, JobState

WAIT = 30  # seconds a thread may take to notice a flag on a busy machine


def until_stopped(started: threading.Event):
    """Work that says it started, then waits for its stop flag and ends "stopped"."""

    def work(stop: threading.Event) -> JobState:
        started.set()
        assert stop.wait(WAIT), "the stop flag was never set"
        return JobState("stopped", "stopped on request")

    return work


def test_a_job_runs_in_the_background_and_finishes():
    job, ran = Job("test-job"), []
    assert job.state() == JobState("idle", "") and not job.running
    job.start(lambda stop: ran.append(threading.current_thread().name), busy="busy")
    job.join(WAIT)
    assert ran == ["test-job"] and job.state() == JobState("finished", "")


def test_a_second_start_is_refused_while_one_runs():
    job, started = Job("test-job"), threading.Event()
    job.start(until_stopped(started), busy="a race is running already; wait for it")
    assert started.wait(WAIT) and job.running
    with pytest.raises(BusyError, match="a race is running already; wait for it"):
        job.start(lambda stop: None, busy="a race is running already; wait for it")
    job.stop(WAIT)
    assert job.state() == JobState("stopped", "stopped on request")
    job.start(lambda stop: None, busy="busy")  # once it has ended, a new one may start
    job.join(WAIT)
    assert job.state().status == "finished"


def test_close_sets_the_flag_and_joins_the_thread():
    job, started = Job("test-job"), threading.Event()
    job.start(until_stopped(started), busy="busy")
    assert started.wait(WAIT)
    thread = next(t for t in threading.enumerate() if t.name == "test-job")
    assert thread.daemon
    job.close(timeout=WAIT)
    assert not thread.is_alive() and job.state().status == "stopped"
    job.close()  # nothing running: harmless


@pytest.mark.parametrize(
    "error, message",
    [
        (InvalidValueError("corpus 'x' has no lines"), "corpus 'x' has no lines"),  # the caller's mistake, said
        (ZeroDivisionError("division by zero"), INTERNAL),  # a bug: no internals to the page
    ],
)
def test_an_exception_in_the_job_becomes_its_state(error, message, caplog):
    def work(stop):
        raise error

    job = Job("test-job")
    job.start(work, busy="busy")
    job.join(WAIT)
    assert job.state() == JobState("failed", message)
    logged = [r for r in caplog.records if r.name == "embedlab" and r.exc_info]
    assert len(logged) == (0 if message != INTERNAL else 1)  # a bug's traceback goes to the log
