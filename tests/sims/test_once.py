"""MadeOnce: under concurrent requests each name is made exactly once, and a slow make holds up
only the requests for that name."""

from __future__ import annotations

import threading
import time

from embedlab.sims.once import MadeOnce


def test_concurrent_requests_make_each_name_once():
    made, calls = MadeOnce(), []

    def slow():
        calls.append(1)
        time.sleep(0.05)  # long enough for every other thread to arrive while it runs
        return object()

    answers = []
    threads = [threading.Thread(target=lambda: answers.append(made.get("pca", slow))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(answers) == 8 and all(a is answers[0] for a in answers)
    assert made.values() == [answers[0]]


def test_a_slow_make_does_not_block_another_name():
    made, release = MadeOnce(), threading.Event()
    slow = threading.Thread(target=lambda: made.get("slow", lambda: release.wait(5)))
    slow.start()
    time.sleep(0.02)  # the slow make now holds its own lock
    started = time.monotonic()
    assert made.get("fast", lambda: "ready") == "ready"
    assert time.monotonic() - started < 1.0  # not held up by "slow", which waits up to 5 s
    release.set()
    slow.join()
    assert made.get("slow", lambda: "never called") is True
