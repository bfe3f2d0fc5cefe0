"""Initialisation scale, measured: TinyLM with its token table drawn N(0, σ²) for σ over several
decades, each σ's per-layer activation and gradient norms at init and its loss over the first steps.

    sweep = init_sweep()                                      # σ = 1e-4 … 100, AdamW, untied head
    [(r.sigma, r.verdict, round(r.final_loss, 2)) for r in sweep.runs]
    init_sweep((1e-2, 1.0, 100.0), optimizer="sgd", tied=True).runs[-1].verdict     # "explodes"

Every σ gets the same model otherwise: one seed builds TinyLM (its usual init: positions, blocks and
an untied head at torch's and the recipe's defaults), one standard-normal draw z (V, D) makes the
table σ·z, and one sequence of batches trains it. The text is the first `corpus_bytes` UTF-8 bytes
of a built-in corpus, read as bytes (the arena's ByteTokenizer: V = 256, nothing trained, no unknowns).

What each σ is called, from its loss curve (`classify`), with ln V the loss of a uniform guess
(zero logits) and H₁ the entropy of the training bytes' unigram frequencies (what a model that
ignores its context can reach at best):

    explodes  a loss is not finite, or the final loss is above ln V + MARGIN: after the steps the
              model predicts worse than a uniform guess (its logits are too large to be tamed)
    stalls    the final loss is at or above H₁ − MARGIN: it learned the bytes' frequencies at most,
              no use of its context
    learns    the final loss is below H₁ − MARGIN

"final loss" is the mean training loss of the last FINAL_WINDOW steps (one batch is noisy).

The two optimisers: "adamw" is how TinyLM trains in embedlab (models.lm.train_step: AdamW at
3e-3, gradients clipped to a global norm of 1); "sgd" is plain SGD at 0.1 without clipping, where
a gradient's size reaches the step unchanged. Pre-norm LayerNorm (every block reads LN(x)) and
Adam's per-parameter normalisation each take much of the scale out; a tied head does not, since
its logits are h · E[i] with E the σ-scaled table itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
import torch
from torch import nn

from embedlab.arena.tokens import ByteTokenizer, encode_lines
from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError, check_choice, check_float, check_int
from embedlab.models.lm import LMConfig, TinyLM, adamw, next_piece_loss, train_step, window_batch

SIGMAS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)  # six decades
MIN_SIGMA, MAX_SIGMA = 1e-6, 1e4
MAX_SIGMAS = 12  # σ values in one sweep: each trains a model
MAX_STEPS = 200  # a lab sweep at 200 steps takes ~30 s
OPTIMIZERS = {"adamw": 3e-3, "sgd": 0.1}  # name -> learning rate
HEADS = ("untied", "tied")  # the lab's names for tied=False, tied=True
VERDICTS = ("explodes", "stalls", "learns")
MARGIN = 0.1  # nats: well above the noise of a 10-step mean of 1,024-byte batch losses (~0.02 here)
FINAL_WINDOW = 10  # steps whose mean loss is the final loss
VOCAB = ByteTokenizer.vocab_size  # 256


@dataclass(frozen=True)
class SigmaRun:
    """One σ: norms at init (one batch, one backward pass) and the loss of each training step."""

    sigma: float
    activation_norms: list[float]  # mean row norm of each of InitSweep.activation_layers, at init
    gradient_norms: list[float]  # ‖∂L/∂θ‖ of each of InitSweep.gradient_layers' parameters, at init
    losses: list[float]  # (steps,) each batch's loss before its step; losses[0] is at init
    final_loss: float  # mean of the last FINAL_WINDOW losses (nan/inf when one is not finite)
    verdict: str  # one of VERDICTS (see classify)


@dataclass(frozen=True)
class InitSweep:
    """A σ sweep of TinyLM's token table: one SigmaRun per σ, smallest σ first."""

    corpus: str
    corpus_bytes: int  # UTF-8 bytes (line breaks included) of the text trained on: the corpus's first ones
    optimizer: str  # one of OPTIMIZERS
    lr: float
    tied: bool  # the head reads the σ-scaled table itself
    steps: int
    batch_size: int  # B windows of context + 1 bytes
    context: int  # T
    dim: int  # D
    n_layers: int
    seed: int
    uniform_loss: float  # ln V: zero logits
    unigram_loss: float  # H₁ of the training bytes, in nats
    margin: float  # MARGIN
    final_window: int  # FINAL_WINDOW
    activation_layers: list[str]  # "token rows", "token + position", "block 1", …, "final norm", "logits"
    gradient_layers: list[str]  # "token table", "positions", "block 1", …, "final norm", ("head" untied)
    runs: list[SigmaRun]


