"""The live run (`embedlab.sims.training`): real runs on a small corpus in a background thread, stopped by
request or by a word limit, one at a time, failures as status."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest
from safetensors.numpy import load_file

from embedlab.data.corpora import GCIDE_PATH
from embedlab.errors import BusyError, InvalidValueError, UnknownNameError
from embedlab.sims.training import LIMITS, MAX_WORDS, THREADS, LiveRun, PageRun
from embedlab.train.config import RunConfig
from embedlab.train.run import DEFAULT_WATCH
from embedlab.vectors import Vectors
from embedlab.vectors.projection import project_frame

WAIT = 60  # seconds a small run may take on a busy 2-core machine (about 1 s when idle)


def small(**settings) -> RunConfig:
    return RunConfig(corpus="small", **{"method": "sgns", "dim": 8, "epochs": 1, "threads": 1, **settings})


def wait_until(live: LiveRun, done, seconds: float = WAIT):
    deadline = time.monotonic() + seconds
    while not done(state := live.state()):
        assert time.monotonic() < deadline, f"still {state.status} after {seconds} s"
        time.sleep(0.02)
    return state


def ended(state) -> bool:
    return state.status != "running"


@pytest.fixture
def live(small_text, tmp_path):
    run = LiveRun(tmp_path / "training", corpora={"small": small_text, "gone": tmp_path / "missing.txt"})
    yield run
    run.close()


def test_a_run_streams_frames_of_the_rows_it_trains(live):
    assert live.state().status == "idle" and live.state().run == 0
    assert live.start(small()) == 1
    state = wait_until(live, ended)
    assert state.status == "finished" and state.message == ""
    assert state.progress.done == state.progress.total > 50_000 and state.frame_count == len(state.frames) >= 5
    assert set(state.tokens) <= set(DEFAULT_WATCH) and len(state.tokens) >= 10
    first, last = state.frames[0], state.frames[-1]
    assert first.done == 0 and last.done == state.progress.total
    assert [f.index for f in state.frames] == list(range(state.frame_count))
    frames = [live.frame(f.index) for f in state.frames]
    assert all(f.rows.shape == (len(state.tokens), 8) for f in frames)
    assert all(f.coordinates.shape == (len(state.tokens), 2) for f in state.frames)
    # the frames are the run's own snapshots, and the last one is the table it saved
    saved = load_file(live.folder / "snapshots.safetensors")
    np.testing.assert_array_equal(saved["vectors"], np.stack([f.rows for f in frames]))
    table = Vectors.load(live.folder)
    np.testing.assert_array_equal(frames[-1].rows, np.stack([table[t] for t in state.tokens]))
    np.testing.assert_array_equal(live.frame(2).row(state.tokens[3]), saved["vectors"][2][3])
    assert live.frame(2).map is state.frames[2]  # the state's maps are the frames' own
    assert live.frame(2).tokens == state.tokens
    assert [f.index for f in live.state(since=3).frames] == list(range(3, state.frame_count))
    assert live.state(since=10_000).frames == ()


def test_a_map_of_some_groups_holds_their_words_alone(live):
    assert live.state(themes=["people"]).tokens == ()  # no run yet: nothing to show, nothing wrong
    live.start(small(), watch=["king", "queen", "man", "two", "three", "the"])
    state = wait_until(live, ended)
    people = live.state(themes=["people"])
    assert people.tokens == ("king", "queen", "man") and people.frame_count == state.frame_count
    previous = None
    for frame, full in zip(people.frames, state.frames, strict=True):
        # the group's rows alone, projected and turned onto the group's frame before
        expected, _ = project_frame(live.frame(full.index).rows[:3], previous)
        np.testing.assert_array_equal(frame.coordinates, expected)
        assert frame.coordinates.shape == (3, 2) and (frame.index, frame.done) == (full.index, full.done)
        previous = frame.coordinates
    assert people.themes == ("people",) * 3
    both = live.state(since=2, themes=["numbers", "people"])  # THEMES order, whatever the order asked
    assert both.tokens == ("king", "queen", "man", "two", "three") and both.frames[0].index == 2
    assert live.state(themes=["people"]).frames[-1] is people.frames[-1]  # projected once, then kept
    with pytest.raises(InvalidValueError, match="this run watches no word of animals, colours; pick other themes"):
        live.state(themes=["colours", "animals"])
    with pytest.raises(InvalidValueError, match="theme 'kings' is not one of animals"):
        live.state(themes=["kings"])


def test_stop_ends_a_run_early(live):
    live.start(small(epochs=10))
    wait_until(live, lambda s: s.frame_count >= 2)
    live.stop(timeout=WAIT)
    state = live.state()
    assert state.status == "stopped" and state.message == "stopped on request"
    assert state.progress.done < state.progress.total
    assert not (live.folder / "vectors.safetensors").exists()  # stopped, not finished


def test_a_word_limit_stops_the_run(live):
    live.start(small(epochs=5), max_words=25_000)
    state = wait_until(live, ended)
    assert state.status == "stopped" and state.message == "stopped at the limit of 25,000 words"
    assert 25_000 <= state.progress.done < state.progress.total
    assert state.max_words == 25_000 and state.frames[-1].done <= state.progress.done


def test_one_run_at_a_time_and_a_new_run_replaces_the_old_folder(live):
    live.start(small(epochs=10))
    first = live.folder
    with pytest.raises(BusyError, match=r"run 1 \(sgns on small\) is still running; stop it"):
        live.start(small())
    assert live.state().run == 1  # the refused start changed nothing
    live.stop(timeout=WAIT)
    assert first.is_dir()
    live.start(small(method="cbow", dim=4))
    state = wait_until(live, ended)
    assert state.run == 2 and state.status == "finished" and state.config["method"] == "cbow"
    assert not first.exists() and live.folder.is_dir()
    assert live.frame(0).rows.shape[1] == 4


def test_old_folders_of_ended_processes_go_and_others_stay(live):
    ended_process = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                                   text=True, check=True)  # fmt: skip
    stale = live.root / f"{ended_process.stdout.strip()}-1"
    alive = live.root / f"{os.getppid()}-1"  # a lab in another process that still runs
    other = live.root / "notes"
    for folder in (stale, alive, other):
        folder.mkdir(parents=True)
    live.start(small())
    wait_until(live, ended)
    assert not stale.exists() and alive.is_dir() and other.is_dir()


def test_errors_in_the_thread_become_status_failed(live):
    live.start(small(), watch=["king", "zzqxnotaword"])
    state = wait_until(live, ended)
    assert state.status == "failed"
    assert "'zzqxnotaword' not in the vocabulary" in state.message
    live.start(RunConfig(corpus="gone", dim=8))  # a corpus file that went away after the lab started
    state = wait_until(live, ended)
    assert state.status == "failed" and "neither a built-in name" in state.message and state.frames == ()


def test_bad_calls_are_refused_before_anything_runs(live):
    with pytest.raises(UnknownNameError, match="unknown corpus 'gcide'; known: gone, small"):
        live.start(RunConfig(corpus="gcide"))
    with pytest.raises(InvalidValueError, match="max_words must be >= 1; got 0"):
        live.start(small(), max_words=0)
    with pytest.raises(InvalidValueError, match="no frames yet"):
        live.frame(0)
    assert live.state().status == "idle"
    live.start(small())
    state = wait_until(live, ended)
    with pytest.raises(InvalidValueError, match=f"frame must be between 0 and {state.frame_count - 1}; got 999"):
        live.frame(999)
    with pytest.raises(UnknownNameError, match="unknown watched token 'zebra'"):
        live.frame(0).row("zebra")
    with pytest.raises(InvalidValueError, match="since must be >= 0"):
        live.state(since=-1)


def test_close_stops_a_running_run(live):
    live.start(small(epochs=10))
    wait_until(live, lambda s: s.frame_count >= 1)
    live.close()
    assert live.state().status == "stopped"


def test_by_default_it_trains_on_the_installed_built_ins(tmp_path):
    assert set(LiveRun(tmp_path).corpora) == {"enwiki-sample"} | ({"gcide"} if GCIDE_PATH.is_file() else set())


def test_a_page_run_is_bounded_by_the_limits(live):
    assert LIMITS == {"dim": [2, 300], "epochs": [1, 10], "max_words": [1_000, MAX_WORDS]}
    config = PageRun(corpus="small", method="cbow", dim=4, epochs=1, max_words=2_000).config()
    assert (config.method, config.dim, config.epochs, config.threads) == ("cbow", 4, 1, THREADS)
    for settings, message in [
        ({"dim": 301}, "dim must be between 2 and 300; got 301"),
        ({"epochs": 0}, "epochs must be between 1 and 10; got 0"),
        ({"max_words": 10**9}, "max_words must be between 1000 and 5000000"),
        ({"method": "lm"}, "method must be one of sgns, cbow; got 'lm'"),
    ]:
        with pytest.raises(InvalidValueError, match=message):
            live.start_page_run(PageRun(corpus="small", **settings))
    assert live.state().status == "idle"
    state = live.start_page_run(PageRun(corpus="small", dim=4, epochs=1, max_words=2_000))
    assert state.status == "running" and state.max_words == 2_000 and state.config["threads"] == THREADS
    assert wait_until(live, ended).status == "stopped"


def test_the_options_are_the_corpora_and_the_defaults(live):
    options = live.options()
    assert options.corpora == ("small", "gone") and options.methods == ("sgns", "cbow") and 8 in options.dims
    assert options.defaults == PageRun()
