"""How long a test waits before it calls something stuck: a time measured here, times a stated margin.

Each figure is the slowest of a few runs on the 2-core development machine with other work on it
(load average about 2). LOAD_MARGIN then covers what that leaves out: two CPU-bound neighbours take
half of each core (about 2x), a cold disk cache, a slower CPU and a busy CI runner (together another
5x at most, as seen on a 40-minute run of the suite beside two such processes). A test that waits
this long has found something stuck, not something slow.

    from tests.timeouts import COMMAND_S
    subprocess.run([...], timeout=COMMAND_S)
"""

from __future__ import annotations

LOAD_MARGIN = 10  # see above: about 2x for the neighbours, 5x for the rest


def margin(measured_s: float) -> float:
    """Seconds to wait for what took `measured_s` here."""
    return measured_s * LOAD_MARGIN


COMMAND_S = margin(3.0)  # a fresh `python -m embedlab ...` (torch imported): 1.0-3.0 s measured
LAB_START_S = margin(6.5)  # `embedlab lab` from its start to its first answer on /api/tables: 6.5 s measured
LAB_STOP_S = margin(1.0)  # the lab's process after SIGTERM: 0.2 s measured
# The projector's first UMAP map of a 3,500-row table, fitted in a child process 10 nice levels below the
# lab: 18 s measured with umap's compiled code in numba's cache (vectors.projection.import_umap), 71 s
# when that child is the venv's first UMAP fit and compiles umap's code and pynndescent's. Load stretches
# this wait the most: against nice-0 CPU-bound work (two burners, the suite's two workers) the child's
# CFS weight is 110 to each one's 1,024, about 5% of a core, 20x where LOAD_MARGIN counts 2x for
# neighbours. The margin on the slower figure leaves the usual (cached) fit 39x.
UMAP_FIT_S = margin(71.0)
# A new process's UMAP map of 120 rows with numba's compiled code kept (vectors.projection.import_umap):
# importing umap and loading the code, 4.6 s of CPU measured (20 s more when it compiled instead).
UMAP_CACHED_S = margin(5.0)
# A simulation page from its address to ready (#sim[data-ready]), its first computation included: 20 s at
# the slowest, the subword page's first visit (it trains its table), beside the suite's other worker.
PAGE_S = margin(20.0)
# The Static from contextual page's first visit: the teacher reads 2,000 sentences for the fitted stage
# and each stage is measured on two instruments (the token outputs already in the cache): 75 s.
DISTILL_PAGE_S = margin(75.0)
# A lab answer that reads a file or computes little: the index page 0.1 s, a subword table's first
# unseen word 0.7 s (the file mapped), measured on a lab just started.
QUICK_ANSWER_S = margin(1.0)
# Two torchrun processes training enwiki-sample for 2 epochs at dim 50 (tests/train/test_distributed.py):
# 25 s measured beside the suite's other worker.
TORCHRUN_S = margin(26.0)