def classify(losses: list[float], uniform_loss: float, unigram_loss: float) -> tuple[float, str]:
    """A loss curve -> (final loss, verdict) by the rules in the module docstring.

    >>> classify([5.5] + [2.0] * FINAL_WINDOW, uniform_loss=5.5, unigram_loss=3.2)   # the last 10 steps' mean
    (2.0, 'learns')
    >>> [classify(c, 5.5, 3.2)[1] for c in ([5.5, 3.2, 3.15], [600.0, 20.0], [5.5, float("nan")])]
    ['stalls', 'explodes', 'explodes']
    """
    if not losses:
        raise InvalidValueError("a loss curve needs at least one loss; got none")
    tail = losses[-FINAL_WINDOW:]
    final = float(np.mean(tail)) if all(math.isfinite(x) for x in tail) else math.inf
    if not all(math.isfinite(x) for x in losses) or final > uniform_loss + MARGIN:
        return final, "explodes"
    return final, ("stalls" if final >= unigram_loss - MARGIN else "learns")


@cache
def corpus_ids(corpus: str, corpus_bytes: int) -> np.ndarray:
    """The first `corpus_bytes` UTF-8 bytes of `corpus` (its lines, each ending in "\\n") -> (N,) int64
    byte ids, N = corpus_bytes or fewer if the corpus is shorter (read-only; kept once per argument pair)."""
    lines, size = [], 0
    for line in open_corpus(corpus):
        lines.append(line)
        size += len(line.encode("utf-8")) + 1
        if size >= corpus_bytes:
            break
    ids = encode_lines(ByteTokenizer(), lines)[:corpus_bytes]
    ids.flags.writeable = False
    return ids


def unigram_entropy(ids: np.ndarray, vocab_size: int) -> float:
    """H₁ = −Σ p log p (nats) of the ids' frequencies.

    >>> round(unigram_entropy(np.array([0, 1, 0, 1]), 2), 6) == round(math.log(2), 6)
    True
    """
    p = np.bincount(ids, minlength=vocab_size) / len(ids)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def build_model(sigma: float, config: LMConfig, seed: int) -> TinyLM:
    """TinyLM at its usual init for `seed` (the global RNG is left as it was), token table σ·z with
    z (V, D) ~ N(0, 1) drawn from torch.Generator().manual_seed(seed): every σ scales the same z."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = TinyLM(config)
    z = torch.randn(config.vocab_size, config.dim, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        model.embed.token.weight.copy_(sigma * z)
    return model


def activation_norms(model: TinyLM, ids: torch.Tensor) -> dict[str, float]:
    """(B, T) ids -> the mean L2 norm of a row (over B·T) of each stage of TinyLM.hidden and forward:
    token rows, token + position, each block's output, the final LayerNorm, the logits."""
    parts = model.embed.addends(ids)
    found = {"token rows": parts.token, "token + position": parts.output}
    x, T = parts.output, ids.shape[-1]
    mask = nn.Transformer.generate_square_subsequent_mask(T, dtype=x.dtype)
    for i, block in enumerate(model.blocks, 1):
        x = found[f"block {i}"] = block(x, src_mask=mask, is_causal=True)
    h = found["final norm"] = model.norm(x)
    found["logits"] = model.head(h)
    return {name: value.norm(dim=-1).mean().item() for name, value in found.items()}


