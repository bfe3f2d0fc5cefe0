"""Training across processes with torch.distributed: one rank per process, the corpus sharded.

    torchrun --nproc_per_node=2 -m embedlab train gcide --out run/      # 2 processes here
    dist = Dist.from_env()          # reads RANK / WORLD_SIZE that torchrun sets; one process: world 1
    lines = dist.shard(corpus)      # rank r trains lines r, r + N, r + 2N, ...

word2vec ranks train their shard in lockstep rounds; after each round `sum_updates` adds every
rank's change to the tables since the last round to all copies, so each update lands once, as
with Hogwild threads sharing one table (here they share it a round late). The language model uses
DistributedDataParallel's gradient averaging instead. Rank 0 alone writes files.

gloo carries CPU tensors and nccl CUDA tensors; `backend_for(device)` picks between them.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import torch
import torch.distributed as tdist


@dataclass(frozen=True)
class Dist:
    """This process's place in the job: rank in 0..world-1."""

    rank: int = 0
    world: int = 1

    @classmethod
    def from_env(cls, device: str = "cpu") -> Dist:
        """Join the process group torchrun describes (RANK, WORLD_SIZE, MASTER_ADDR, ...), if any."""
        world = int(os.environ.get("WORLD_SIZE", "1"))
        if world == 1:
            return cls()
        if not tdist.is_initialized():
            tdist.init_process_group(backend_for(device))
        return cls(tdist.get_rank(), tdist.get_world_size())

    @property
    def main(self) -> bool:
        """True on the rank that writes files and prints."""
        return self.rank == 0

    def shard(self, lines: Iterable[str]) -> ShardedLines:
        return ShardedLines(lines, self.rank, self.world)

    def merge_counts(self, counter: Counter[str]) -> Counter[str]:
        """Every rank's word counts summed, in the same key order on every rank."""
        if self.world == 1:
            return counter
        gathered: list[Counter[str] | None] = [None] * self.world
        tdist.all_gather_object(gathered, counter)
        total: Counter[str] = Counter()
        for part in gathered:  # rank order: ties in count are then ordered alike everywhere
            total.update(part)
        return total

    def all_done(self, done: bool) -> bool:
        """True when every rank says it is done (a collective: all ranks must call it)."""
        if self.world == 1:
            return done
        flag = torch.tensor([0 if done else 1], dtype=torch.int64)
        tdist.all_reduce(flag)
        return int(flag.item()) == 0

    def sum_updates(self, tables: list[torch.Tensor], bases: list[torch.Tensor]) -> None:
        """tables[i] <- bases[i] + Σ over ranks of (tables[i] - bases[i]); then bases[i] <- tables[i].

        The tensors may share memory with the NumPy tables the kernels write (torch.from_numpy).
        """
        for table, base in zip(tables, bases, strict=True):
            table -= base  # this rank's change since the last round
            tdist.all_reduce(table)
            table += base
            base.copy_(table)

    def sum(self, array: np.ndarray) -> np.ndarray:
        """The element-wise sum of `array` over all ranks (a new array)."""
        if self.world == 1:
            return array.copy()
        total = torch.from_numpy(np.ascontiguousarray(array).copy())
        tdist.all_reduce(total)
        return total.numpy()

    def barrier(self) -> None:
        if self.world > 1:
            tdist.barrier()

    def close(self) -> None:
        if self.world > 1 and tdist.is_initialized():
            tdist.destroy_process_group()


@dataclass(frozen=True)
class ShardedLines:
    """A re-iterable of every world-th line, starting at line `rank`."""

    lines: Iterable[str]
    rank: int
    world: int

    def __iter__(self) -> Iterator[str]:
        for i, line in enumerate(self.lines):
            if i % self.world == self.rank:
                yield line


def backend_for(device: str) -> str:
    """nccl for CUDA devices, gloo otherwise."""
    return "nccl" if str(device).startswith("cuda") else "gloo"
