"""word2vec on torch tensors: the skip-gram and CBOW of kernels.py as minibatched steps, for GPUs.

    state, tables = TrainState.new(vocab, config), vocab_tables(vocab, config.sample)   # tables.py
    trainer = BatchedTrainer(state, tables, config, device="cuda")
    with ChunkCache(open_corpus("gcide"), vocab, 100_000) as chunks:
        for epoch in range(config.epochs):
            for chunk in chunks:
                lr = trainer.train_chunk(chunk)
    Vectors(vocab.index_to_key, trainer.sync_state().w_in)

The model is kernels.py's: the same subsampling, dynamic window, unigram^0.75 noise (drawn from the
same cum_table), MAX_EXP cut, linear learning rate over the whole run, gensim's pair order (a
context word's input row predicts the centre word) and gensim's CBOW step. What differs is the
order of the arithmetic. The numba engine steps pair by pair, each step seeing the last one's
tables; here a chunk becomes tensors of all its pairs (skip-gram) or windows (CBOW), cut into
minibatches of `batch_pairs`, and every example of a minibatch is scored against the same tables.
Its updates are summed into the rows with index_add_, so a row that comes up k times in a
minibatch takes the sum of k steps, as Hogwild threads would apply them without seeing each other;
past `max_steps` such steps the sum is scaled down (row_share), which keeps large minibatches stable.

Randomness: one torch.Generator on the device, seeded at each chunk from config.seed,
state.words_done and state.rng_state (chunk_seed). A state synced and saved after any chunk resumes
with the very draws an unbroken run would make, so on the CPU a resumed run is bit-for-bit the
unbroken one. CUDA sums
index_add_ with atomics in no fixed order, so there the last bits vary from run to run (as the
numba engine's with threads > 1), and CPU and CUDA generators give different draws.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError, check_float, check_int
from embedlab.train.config import RunConfig
from embedlab.train.corpus import Chunk
from embedlab.train.kernels import CBOW_MEAN, LOSS_EVERY, MAX_EXP, linear_lr
from embedlab.train.tables import Tables, TrainState

# Examples (skip-gram pairs, CBOW windows) per step: thousands of rows for a GPU at once, few enough
# that frequent words do not take oversized summed steps. On 2M words of gcide (dim 100, 5 epochs)
# 1,024 and 4,096 score as the numba engine on WordSim, SimLex and Google; 16,384 collapses unless
# MAX_STEPS caps the steps (then it scores within ~0.02 and 1 point of Google).
BATCH_PAIRS = 4096
# A row's summed step in one minibatch counts for at most this many steps (row_share). At 4,096 pairs
# only the noise rows of the two or three most frequent words exceed it, and the scores do not move.
MAX_STEPS = 256.0


def context_windows(sentence: torch.Tensor, span: torch.Tensor, window: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(M,) sentence of each kept word, (M,) span 1..window -> index (M, 2W), mask (M, 2W) bool.

    Row i lists the positions i-W..i-1, i+1..i+W (clamped into 0..M-1); mask says which are a
    context of centre i: inside the sentence and at most span[i] away. Built from the 2W offsets,
    not word by word.

    >>> index, mask = context_windows(torch.tensor([0, 0, 0, 1]), torch.tensor([1, 1, 1, 1]), 1)
    >>> index.tolist(), mask.tolist()
    ([[0, 1], [0, 2], [1, 3], [2, 3]], [[False, True], [True, True], [True, False], [False, False]])
    """
    M = sentence.shape[0]
    near = torch.arange(1, window + 1, device=sentence.device)
    offsets = torch.cat([-near.flip(0), near])  # (2W,): -W..-1, 1..W, the numba kernels' order
    index = torch.arange(M, device=sentence.device)[:, None] + offsets  # (M, 2W)
    inside = (index >= 0) & (index < M)
    index = index.clamp(0, max(M - 1, 0))
    mask = inside & (sentence[index] == sentence[:, None]) & (offsets.abs() <= span[:, None])
    return index, mask


def draw_noise(cum_table: torch.Tensor, top: int, shape: tuple[int, ...], generator: torch.Generator) -> torch.Tensor:
    """(V,) int64 cumulative noise table, top = its last entry as a Python int (so a draw never waits
    for the device) -> `shape` int64 noise rows. gensim's draw: the first row whose entry exceeds r,
    r uniform below top, so row i comes up in proportion to count_i^0.75."""
    r = torch.randint(0, top, shape, generator=generator, device=cum_table.device)
    return torch.searchsorted(cum_table, r, right=True)


