"""A small causal language model over BPE pieces, built from embedlab's own layers.

    ids (B, T) -> InputEmbedding (gpt2 recipe: token + learned position) -> n pre-norm blocks
               -> LayerNorm -> LMHead (tied: the token table itself; untied: its own V × D)
               -> logits (B, T, V)

The saved embedding is the token table `model.token_table` (V, D). Tying makes one table serve
both ends: the input reads row i for piece i, the output scores piece i by h · E[i], so the
table receives gradient from both uses and the model has V·D fewer parameters.

The token table is a full (V, D) one unless `config.table` names another kind (models/tables.py):
hashed, hash embeddings or quotient-remainder rows (read back by an untied full head, or tied
through the rows they compose), or adaptive input tied to an adaptive softmax, whose loss then
replaces the full softmax's cross-entropy in training and whose log-probabilities are the (B, T, V)
scores `forward` returns (their log-softmax is themselves, so bits are scored alike).

How TinyLM trains is written here once, for the lm training method (train/lm_job.py) and the
arena's text strategies (arena/text.py): windows of context + 1 pieces (`windows`, `window_batch`),
AdamW (`adamw`), one clipped step (`train_step`) and a warm-up/cosine rate (`warmup_cosine`).

    optimizer = adamw(model, lr=3e-3)
    for step, starts in enumerate(batches_of_window_starts):
        lr = warmup_cosine(step, warmup=20, progress=step / steps, peak=3e-3, floor=3e-4)
        loss = train_step(model, optimizer, window_batch(ids, starts, model.config.context), lr)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import InvalidValueError, check_choice, check_float, check_int
from embedlab.layers.adaptive import AdaptiveSoftmax
from embedlab.layers.recipes import InputEmbedding, recipe
from embedlab.models.tables import TableConfig, make_head, make_table
from embedlab.sizing import COMBINES

CLIP_NORM = 1.0  # gradients are clipped to this global norm before a step: one odd batch cannot throw the table off


@dataclass(frozen=True)
class LMConfig:
    """Shape of the model: `context` is the longest window it reads (its position table).

    No shape has a default here: a training run's come from `train.config.RunConfig`, the one
    place they are written.
    """

    vocab_size: int
    dim: int  # D
    n_layers: int
    n_heads: int
    context: int  # T at most
    tied: bool  # the output head reads the token table (head.weight is token.weight)
    dropout: float = 0.0
    table: TableConfig = TableConfig()  # how the token table stores its rows; "full": one (V, D) table
    combine: str = "add"  # add: token + position rows, width D; concat: [token | position], the body 2·D wide

    def __post_init__(self) -> None:
        check_int("vocab_size", self.vocab_size, low=2)
        check_int("dim", self.dim, low=1)
        check_int("n_layers", self.n_layers, low=0)
        check_int("n_heads", self.n_heads, low=1)
        check_int("context", self.context, low=1)
        check_float("dropout", self.dropout, low=0.0, high=1.0)
        if not isinstance(self.table, TableConfig):
            raise InvalidValueError(f"table must be a TableConfig; got {type(self.table).__name__}")
        if self.dim % self.n_heads:
            raise InvalidValueError(f"dim must be a multiple of n_heads ({self.n_heads}); got {self.dim}")
        check_choice("combine", self.combine, COMBINES)
        if self.combine == "concat" and (self.tied or self.table.kind != "full"):
            raise InvalidValueError(
                f"concat needs a full token table and an untied head (the body is {self.width} wide, the "
                f"table {self.dim}); got tied {self.tied}, table {self.table.kind!r}"
            )

    @property
    def width(self) -> int:
        """W, the width of the blocks: D, or 2·D with concatenated token and position rows."""
        return self.dim if self.combine == "add" else 2 * self.dim


def pre_norm_blocks(
    dim: int, n_heads: int, n_layers: int, dropout: float = 0.0, device=None, dtype=None
) -> nn.ModuleList:
    """`n_layers` pre-norm transformer blocks of width `dim` (attention, then a GELU feed-forward of
    4·dim, each after its LayerNorm): the body TinyLM and models.vit.ViT share, as GPT-2 and ViT do.
    Pre-norm trains stably without a long warm-up at these sizes."""
    return nn.ModuleList(
        nn.TransformerEncoderLayer(
            dim,
            n_heads,
            4 * dim,
            dropout,
            activation="gelu",
            batch_first=True,
            norm_first=True,
            device=device,
            dtype=dtype,
        )  # fmt: skip
        for _ in range(n_layers)
    )


class TinyLM(nn.Module):
    """GPT-2-shaped causal LM: (B, T) ids -> (B, T, V) next-piece logits, T <= config.context.

    With an adaptive table the (B, T, V) scores are log-probabilities (any logits would do: only
    their log-softmax is read, and a log-probability's is itself).
    """

    def __init__(self, config: LMConfig, device=None, dtype=None) -> None:
        super().__init__()
        self.config = c = config
        full = c.table.kind == "full"
        table = None if full else make_table(c.table, c.vocab_size, c.dim)
        embedding = recipe("gpt2", c.vocab_size, c.dim, max_len=c.context, tied_head=c.tied, combine=c.combine)
        self.embed = InputEmbedding(embedding, device=device, dtype=dtype, token=table)
        assert self.embed.width == c.width  # the recipe's 2 addends (token, learned position) are what width counts
        self.blocks = pre_norm_blocks(c.width, c.n_heads, c.n_layers, c.dropout, device, dtype)
        self.norm = nn.LayerNorm(c.width, device=device, dtype=dtype)
        if full:
            self.head = self.embed.make_head()
        else:  # built after the body, as a full head is; the tie (if any) is inside make_head
            self.head = make_head(c.table, self.embed.token, c.vocab_size, c.dim, c.tied).to(device=device, dtype=dtype)
        self.adaptive = isinstance(self.head, AdaptiveSoftmax)

    @property
    def token_table(self) -> torch.Tensor:
        """(V, D) the token embedding table: what a training run saves. A table of another kind
        than "full" gives the rows it composes for every id (computed, not a Parameter)."""
        if self.config.table.kind == "full":
            return self.embed.token.weight
        return self.embed.token(torch.arange(self.config.vocab_size, device=self.norm.weight.device)[None])[0]

    def hidden(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, T) int ids -> (B, T, D) final hidden states (after the last LayerNorm)."""
        T = ids.shape[-1]
        if T > self.config.context:
            raise InvalidValueError(f"sequence length must be <= context ({self.config.context}); got {T}")
        x = self.embed(ids)
        mask = nn.Transformer.generate_square_subsequent_mask(T, device=x.device, dtype=x.dtype)
        for block in self.blocks:
            x = block(x, src_mask=mask, is_causal=True)
        return self.norm(x)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, T) int ids -> (B, T, V) logits; position t sees pieces 0..t only."""
        h = self.hidden(ids)  # (B, T, D)
        if self.adaptive:  # every id scored: (B·T, V) log-probabilities
            return self.head.log_prob(h.reshape(-1, h.shape[-1])).reshape(*h.shape[:-1], -1)
        return self.head(h)

    def loss(self, windows: torch.Tensor) -> torch.Tensor:
        """(B, T + 1) ids -> mean cross-entropy of predicting pieces 1..T from those before.

        An adaptive softmax scores each target within its own cluster only (AdaptiveSoftmax.forward):
        the same loss as the cross-entropy of `forward`'s scores, to float round-off, at less cost.
        """
        if not self.adaptive:
            return next_piece_loss(self, windows)
        h = self.hidden(windows[:, :-1])  # (B, T, D)
        return self.head(h.reshape(-1, h.shape[-1]), windows[:, 1:].reshape(-1)).loss

    def parameter_count(self) -> int:
        """Trainable numbers, a tied table counted once (nn.Module.parameters() dedups it)."""
        return sum(p.numel() for p in self.parameters())


def next_piece_loss(net: nn.Module, batch: torch.Tensor) -> torch.Tensor:
    """(B, T + 1) ids -> mean cross-entropy of `net`'s (B, T, V) logits for pieces 1..T, read from
    pieces 0..T-1. `net` is a TinyLM or a DistributedDataParallel around one (called, so that DDP
    averages the gradients over ranks)."""
    logits = net(batch[:, :-1])  # (B, T, V)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))


def windows(ids: np.ndarray | torch.Tensor, context: int) -> torch.Tensor:
    """(N,) piece ids -> (M, context + 1) int64 non-overlapping windows, M = (N - 1) // context;
    each window's last piece is the next window's first, so every piece is predicted once."""
    context = check_int("context", context, low=1)
    ids = torch.as_tensor(np.asarray(ids), dtype=torch.int64)
    m = (ids.numel() - 1) // context
    if m < 1:
        raise InvalidValueError(
            f"need at least {context + 1} pieces for one window of context {context}; got {ids.numel()}"
        )
    return ids[: m * context + 1].unfold(0, context + 1, context)


def window_batch(ids: np.ndarray, starts: np.ndarray | torch.Tensor, context: int) -> torch.Tensor:
    """(N,) piece ids (an array or a memory map: only the rows asked for are read), (B,) window
    starts -> (B, context + 1) int64, row b = ids[starts[b] : starts[b] + context + 1].

    A training batch is the windows of `windows` (starts 0, T, 2T, ...) that a shuffled order picks.

    >>> window_batch(np.arange(10), np.array([4, 0]), 3).tolist()
    [[4, 5, 6, 7], [0, 1, 2, 3]]
    """
    starts = np.asarray(starts, dtype=np.int64)
    return torch.as_tensor(np.asarray(ids[starts[:, None] + np.arange(context + 1)], dtype=np.int64))


def adamw(model: nn.Module, lr: float) -> torch.optim.AdamW:
    """TinyLM's optimiser: AdamW with GPT-2's betas (0.9, 0.95); no weight decay, which would pull
    the rows of rarely seen pieces toward zero between their updates. Frozen parameters
    (requires_grad False, a fixed token table) are left out: it never touches them."""
    trainable = [p for p in model.parameters() if p.requires_grad]
    return torch.optim.AdamW(trainable, lr=lr, betas=(0.9, 0.95), weight_decay=0.0)


def warmup_cosine(step: int, warmup: int, progress: float, peak: float, floor: float) -> float:
    """The learning rate of optimizer step `step` (from 0): a linear warm-up over the first `warmup`
    steps, times a cosine from `peak` down to `floor` as `progress` runs from 0 to 1 (held past 1).

    What `progress` counts is the caller's: the lm training method, the steps after the warm-up
    (so the warm-up reaches `peak`); the arena, the share of its training time spent.

    >>> [round(warmup_cosine(s, 4, p, 1.0, 0.1), 6) for s, p in ((0, 0.0), (3, 0.0), (9, 0.5), (9, 2.0))]
    [0.25, 1.0, 0.55, 0.1]
    """
    warm = min(1.0, (step + 1) / warmup)
    return warm * (floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def train_step(net: nn.Module, optimizer: torch.optim.Optimizer, batch: torch.Tensor, lr: float) -> torch.Tensor:
    """One optimizer step at rate `lr` on (B, T + 1) windows, on `net`'s device -> the batch's mean
    loss before the step, a detached 0-d tensor (reading it with .item() waits for the device).

    Gradients are clipped to a global norm of CLIP_NORM first. `net` is a TinyLM (its own loss:
    an adaptive softmax's where it has one) or a DistributedDataParallel around one (the
    cross-entropy of its scores, called through DDP so that it averages the gradients).
    """
    for group in optimizer.param_groups:
        group["lr"] = lr
    optimizer.zero_grad(set_to_none=True)
    loss = net.loss(batch) if isinstance(net, TinyLM) else next_piece_loss(net, batch)
    loss.backward()
    nn.utils.clip_grad_norm_(net.parameters(), CLIP_NORM)
    optimizer.step()
    return loss.detach()


@torch.no_grad()
def evaluate(model: TinyLM, data: torch.Tensor, batch_size: int = 64) -> tuple[float, float]:
    """Mean loss over (M, T + 1) windows and its perplexity exp(loss), in eval mode."""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for start in range(0, data.shape[0], batch_size):
        batch = data[start : start + batch_size].to(model.norm.weight.device)
        total += model.loss(batch).item() * batch.shape[0]
        count += batch.shape[0]
    model.train(was_training)
    loss = total / count
    return loss, math.exp(loss)
