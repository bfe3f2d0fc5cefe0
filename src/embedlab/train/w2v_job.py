"""word2vec as a resumable job for `embedlab.train.run`: one step trains one chunk of words.

    job = Word2VecJob(corpus, vocab, config)          # tables fresh from the seed
    for _ in job.steps(epoch=0, skip=0): ...          # each step: ~threads × 10,000 words
    arrays, meta = job.state_dict()                   # everything a resume needs

On CPU the numba Hogwild kernels of `sgns.py` train; on a CUDA device the batched torch engine
(`batched.py`). Under torch.distributed each rank trains its shard of lines and the ranks add
their changes to the tables after every round (see `distributed.py`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path

import numpy as np
import torch

from embedlab.files import atomic_write_text
from embedlab.train.config import RunConfig
from embedlab.train.corpus import ChunkCache, WordVocab
from embedlab.train.distributed import Dist
from embedlab.train.sgns import TrainState, Word2VecConfig, _prefetch, train_chunk, vocab_tables


class Word2VecJob:
    unit = "words"
    setup_file = "vocab.json"  # what a resume needs besides the checkpoint: the vocabulary

    def __init__(self, lines: Iterable[str], vocab: WordVocab, config: RunConfig, dist: Dist | None = None) -> None:
        self.vocab, self.dist = vocab, dist or Dist()
        dist = self.dist
        self.w2v = Word2VecConfig(
            method=config.method, dim=config.dim, window=config.window, negative=config.negative,
            sample=config.sample, alpha=config.lr, min_alpha=min(0.0001, config.lr), epochs=config.epochs,
            threads=config.threads, seed=config.seed,
        )  # fmt: skip
        self.state = TrainState.new(vocab, self.w2v)  # every rank starts from the same tables...
        if dist.world > 1:  # ...and draws its own random numbers
            self._reseed(0)
        self.state.words_total = config.epochs * _shard_total(vocab, dist)
        self.tables = vocab_tables(vocab, config.sample)
        self.device = torch.device(config.device)
        # numba threads take batch_words each; a device is kept busy by chunks ten times larger
        chunk_words = self.w2v.batch_words * (self.w2v.threads if self.device.type == "cpu" else 20)
        self.cache = ChunkCache(lines, vocab, chunk_words)
        self.engine = None if self.device.type == "cpu" else _batched(self.state, self.tables, self.w2v, self.device)
        self.epoch_loss = (0.0, 0)  # loss sums at the start of the current epoch
        self._bases = None  # distributed: the tables as of the last round

    @property
    def keys(self) -> list[str]:
        return self.vocab.index_to_key

    @property
    def counts(self) -> np.ndarray:
        return self.vocab.counts

    @property
    def total(self) -> int:
        """Words the whole run trains, all ranks and epochs."""
        return self.state.words_total * self.dist.world

    @property
    def done(self) -> int:
        return self.state.words_done * self.dist.world  # ranks advance together: an estimate off by < a round

    @property
    def loss(self) -> float:
        """Mean -log σ per scored target in this epoch so far (this rank's sample)."""
        terms = self.state.loss_terms - self.epoch_loss[1]
        return (self.state.loss_sum - self.epoch_loss[0]) / terms if terms else math.nan

    @property
    def lr(self) -> float:
        w = self.w2v
        return max(w.min_alpha, w.alpha - (w.alpha - w.min_alpha) * self.state.words_done / self.state.words_total)

    def steps(self, epoch: int, skip: int) -> Iterator[None]:
        """Train epoch `epoch` from its step `skip` on, yielding after each step."""
        if skip == 0:
            self.epoch_loss = (self.state.loss_sum, self.state.loss_terms)
        if self.dist.world > 1 and self._bases is None:  # the tables as all ranks hold them now
            self._bases = [t.clone() for t in self._tables()]
        chunks = _prefetch(islice(iter(self.cache), skip, None))
        try:
            while True:
                chunk = next(chunks, None)
                if chunk is not None:
                    if self.engine is None:
                        train_chunk(self.state, chunk, self.tables, self.w2v)
                    else:
                        self.engine.train_chunk(chunk)
                if self.dist.world > 1:  # lockstep rounds: a rank out of lines still adds its (zero) change
                    if self.dist.all_done(chunk is None):
                        return
                    self._share_updates()
                elif chunk is None:
                    return
                yield
        finally:
            chunks.close()

    def save_setup(self, out: Path) -> None:
        atomic_write_text(out / self.setup_file, json.dumps(self.vocab.to_dict()))

    def table(self) -> np.ndarray:
        """(V, D) float32 the input table: the embedding (live on CPU)."""
        self._sync()
        return self.state.w_in

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """(W, D) float32 copies of the embedding rows `ids`."""
        if self.engine is not None:
            return self.engine.w_in[torch.as_tensor(ids, device=self.device)].cpu().numpy()
        return self.state.w_in[ids].copy()

    def state_dict(self) -> tuple[dict[str, np.ndarray], dict]:
        self._sync()
        s = self.state
        counts = s.update_counts if self.dist.world == 1 else self.dist.sum(s.update_counts)  # a collective
        arrays = {"w_in": s.w_in, "w_out": s.w_out, "rng_state": s.rng_state, "update_counts": counts}
        meta = {"words_done": s.words_done, "kept_words": s.kept_words, "loss_sum": s.loss_sum,
                "loss_terms": s.loss_terms, "epoch_loss": list(self.epoch_loss)}  # fmt: skip
        return arrays, meta

    def load_state_dict(self, arrays: dict[str, np.ndarray], meta: dict) -> None:
        s = self.state
        s.w_in[:], s.w_out[:] = arrays["w_in"], arrays["w_out"]
        if self.dist.world == 1:  # exact resume; ranks of a distributed run keep their fresh streams
            s.rng_state[:], s.update_counts[:] = arrays["rng_state"], arrays["update_counts"]
            s.words_done, s.kept_words = meta["words_done"], meta["kept_words"]
            s.loss_sum, s.loss_terms = meta["loss_sum"], meta["loss_terms"]
            self.epoch_loss = tuple(meta["epoch_loss"])
        else:
            s.update_counts[:] = 0  # the saved counts are all ranks' sum: rank 0 carries them on
            if self.dist.main:
                s.update_counts[0] = arrays["update_counts"].sum(axis=0)
            s.words_done = meta["words_done"]
            self._reseed(s.words_done)
            self._bases = None
        if self.engine is not None:
            self.engine = _batched(s, self.tables, self.w2v, self.device)

    def gather(self) -> tuple[np.ndarray, dict]:
        """-> (V,) int64 gradient steps each embedding row took, and the job's metrics, summed
        over ranks and threads (a collective under torch.distributed: every rank calls it)."""
        self._sync()
        s = self.state
        counts = self.dist.sum(s.update_counts.sum(axis=0))
        words, kept = self.dist.sum(np.array([s.words_done, s.kept_words], dtype=np.int64)).tolist()
        return counts, {"words": words, "kept_words": kept, "final_lr": self.lr}

    def close(self) -> None:
        self.cache.close()

    def _sync(self) -> None:
        if self.engine is not None:
            self.engine.sync_state()

    def _tables(self) -> list[torch.Tensor]:
        """The two tables as tensors sharing memory with what the engine writes."""
        if self.engine is not None:
            return [self.engine.w_in, self.engine.w_out]
        return [torch.from_numpy(self.state.w_in), torch.from_numpy(self.state.w_out)]

    def _share_updates(self) -> None:
        self.dist.sum_updates(self._tables(), self._bases)

    def _reseed(self, words_done: int) -> None:
        """A distributed rank's own LCG streams (a resume draws new ones: ranks do not save theirs)."""
        seeds = np.random.SeedSequence((self.w2v.seed, self.dist.rank, words_done))
        self.state.rng_state[:] = seeds.generate_state(self.w2v.threads, dtype=np.uint64)


def _shard_total(vocab: WordVocab, dist: Dist) -> int:
    """This rank's share of one epoch's words (lines are dealt round-robin, so about 1/world)."""
    return max(1, vocab.total // dist.world)


def _batched(state: TrainState, tables, config: Word2VecConfig, device: torch.device):
    from embedlab.train.batched import BatchedTrainer  # torch engine, only for accelerator devices

    return BatchedTrainer(state, tables, config, device)