def gradient_norms(model: TinyLM, batch: torch.Tensor) -> dict[str, float]:
    """(B, T + 1) windows -> ‖∂L/∂θ‖ (the L2 norm over every entry) of each part's parameters, from
    one backward pass of the mean next-byte loss. A tied head is the token table: its share is in
    "token table" and it has no entry of its own."""
    parts = {"token table": [model.embed.token.weight], "positions": list(model.embed.position.parameters())}
    parts |= {f"block {i}": list(block.parameters()) for i, block in enumerate(model.blocks, 1)}
    parts["final norm"] = list(model.norm.parameters())
    if not model.config.tied:
        parts["head"] = list(model.head.parameters())
    model.zero_grad(set_to_none=True)
    next_piece_loss(model, batch).backward()
    norms = {
        name: torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in ps])).item() for name, ps in parts.items()
    }
    model.zero_grad(set_to_none=True)
    return norms


def sgd_step(model: TinyLM, optimizer: torch.optim.Optimizer, batch: torch.Tensor) -> torch.Tensor:
    """One plain SGD step (no clipping) on (B, T + 1) windows -> the loss before it, detached."""
    optimizer.zero_grad(set_to_none=True)
    loss = next_piece_loss(model, batch)
    loss.backward()
    optimizer.step()
    return loss.detach()


def init_sweep(
    sigmas: tuple[float, ...] | list[float] = SIGMAS,
    optimizer: str = "adamw",
    tied: bool = False,
    steps: int = 60,
    batch_size: int = 16,
    context: int = 64,
    dim: int = 64,
    n_layers: int = 2,
    seed: int = 0,
    corpus: str = "enwiki-sample",
    corpus_bytes: int = 300_000,
) -> InitSweep:
    """Train TinyLM (D = dim, 4 heads) `steps` steps for each σ in `sigmas`; see the module docstring.

    Cost: ~1.5 s per σ at the defaults on one CPU core (60 steps of 16 × 64 bytes, D 64, 2 layers).
    """
    sigmas = sorted(check_float("sigma", s, low=MIN_SIGMA, high=MAX_SIGMA) for s in sigmas)
    if not 1 <= len(sigmas) <= MAX_SIGMAS:
        raise InvalidValueError(f"sigmas must hold 1 to {MAX_SIGMAS} values; got {len(sigmas)}")
    check_choice("optimizer", optimizer, tuple(OPTIMIZERS))
    steps = check_int("steps", steps, low=1, high=MAX_STEPS)
    batch_size = check_int("batch_size", batch_size, low=1)
    config = LMConfig(VOCAB, dim, n_layers, n_heads=4, context=context, tied=bool(tied))
    ids = corpus_ids(corpus, check_int("corpus_bytes", corpus_bytes, low=1))
    if len(ids) <= context + 1:
        raise InvalidValueError(f"corpus_bytes must give more than context + 1 = {context + 1} bytes; got {len(ids)}")
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    starts = rng.integers(0, len(ids) - context - 1, size=(steps, batch_size))  # the same batches for every σ
    uniform, unigram = math.log(VOCAB), unigram_entropy(ids, VOCAB)
    lr = OPTIMIZERS[optimizer]

    runs, activations, gradients = [], {}, {}
    for sigma in sigmas:
        model = build_model(sigma, config, seed)
        first = window_batch(ids, starts[0], context)  # (B, T + 1)
        with torch.no_grad():
            activations = activation_norms(model, first[:, :-1])
        gradients = gradient_norms(model, first)
        step = torch.optim.SGD(model.parameters(), lr=lr) if optimizer == "sgd" else adamw(model, lr)
        losses = []
        for batch_starts in starts:
            batch = window_batch(ids, batch_starts, context)
            loss = sgd_step(model, step, batch) if optimizer == "sgd" else train_step(model, step, batch, lr)
            losses.append(loss.item())
            if not math.isfinite(losses[-1]):
                break  # nothing after a non-finite loss is worth computing: the run has exploded
        final, verdict = classify(losses, uniform, unigram)
        runs.append(SigmaRun(sigma, list(activations.values()), list(gradients.values()), losses, final, verdict))
    return InitSweep(
        corpus=corpus,
        corpus_bytes=int(len(ids)),
        optimizer=optimizer,
        lr=lr,
        tied=bool(tied),
        steps=steps,
        batch_size=batch_size,
        context=context,
        dim=dim,
        n_layers=n_layers,
        seed=seed,
        uniform_loss=uniform,
        unigram_loss=unigram,
        margin=MARGIN,
        final_window=FINAL_WINDOW,
        activation_layers=list(activations),
        gradient_layers=list(gradients),
        runs=runs,
    )
