"""The language model as a resumable job for `embedlab.train.run`: one step is one AdamW step.

    job = LMJob.create(corpus, RunConfig(corpus="enwiki-sample", method="lm"), out, resume=False)
    for _ in job.steps(epoch=0, skip=0): ...      # batches of windows in a seeded order per epoch
    counts, metrics = job.gather()                # update counts; validation loss, perplexity, ...

The corpus is read once: a byte-level BPE tokenizer is trained on it (or loaded on resume), then
every line is encoded and its piece ids appended to a temporary file that training reads through
a memory map, so memory holds the model, not the corpus. Every 20th line goes to a validation
file instead. Each epoch visits the training windows (`lm.windows`: non-overlapping, context + 1
pieces) in an order drawn from (seed, epoch), so a resume at step k of an epoch sees the batches
an uninterrupted run would. Under torch.distributed each rank takes every world-th window of that
order and DistributedDataParallel averages the gradients.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer
from torch.nn.parallel import DistributedDataParallel

from embedlab.errors import InvalidValueError
from embedlab.models.lm import LMConfig, TinyLM, adamw, evaluate, train_step, warmup_cosine, window_batch
from embedlab.tokenizer import FastTokenizer
from embedlab.tokenizer.bytes import piece_word
from embedlab.train.config import RunConfig
from embedlab.train.distributed import Dist
from embedlab.vectors.io.run import RUN_TOKENIZER

VALIDATION_EVERY = 20  # line i goes to validation when i % 20 == 19: 5% of the corpus, spread through it
VALIDATION_WINDOWS = 256  # at most this many windows are scored for the validation loss
WARMUP = 0.02  # share of the steps over which the learning rate rises to its peak


class LMJob:
    """The lm method under `run.train`: see `job.Job` for what each member means to the run loop."""

    unit = "pieces"
    setup_file = RUN_TOKENIZER

    @classmethod
    def create(cls, lines: Iterable[str], config: RunConfig, out: Path, resume: bool, dist: Dist) -> LMJob:
        """Train the tokenizer (rank 0, on its shard; shared with the other ranks) or load it on resume."""
        if resume:
            tokenizer = FastTokenizer.load(out / cls.setup_file)
        else:
            text = FastTokenizer.train(lines, config.vocab_size).tokenizer.to_str() if dist.main else None
            if dist.world > 1:
                shared = [text]
                torch.distributed.broadcast_object_list(shared, src=0)
                text = shared[0]
            tokenizer = FastTokenizer(Tokenizer.from_str(text))
        return cls(lines, tokenizer, config, dist)

    def __init__(self, lines: Iterable[str], tokenizer: FastTokenizer, config: RunConfig, dist: Dist) -> None:
        self.tokenizer, self.config, self.dist = tokenizer, config, dist
        self.device = torch.device(config.device)
        torch.set_num_threads(config.threads)
        self._files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]  # training, validation ids
        counts = _encode(lines, tokenizer, *self._files)
        self.counts = dist.sum(counts)
        self.train_ids = _memmap(self._files[0])
        valid = _memmap(self._files[1])
        self.windows = (len(self.train_ids) - 1) // config.context  # M non-overlapping windows
        per_rank = self.windows // dist.world
        if per_rank < 1 or len(valid) <= config.context:
            raise InvalidValueError(
                f"corpus too small for context {config.context}: {len(self.train_ids)} training and "
                f"{len(valid)} validation pieces"
            )
        self.steps_per_epoch = math.ceil(per_rank / config.batch_size)
        stride = config.context
        n_valid = min(VALIDATION_WINDOWS, (len(valid) - 1) // stride)
        self.valid = window_batch(valid, np.arange(n_valid) * stride, stride)

        torch.manual_seed(config.seed)  # the same initial model on every rank
        lm = LMConfig(tokenizer.vocab_size, config.dim, config.layers, config.heads, config.context, config.tied)
        self.model = TinyLM(lm, device=self.device)
        # frozen: no gradient and no optimizer state; tied, the head is the same Parameter and is fixed too
        self.model.embed.token.weight.requires_grad_(not config.freeze)
        self.ddp = DistributedDataParallel(self.model) if dist.world > 1 else self.model
        self.optimizer = adamw(self.model, config.lr)
        self.step_count = 0  # optimizer steps taken, all epochs
        self.pieces_done = 0  # input pieces trained on, this rank
        self.epoch_loss = [0.0, 0]  # sum of batch losses and batches this epoch
        self.update_counts_local = np.zeros(tokenizer.vocab_size, dtype=np.int64)
        self.history: list[dict] = []  # validation after each epoch

    @property
    def keys(self) -> list[str]:
        return [self.tokenizer.piece(i) for i in range(self.tokenizer.vocab_size)]

    @property
    def total(self) -> int:
        per_step = self.config.batch_size * self.config.context * self.dist.world
        return self.config.epochs * self.steps_per_epoch * per_step

    @property
    def done(self) -> int:
        return self.pieces_done * self.dist.world

    @property
    def loss(self) -> float:
        return self.epoch_loss[0] / self.epoch_loss[1] if self.epoch_loss[1] else math.nan

    @property
    def lr(self) -> float:
        """Linear warm-up to config.lr over the first WARMUP of the steps, then cosine decay to
        config.min_lr at the last step."""
        total = self.config.epochs * self.steps_per_epoch
        warmup = max(1, int(WARMUP * total))
        progress = max(0, self.step_count - warmup) / max(1, total - warmup)  # the cosine starts after the warm-up
        return warmup_cosine(self.step_count, warmup, progress, self.config.lr, self.config.min_lr)

    def steps(self, epoch: int, skip: int) -> Iterator[None]:
        """AdamW steps of epoch `epoch`, from its step `skip` on."""
        if skip == 0:
            self.epoch_loss = [0.0, 0]
        B, T = self.config.batch_size, self.config.context
        order = torch.randperm(self.windows, generator=torch.Generator().manual_seed(self.config.seed * 1000 + epoch))
        mine = order[self.dist.rank :: self.dist.world][: self.windows // self.dist.world].numpy()
        self.model.train()
        for step in range(skip, self.steps_per_epoch):
            batch = window_batch(self.train_ids, mine[step * B : (step + 1) * B] * T, T).to(self.device)
            loss = train_step(self.ddp, self.optimizer, batch, self.lr)
            self.step_count += 1
            inputs = batch[:, :-1].reshape(-1).cpu().numpy()
            self.update_counts_local += np.bincount(inputs, minlength=len(self.update_counts_local))
            self.pieces_done += inputs.size
            self.epoch_loss[0] += loss.item()
            self.epoch_loss[1] += 1
            yield
        if self.dist.main:
            loss, perplexity = evaluate(self.model, self.valid)
            self.history.append({"epoch": epoch, "train_loss": self.loss, "validation_loss": loss,
                                 "perplexity": perplexity})  # fmt: skip

    def init_rows(self, ids: np.ndarray, rows: np.ndarray) -> None:
        with torch.no_grad():
            self.model.embed.token.weight[torch.as_tensor(ids, device=self.device)] = torch.as_tensor(
                rows, dtype=torch.float32, device=self.device
            )

    def save_setup(self, out: Path) -> None:
        self.tokenizer.counts = self.counts.tolist()
        self.tokenizer.save(out / self.setup_file)

    def table(self) -> np.ndarray:
        return self.model.token_table.detach().cpu().numpy()

    def rows(self, ids: np.ndarray) -> np.ndarray:
        return self.model.token_table.detach()[torch.as_tensor(ids, device=self.device)].cpu().numpy()

    def word_rows(self) -> tuple[list[str], np.ndarray]:
        """Pieces that are whole words after a space ("Ġking" -> "king") and their rows: what word
        benchmarks can score."""
        keys, rows = [], []
        table = self.table()
        for i, piece in enumerate(self.keys):
            word = piece_word(piece)
            if word is not None:
                keys.append(word)
                rows.append(i)
        return keys, table[rows]

    def state_dict(self) -> tuple[dict[str, np.ndarray], dict]:
        arrays = {f"model.{k}": v for k, v in self.model.state_dict().items()}
        arrays["update_counts"] = self.dist.sum(self.update_counts_local)  # a collective: all ranks call it
        meta = {"optimizer": self.optimizer.state_dict(), "step_count": self.step_count, "history": self.history,
                "pieces_done": self.pieces_done, "epoch_loss": list(self.epoch_loss)}  # fmt: skip
        return arrays, meta

    def load_state_dict(self, arrays: dict[str, np.ndarray], meta: dict) -> None:
        state = {k[6:]: torch.as_tensor(v) for k, v in arrays.items() if k.startswith("model.")}
        self.model.load_state_dict(state)
        self.optimizer.load_state_dict(meta["optimizer"])
        self.step_count, self.pieces_done = meta["step_count"], meta["pieces_done"]
        self.epoch_loss, self.history = list(meta["epoch_loss"]), list(meta["history"])
        self.update_counts_local[:] = arrays["update_counts"] if self.dist.main else 0

    def gather(self) -> tuple[np.ndarray, dict]:
        """-> (V,) int64 how often each row was looked up as an input (the count of its sparse
        gradients; tied, every row also gets gradient through the output softmax at every step),
        and the metrics: validation loss and perplexity, the unigram baseline, parameter counts.
        A collective under torch.distributed: every rank calls it."""
        counts = self.dist.sum(self.update_counts_local)
        pieces = int(self.dist.sum(np.array([self.pieces_done]))[0])
        loss, perplexity = evaluate(self.model, self.valid)
        p = (self.counts + 1) / (self.counts + 1).sum()  # add-one unigram: the baseline context must beat
        unigram = -float(np.mean(np.log(p[self.valid[:, 1:].reshape(-1).numpy()])))
        return counts, {"pieces": pieces, "validation_loss": loss, "perplexity": perplexity, "unigram_loss": unigram,
                "parameters": self.model.parameter_count(), "tied": self.config.tied,
                "embedding_parameters": self.model.token_table.numel(), "history": self.history}  # fmt: skip

    def save_outputs(self, out: Path) -> None:
        """Nothing beyond the table: the tokenizer is already in the folder (save_setup)."""

    def close(self) -> None:
        for f in self._files:
            f.close()


def _encode(lines: Iterable[str], tokenizer: FastTokenizer, train_file, valid_file, batch: int = 2048) -> np.ndarray:
    """Append each line's piece ids (and a newline piece) as int32 to the training or validation
    file -> (V,) int64 piece counts of the training part."""
    counts = np.zeros(tokenizer.vocab_size, dtype=np.int64)
    pending: list[tuple[int, str]] = []

    def flush() -> None:
        encodings = tokenizer.tokenizer.encode_batch([text for _, text in pending], add_special_tokens=False)
        parts: tuple[list[int], list[int]] = ([], [])  # training, validation
        for (i, _), enc in zip(pending, encodings, strict=True):
            parts[i % VALIDATION_EVERY == VALIDATION_EVERY - 1].extend(enc.ids)
        train, valid = (np.asarray(part, dtype=np.int32) for part in parts)
        train_file.write(train.tobytes())
        valid_file.write(valid.tobytes())
        counts[:] += np.bincount(train, minlength=len(counts))
        pending.clear()

    for i, line in enumerate(lines):
        pending.append((i, line + "\n"))
        if len(pending) == batch:
            flush()
    if pending:
        flush()
    train_file.flush()
    valid_file.flush()
    return counts


def _memmap(file) -> np.ndarray:
    size = os.fstat(file.fileno()).st_size // 4
    return np.memmap(file, dtype=np.int32, mode="r", shape=(size,)) if size else np.zeros(0, np.int32)
