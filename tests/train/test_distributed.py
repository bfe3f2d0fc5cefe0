"""Distributed training: two real CPU processes under torchrun (gloo), sharded lines, one table."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from tests.timeouts import TORCHRUN_S

from embedlab.data.corpora import open_corpus
from embedlab.train.corpus import WordVocab
from embedlab.train.distributed import Dist, ShardedLines, backend_for
from embedlab.vectors import Vectors


def test_shards_deal_lines_round_robin_and_cover_the_corpus():
    lines = [f"line {i}" for i in range(7)]
    shards = [list(ShardedLines(lines, rank, 3)) for rank in range(3)]
    assert shards[0] == ["line 0", "line 3", "line 6"] and shards[2] == ["line 2", "line 5"]
    assert sorted(sum(shards, [])) == sorted(lines)
    assert list(Dist().shard(lines)) == lines  # one process: the whole corpus


def test_backend_follows_the_device():
    assert backend_for("cpu") == "gloo" and backend_for("cuda") == "nccl" and backend_for("cuda:1") == "nccl"


def _torchrun(*args: str, nproc: int = 2) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={nproc}",
               "-m", "embedlab", "train", *args]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=TORCHRUN_S)


@pytest.mark.slow
def test_two_processes_train_one_table(tmp_path):
    out = tmp_path / "run"
    done = _torchrun("enwiki-sample", "--out", str(out), "--dim", "50", "--epochs", "2", "--threads", "1", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("{")]  # rank 0 alone prints
    metrics = json.loads(line)["metrics"]
    vocab = WordVocab.build(open_corpus("enwiki-sample"), min_count=5)
    assert metrics["processes"] == 2
    assert metrics["words"] == 2 * vocab.total  # every line trained once per epoch, by one rank or the other
    assert sorted(p.name for p in out.glob("vectors*")) == ["vectors.safetensors", "vectors.txt", "vectors.vocab.json"]
    assert not (out / "checkpoint.pt").exists()
    counts = np.load(out / "update_counts.npy")
    # each kept word updates its row once per word of its window: ~5.6 per kept word on this corpus
    # (one process gives the same), so a count from one rank alone would give ~2.8
    assert counts.shape == (len(vocab),) and 5.0 < counts.sum() / metrics["kept_words"] < 6.2
    vectors = Vectors.load(out)
    # the ranks' merged counts are the corpus counts (words tied in count may come in another order)
    assert dict(zip(vectors.index_to_key, vectors.counts.tolist(), strict=True)) == dict(
        zip(vocab.index_to_key, vocab.counts.tolist(), strict=True)
    )
    # the shared table learned from both shards: the months still find each other
    assert "february" in [k for k, _ in vectors.most_similar("january", topn=10)]