def noise_targets(true: torch.Tensor, noise: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(B,) true rows, (B, K) noise rows -> targets (B, K+1) with the true row first, valid (B, K+1)
    bool: a noise draw of the true row is left out, as gensim and kernels.py drop it."""
    targets = torch.cat([true[:, None], noise], dim=1)
    valid = targets != true[:, None]
    valid[:, 0] = True
    return targets, valid


def row_share(rows: torch.Tensor, weight: torch.Tensor, V: int, max_steps: float) -> torch.Tensor:
    """rows (...) int64 of a minibatch's updates, weight (...) 1 for a real update and 0 for none
    -> (...) factor min(1, max_steps / hits), hits the real updates of the same row.

    A row named k > max_steps times takes its summed step times max_steps / k: no more than about
    max_steps steps at once. (Sequential SGD would see each step move the row; a sum of thousands
    taken at one point overshoots.)

    >>> row_share(torch.tensor([2, 0, 2, 2]), torch.ones(4), 3, 1.5).tolist()
    [0.5, 1.0, 0.5, 0.5]
    """
    hits = torch.zeros(V, dtype=weight.dtype, device=rows.device).index_add_(0, rows.reshape(-1), weight.reshape(-1))
    return (max_steps / hits[rows]).clamp(max=1.0)


def ns_step(
    hidden: torch.Tensor, w_out: torch.Tensor, targets: torch.Tensor, valid: torch.Tensor, lr: torch.Tensor,
    max_steps: float = math.inf,
) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
    """Negative sampling for a minibatch of hidden vectors; updates w_out (V, D) in place.

    hidden (B, D), targets (B, K+1) rows (column 0 the true word), valid (B, K+1) bool, lr (B,)
    -> grad (B, D) = -lr ∂L/∂h for the caller to add to the input rows, and the scores
    f = u·h (B, K+1) before the step. Per example L = -log σ(f_0) - Σ_k log σ(-f_k) over valid targets.
    """
    u = F.embedding(targets, w_out)  # (B, K+1, D) the old rows: both gradients are taken at one point
    f = (u * hidden[:, None, :]).sum(2)  # (B, K+1); CPUs run batched matmuls this thin far slower
    # as word2vec, |f| > MAX_EXP counts as saturated: σ is taken as 0 or 1, so a right answer takes no step
    sig = torch.sigmoid(f).masked_fill(f.abs() > MAX_EXP, 0.0) + (f > MAX_EXP)
    label = torch.zeros_like(f[:1])  # (1, K+1)
    label[0, 0] = 1.0
    g = (label - sig) * valid * lr[:, None]  # (B, K+1) = -lr ∂L/∂f
    grad = (g[:, :, None] * u).sum(1)  # (B, D)
    if max_steps < math.inf:  # caps the output rows' own steps; the caller caps the input rows'
        g = g * row_share(targets, valid.to(g.dtype), len(w_out), max_steps)
    w_out.index_add_(0, targets.reshape(-1), (g[:, :, None] * hidden[:, None, :]).reshape(-1, hidden.shape[1]))
    return grad, f


def ns_loss(scores: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """(B, K+1) scores (column 0 the true word), (B, K+1) bool valid -> (B, K+1) -log σ(±f), 0 where
    not valid: kernels.py's loss terms. softplus(∓f) = -log σ(±f) stays finite for any f."""
    sign = torch.ones_like(scores[:1])  # (1, K+1): -1 for the true word, +1 for noise
    sign[0, 0] = -1.0
    return F.softplus(sign * scores) * valid


def sgns_step(
    w_in: torch.Tensor, w_out: torch.Tensor, context: torch.Tensor, targets: torch.Tensor, valid: torch.Tensor,
    lr: torch.Tensor, max_steps: float = math.inf,
) -> torch.Tensor:  # fmt: skip
    """Skip-gram on B pairs, in place: w_in[context] (B, D) predicts targets (B, K+1) -> (B, K+1)
    scores before the step. Repeated rows take the sum of their steps (see row_share for max_steps)."""
    grad, scores = ns_step(F.embedding(context, w_in), w_out, targets, valid, lr, max_steps)
    if max_steps < math.inf:
        grad = grad * row_share(context, torch.ones_like(lr), len(w_in), max_steps)[:, None]
    w_in.index_add_(0, context, grad)
    return scores


def cbow_step(
    w_in: torch.Tensor, w_out: torch.Tensor, windows: torch.Tensor, window_mask: torch.Tensor,
    targets: torch.Tensor, valid: torch.Tensor, lr: torch.Tensor, cbow_mean: bool, max_steps: float = math.inf,
) -> torch.Tensor:  # fmt: skip
    """CBOW on B windows, in place: the mean (cbow_mean) or sum of the rows windows (B, 2W) marked
    by window_mask (B, 2W) predicts targets (B, K+1) -> (B, K+1) scores before the step.

    As word2vec and gensim: every context row takes the whole step -lr ∂L/∂h (not 1/n of it, the
    true gradient of a mean), and a summed window's step is divided by its n rows."""
    weight = window_mask.to(w_in.dtype)  # (B, 2W)
    n = weight.sum(1, keepdim=True)  # (B, 1) context words, >= 1
    hidden = (weight[:, :, None] * F.embedding(windows, w_in)).sum(1)  # (B, D) sum of the rows
    if cbow_mean:
        hidden = hidden / n
    grad, scores = ns_step(hidden, w_out, targets, valid, lr, max_steps)
    if not cbow_mean:
        grad = grad / n
    if max_steps < math.inf:
        weight = weight * row_share(windows, weight, len(w_in), max_steps)
    # every slot is added, the empty ones as zeros: compacting the rows first would wait for the device
    w_in.index_add_(0, windows.reshape(-1), (weight[:, :, None] * grad[:, None, :]).reshape(-1, grad.shape[1]))
    return scores


def chunk_seed(state: TrainState, seed: int) -> int:
    """The generator seed of the chunk that starts at state.words_done, from the config's seed and the
    state's rng_state (which this engine never advances): a resumed state draws what an unbroken run
    would, and distributed ranks, which reseed rng_state each their own way, draw apart."""
    entropy = [seed, state.words_done, *(int(x) for x in state.rng_state)]
    return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0])


