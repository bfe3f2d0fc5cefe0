"""Work for the lab done in a child process at a lower priority, so its requests keep their cores.

    future = in_child(build_map, "big.npy", "pca")    # concurrent.futures.Future; the lab goes on
    future.result()                                    # the answer, pickled back (or the error, raised)

subtle: spawn, not fork: the lab's process holds threads (torch's, numba's, the server's) whose locks
a forked child would inherit held. And a numba kernel or a NumPy loop in a thread of the lab's own
process would hold the GIL and share the cores with every other page's requests.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

NICE = 10  # the child runs this much below the lab's priority


def in_child(work: Callable[..., Any], *args: Any, nice: int = NICE) -> Future:
    """work(*args) started in a new child process running `nice` below this one -> its Future. The
    child exits when the work ends."""
    spawn = multiprocessing.get_context("spawn")
    child = ProcessPoolExecutor(1, mp_context=spawn, initializer=os.nice, initargs=(nice,))
    future = child.submit(work, *args)
    future.add_done_callback(lambda _: child.shutdown(wait=False))
    return future
