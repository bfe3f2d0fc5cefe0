"""What a training method gives the run loop (`Job`), and the registry that picks one by method.

    job = JOBS[config.method].create(lines, config, out, resume, dist)
    for _ in job.steps(epoch, skip): ...          # run.py's loop: progress, snapshots, checkpoints
    counts, metrics = job.gather()                # at the end, on every rank
    job.save_outputs(out)                         # then the method's own files, on the main rank

`run.train` knows nothing of any method: it asks only what this protocol lists. A new method is a
class with these members and one line in JOBS.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol

import numpy as np

from embedlab.train.config import RunConfig
from embedlab.train.distributed import Dist
from embedlab.train.lm_job import LMJob
from embedlab.train.word2vec import Word2VecJob


class Job(Protocol):
    unit: str  # what `done` and `total` count: "words" | "pieces"
    setup_file: str  # what save_setup writes into the run folder, and create reads back on resume

    @classmethod
    def create(cls, lines: Iterable[str], config: RunConfig, out: Path, resume: bool, dist: Dist) -> Job:
        """A job over `lines` (this rank's shard): its vocabulary or tokenizer built, or read from `out`."""

    keys: list[str]  # (V,) the table's keys, row order
    counts: np.ndarray  # (V,) int64 corpus counts of the keys
    total: int  # units the whole run trains (all epochs, all ranks)
    done: int  # units trained so far
    loss: float  # this epoch's mean training loss so far (nan before any)
    lr: float  # the learning rate now

    def steps(self, epoch: int, skip: int) -> Iterator[None]:
        """Train epoch `epoch` from its step `skip` on, yielding after each step."""

    def init_rows(self, ids: np.ndarray, rows: np.ndarray) -> None:
        """(K,) int64 rows of the embedding table set to (K, D) float32 `rows`, before training (init_from)."""

    def save_setup(self, out: Path) -> None:
        """Write setup_file into a new run folder."""

    def table(self) -> np.ndarray:
        """(V, D) float32 the embedding table."""

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """(W,) int64 -> (W, D) float32 copies of those rows (the run's snapshots)."""

    def word_rows(self) -> tuple[list[str], np.ndarray]:
        """The rows that stand for whole words, and those words: what word benchmarks can score."""

    def state_dict(self) -> tuple[dict[str, np.ndarray], dict]:
        """-> (arrays, plain metadata): everything a resume needs (a collective across ranks)."""

    def load_state_dict(self, arrays: dict[str, np.ndarray], meta: dict) -> None:
        """Continue from what state_dict returned."""

    def gather(self) -> tuple[np.ndarray, dict]:
        """-> (V,) int64 updates each row took, and the method's metrics, over all ranks (a collective)."""

    def save_outputs(self, out: Path) -> None:
        """Write the method's own files into the finished run folder, after gather, on the main
        rank (word2vec with subwords: subwords.safetensors; others: none)."""

    def close(self) -> None:
        """Release temporary files; called on every way out of a run."""


# method -> the job that trains it
JOBS: dict[str, type[Job]] = {"sgns": Word2VecJob, "cbow": Word2VecJob, "lm": LMJob}