class BatchedTrainer:
    """word2vec on torch tensors (any device): kernels.py's model in minibatches, for GPUs.

    Holds the tables on the device; train_chunk advances the numpy `state`'s counters (words_done,
    kept_words, loss_sum, loss_terms) exactly as word2vec.train_chunk does, and sync_state copies the
    tables and counts back into it. state.rng_state is left alone (this engine draws from a
    torch.Generator, see the module docstring); update counts are added to update_counts[0], so
    the column sums stay the number of steps each input row took.
    batch_pairs: examples per step (skip-gram pairs, CBOW windows); max_steps: see row_share
    (math.inf: plain sums).
    """

    def __init__(
        self, state: TrainState, tables: Tables, config: RunConfig, device: str | torch.device = "cpu",
        batch_pairs: int = BATCH_PAIRS, max_steps: float = MAX_STEPS,
    ):  # fmt: skip
        V, D = state.w_in.shape
        if len(tables.keep) != V or D != config.dim:
            raise InvalidValueError(
                f"the state's tables are {V}×{D}; the vocabulary tables have {len(tables.keep)} rows and "
                f"config.dim is {config.dim}: build all three from the same vocabulary and config"
            )
        self.state, self.config = state, config
        self.batch_pairs = check_int("batch_pairs", batch_pairs, low=1)
        self.max_steps = max_steps if max_steps == math.inf else check_float("max_steps", max_steps, low=1.0)
        self.device = torch.device(device)
        put = {"device": self.device}
        self.w_in = torch.tensor(state.w_in, dtype=torch.float32, **put)  # (V, D)
        self.w_out = torch.tensor(state.w_out, dtype=torch.float32, **put)  # (V, D)
        self.counts = torch.tensor(state.update_counts[0], dtype=torch.int64, **put)  # (V,) steps per input row
        self.keep = torch.tensor(tables.keep, dtype=torch.float32, **put)  # (V,) keep probabilities
        self.cum_table = torch.tensor(tables.cum_table.astype(np.int64), **put)  # (V,) noise table
        self.noise_top = int(tables.cum_table[-1])

    def train_chunk(self, chunk: Chunk) -> float:
        """Train on one Chunk, as word2vec.train_chunk does -> the learning rate at the chunk's start."""
        config, state = self.config, self.state
        lr0 = float(linear_lr(config.lr, config.min_lr, state.words_done, state.words_total, config.epochs,
                              config.epoch_decay))  # fmt: skip
        generator = torch.Generator(self.device).manual_seed(chunk_seed(state, config.seed))
        words, windows, mask, lr = self._windows(chunk, generator)  # (M,), (M, 2W), (M, 2W), (M,)
        w_in, w_out, cap = self.w_in, self.w_out, self.max_steps
        if config.method == "sgns":
            centre, slot = mask.nonzero(as_tuple=True)  # (P,) pairs, centre by centre: the numba kernel's order
            context = words[windows[centre, slot]]  # (P,) its input row predicts the centre word
            self.counts += torch.bincount(context, minlength=len(self.counts))  # one step per pair

            def step(batch, targets, valid, lr):
                return sgns_step(w_in, w_out, context[batch], targets, valid, lr, cap)
        else:
            centre = mask.any(1).nonzero().squeeze(1)  # (C,) a one-word sentence has no context to predict from
            rows, slots = words[windows[centre]], mask[centre]  # (C, 2W) each
            self.counts += torch.bincount(rows[slots], minlength=len(self.counts))  # one step per context word

            def step(batch, targets, valid, lr):
                return cbow_step(w_in, w_out, rows[batch], slots[batch], targets, valid, lr, CBOW_MEAN, cap)

        loss_sum, loss_terms = self._minibatches(words[centre], lr[centre], step, generator).tolist()
        state.words_done += len(chunk.ids)
        state.kept_words += len(words)
        state.loss_sum += loss_sum
        state.loss_terms += int(loss_terms)
        return lr0

    def _windows(self, chunk: Chunk, generator: torch.Generator) -> tuple[torch.Tensor, ...]:
        """Subsample a Chunk and draw each kept word's span -> words (M,), context_windows' index and
        mask (M, 2W), and each word's learning rate (M,) from its position in the whole run."""
        config, device = self.config, self.device
        ids = torch.tensor(chunk.ids, dtype=torch.int64, device=device)  # (N,)
        lengths = torch.tensor(np.diff(chunk.starts), device=device)  # (S,)
        sentence = torch.arange(len(lengths), device=device).repeat_interleave(lengths, output_size=len(ids))
        draws = torch.rand(len(ids), generator=generator, device=device)  # (N,)
        kept = (draws < self.keep[ids]).nonzero().squeeze(1)  # (M,) chunk positions of the kept words
        span = config.window - torch.randint(0, config.window, kept.shape, generator=generator, device=device)
        windows, mask = context_windows(sentence[kept], span, config.window)
        position = self.state.words_done + np.arange(len(chunk.ids), dtype=np.float64)  # exact for any run length
        lr = linear_lr(
            config.lr, config.min_lr, position, self.state.words_total, config.epochs, config.epoch_decay
        )  # (N,) the kernels' schedule
        return ids[kept], windows, mask, torch.tensor(lr, dtype=torch.float32, device=device)[kept]

    def _minibatches(self, true: torch.Tensor, lr: torch.Tensor, step, generator: torch.Generator) -> torch.Tensor:
        """Run step(batch, targets, valid, lr) over slices of the E examples with true rows (E,) and
        rates (E,), drawing each one's noise -> (2,) loss sum and scored targets."""
        loss = torch.zeros(2, device=self.device)
        for k, a in enumerate(range(0, len(true), self.batch_pairs)):
            batch = slice(a, a + self.batch_pairs)
            noise = draw_noise(self.cum_table, self.noise_top, (len(true[batch]), self.config.negative), generator)
            targets, valid = noise_targets(true[batch], noise)  # (B, K+1) each
            scores = step(batch, targets, valid, lr[batch])
            if k % LOSS_EVERY == 0:  # every 16th minibatch is scored: a progress signal for ~1/16 of its cost
                loss += torch.stack([ns_loss(scores, valid).sum(), valid.sum().to(scores.dtype)])
        return loss  # on the device: read once per chunk, so the steps never wait for it

    def sync_state(self) -> TrainState:
        """Copy the tables and update counts back into the numpy TrainState -> that state."""
        self.state.w_in[...] = self.w_in.cpu().numpy()
        self.state.w_out[...] = self.w_out.cpu().numpy()
        self.state.update_counts[0] = self.counts.cpu().numpy()
        return self.state
