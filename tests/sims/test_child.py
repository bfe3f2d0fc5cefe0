"""The lab's child processes: work runs in another process, below the lab's priority, and its error
comes back raised."""

from __future__ import annotations

import os
from functools import partial

import pytest

from embedlab.errors import InvalidValueError, check_int
from embedlab.sims.child import NICE, in_child


def test_work_runs_in_another_process_below_the_labs_priority():
    pid, nice = in_child(os.getpid), in_child(os.nice, 0, nice=3)
    assert pid.result(timeout=120) != os.getpid() and nice.result(timeout=120) == os.nice(0) + 3
    assert in_child(os.nice, 0).result(timeout=120) == os.nice(0) + NICE


def test_an_error_in_the_child_is_raised_with_its_message():
    with pytest.raises(InvalidValueError, match="k must be >= 1"):
        in_child(partial(check_int, "k", 0, low=1)).result(timeout=120)
