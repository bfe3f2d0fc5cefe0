"""The machine a benchmark runs on: CPU-bound processes beside it (the load of a busy shared
machine), and what to say about the machine with its figures.

    with burning(2):                 # two processes spin on arithmetic until the block ends
        ...                          # what is measured under that load
    cpu_model()                      # "AMD EPYC 7B13"

A burner takes one core while it runs: two of them on a 2-core machine leave what is measured about
half of each core. bench/suite.py runs the test suite beside them, bench/lab_load.py the lab.
"""

from __future__ import annotations

import multiprocessing
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _burn(stop) -> None:
    """Spin on arithmetic until `stop` is set: one core's worth of CPU-bound work."""
    x = 0
    while not stop.is_set():
        for i in range(100_000):
            x = (x * 31 + i) % 1_000_003


@contextmanager
def burning(count: int) -> Iterator[None]:
    """`count` burner processes for the length of the block (none for 0); stopped and joined at its end."""
    if count < 0:
        raise ValueError(f"burners must be >= 0; got {count}")
    stop = multiprocessing.Event()
    procs = [multiprocessing.Process(target=_burn, args=(stop,), daemon=True) for _ in range(count)]
    for p in procs:
        p.start()
    try:
        yield
    finally:
        stop.set()
        for p in procs:
            p.join()


def cpu_model() -> str:
    """The CPU's model name, from /proc/cpuinfo where there is one."""
    cpuinfo = Path("/proc/cpuinfo")
    for line in cpuinfo.read_text().splitlines() if cpuinfo.exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"
