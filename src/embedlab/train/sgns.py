"""word2vec: skip-gram (sgns) and CBOW with negative sampling, as numba kernels over id chunks.

    vocab = WordVocab.build(open_corpus("gcide"), min_count=5)
    w_in, w_out, stats = train_epochs(open_corpus("gcide"), vocab, Word2VecConfig(method="sgns"))
    Vectors(vocab.index_to_key, w_in)                         # the input table is the embedding

The details are word2vec's and gensim's: subsampled frequent words, a window shrunk at random
for each centre word, noise words drawn from unigram^0.75, a learning rate falling linearly over
the whole run, separate input and output tables. Skip-gram follows gensim's pair order: each
context word's input row predicts the centre word (and `negative` noise words) in the output table.

All randomness is one LCG per thread, word2vec's `r = r * 25214903917 + 11` on uint64, held in
`TrainState.rng_state`, so a run with threads=1 is a pure function of its seed and its state can
be saved and resumed. With threads > 1 the parts of a chunk train at once on shared tables without
locks (Hogwild, as word2vec and gensim), so results then vary from run to run.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from embedlab.errors import InvalidValueError, check_choice, check_float, check_int
from embedlab.train.corpus import Chunk, ChunkCache, WordVocab

log = logging.getLogger("embedlab")

METHODS = ("sgns", "cbow")
MAX_EXP = 6.0  # beyond |u·h| > 6 the sigmoid is taken as 0 or 1, as word2vec does: right answers then cost nothing
LOSS_EVERY = 16  # the loss is scored on every 16th centre word: a progress signal for ~1/16 of its cost
_LCG_MUL, _LCG_ADD = np.uint64(25214903917), np.uint64(11)
_HIGH = np.uint64(32)  # draws use the state's top 32 bits: an LCG's low bits repeat with short periods
# Reassociation lets LLVM vectorise the dot product; NaN and inf keep their meaning (no "fast" nnan/ninf).
_FAST = {"reassoc", "contract", "nsz", "arcp"}


@dataclass
class Word2VecConfig:
    method: str = "sgns"  # "sgns": context word predicts centre word; "cbow": window mean predicts it
    dim: int = 100  # D: the embedding width of word2vec's and gensim's defaults
    window: int = 5  # at most this many words on each side; each centre word draws its own 1..window
    negative: int = 5  # noise words per true word (5-20 suit small corpora, 2-5 large ones)
    sample: float = 1e-3  # subsampling threshold as a share of the corpus (0: keep every word)
    alpha: float = 0.025  # starting learning rate (gensim 4 uses 0.025 for both methods)
    min_alpha: float = 0.0001  # learning rate at the end of the last epoch
    epochs: int = 5
    threads: int = 2  # Hogwild threads; 1 makes a run bit-for-bit reproducible
    seed: int = 1  # seeds the table init and each thread's LCG
    cbow_mean: bool = True  # cbow: average the context rows (else sum them)
    batch_words: int = 10_000  # words per thread per kernel call (gensim's job size)

    def __post_init__(self):
        check_choice("method", self.method, METHODS)
        check_int("dim", self.dim, low=1)
        check_int("window", self.window, low=1)
        check_int("negative", self.negative, low=1)
        check_float("sample", self.sample, low=0.0, high=1.0)
        check_float("alpha", self.alpha, low=0.0)
        check_float("min_alpha", self.min_alpha, low=0.0, high=self.alpha)
        check_int("epochs", self.epochs, low=1)
        check_int("threads", self.threads, low=1, high=1024)
        check_int("seed", self.seed, low=0)
        check_int("batch_words", self.batch_words, low=1)


def init_tables(V: int, dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """-> w_in (V, D) uniform in [-1/D, 1/D), w_out (V, D) zeros, float32: gensim's init.

    word2vec's C tool draws from half that range; on 1M words of gcide gensim's range scored
    better on all three benchmarks (5 seeds), and gensim's scores are the target.
    """
    w_in = np.random.default_rng(seed).random((V, dim), dtype=np.float32)  # [0, 1)
    w_in = (w_in * np.float32(2.0) - np.float32(1.0)) / np.float32(dim)  # small rows: every word starts near 0
    return w_in, np.zeros((V, dim), dtype=np.float32)


# ----- kernels ------------------------------------------------------------------------------------


@njit(inline="always")
def _lcg(state):
    """word2vec's next_random; uint64 arithmetic wraps modulo 2**64."""
    return state * _LCG_MUL + _LCG_ADD


@njit(inline="always")
def _window_span(window, state):
    """word2vec's dynamic window: draw b uniform in 0..window-1 and look span = window - b words
    each side, so near words are used more often than far ones. Returns (span, next state)."""
    state = _lcg(state)
    return window - np.int64((state >> _HIGH) % np.uint64(window)), state


def guide_table(cum_table: np.ndarray) -> np.ndarray:
    """(V,) uint32 cum_table -> (V,) int64 guide: guide[m] is the first row a draw in bucket m can be.

    A draw r < cum_table[-1] falls in bucket m = r·V // cum_table[-1]; its row is found by stepping
    from guide[m] while cum_table[row] <= r. The result is exactly the binary search's (gensim's
    draw), in about one step instead of log2(V) mispredicted branches (Chen and Asau's guide table).

    >>> guide_table(np.array([6, 8, 10], dtype=np.uint32)).tolist()
    [0, 0, 1]
    """
    V, top = len(cum_table), int(cum_table[-1])
    lowest = np.arange(V, dtype=np.int64) * top // V  # the smallest draw of each bucket
    return np.searchsorted(cum_table, lowest, side="right").astype(np.int64)


@njit(inline="always")
def _draw_row(cum_table, guide, state):
    """A noise row: the first i with cum_table[i] > r, r uniform below cum_table[-1]."""
    state = _lcg(state)
    top = np.uint64(cum_table[-1])
    r = (state >> _HIGH) % top
    row = guide[(r * np.uint64(cum_table.shape[0])) // top]
    while cum_table[row] <= r:
        row += 1
    return row, state


@njit(nogil=True, cache=True)
def draw_noise(cum_table, guide, rng_state, n):
    """(n,) int64 noise rows drawn as the kernels draw them, advancing the LCG rng_state[0]."""
    rows = np.empty(n, np.int64)
    state = rng_state[0]
    for i in range(n):
        rows[i], state = _draw_row(cum_table, guide, state)
    rng_state[0] = state
    return rows


@njit(inline="always")
def _subsample(ids, a, b, keep, out, state):
    """ids[a:b] -> out[:n], each word kept with probability keep[word] -> (n, state)."""
    n = 0
    for i in range(a, b):
        word = ids[i]
        if keep[word] < 1.0:  # no draw for words that are always kept
            state = _lcg(state)
            if (state >> _HIGH) * 2.0**-32 >= keep[word]:
                continue
        out[n] = word
        n += 1
    return n, state


@njit(inline="always")
def _targets(true_row, cum_table, guide, negative, out, state):
    """out[0] = the true row, out[1:n] = noise rows (a draw of the true row is dropped, as gensim)."""
    out[0] = true_row
    n = 1
    for _ in range(negative):
        row, state = _draw_row(cum_table, guide, state)
        if row != true_row:
            out[n] = row
            n += 1
    return n, state


@njit(inline="always", fastmath=_FAST)
def _ns_update(src, row, w_out, targets, n_targets, lr, grad, want_loss):
    """One negative-sampling step for the hidden vector h = src[row] (D,): targets[0] is the true
    row, targets[1:n] noise rows. Loss L = -log σ(u_0·h) - Σ_k log σ(-u_k·h). Updates the output
    rows u in place (u -= lr ∂L/∂u) and adds -lr ∂L/∂h to grad (D,), for the caller to apply to
    the input rows. Returns L (0.0 unless want_loss).

    subtle: rows are indexed as table[row, d], never sliced: a slice is a new array view whose
    reference count both Hogwild threads would update atomically on every pair.
    """
    D = src.shape[1]
    loss = 0.0
    for k in range(n_targets):
        t = targets[k]
        f = np.float32(0.0)
        for d in range(D):
            f += src[row, d] * w_out[t, d]
        label = 1.0 if k == 0 else 0.0
        if want_loss:  # softplus(∓f) = -log σ(±f), written to stay finite for any f
            x = -f if k == 0 else f
            loss += max(x, 0.0) + math.log1p(math.exp(-abs(x)))
        if f > MAX_EXP:
            sig = 1.0
        elif f < -MAX_EXP:
            sig = 0.0
        else:
            sig = 1.0 / (1.0 + math.exp(-f))
        g = np.float32((label - sig) * lr)  # -lr ∂L/∂f
        if g == 0.0:
            continue  # a saturated right answer: nothing to learn, and two vector loops saved
        for d in range(D):
            grad[d] += g * w_out[t, d]  # the old u: both gradients are taken at the same point
            w_out[t, d] += g * src[row, d]
    return loss


@njit(nogil=True, cache=True)
def sgns_pair_update(w_in, w_out, true_row, context_row, noise_rows, lr):
    """One skip-gram step on a (true_row, context_row) pair with given noise rows, in place, as the
    kernel does it: h = w_in[context_row] predicts w_out[true_row] against w_out[noise_rows].
    Returns the loss before the step."""
    targets = np.empty(noise_rows.shape[0] + 1, np.int64)
    targets[0] = true_row
    targets[1:] = noise_rows
    grad = np.zeros(w_in.shape[1], np.float32)
    loss = _ns_update(w_in, context_row, w_out, targets, targets.shape[0], lr, grad, True)
    for d in range(w_in.shape[1]):
        w_in[context_row, d] += grad[d]
    return loss


@njit(inline="always")
def _lr(alpha, min_alpha, position, total_words):
    """Linear decay from alpha at word 0 to min_alpha at word total_words (gensim's schedule)."""
    return max(min_alpha, alpha - (alpha - min_alpha) * position / total_words)


@njit(nogil=True, parallel=True, cache=True, fastmath=_FAST)
def sgns_chunk(ids, starts, bounds, w_in, w_out, keep, cum_table, guide, rng_state, update_counts,
               window, negative, alpha, min_alpha, words_done, total_words, loss_every):  # fmt: skip
    """Skip-gram on one Chunk, in place. Thread p trains sentences bounds[p]:bounds[p+1] with LCG
    rng_state[p] and counts its input-row updates in update_counts[p] (P, V).
    -> (3,) float64: words kept by subsampling, loss sum, loss terms."""
    P = bounds.shape[0] - 1
    stats = np.zeros((P, 3))
    for p in prange(P):
        state = rng_state[p]
        D = w_in.shape[1]
        grad = np.empty(D, np.float32)
        targets = np.empty(negative + 1, np.int64)
        sentence = np.empty(starts[bounds[p + 1]] - starts[bounds[p]], np.int32)  # kept ids of one sentence
        centres = 0
        for s in range(bounds[p], bounds[p + 1]):
            n, state = _subsample(ids, starts[s], starts[s + 1], keep, sentence, state)
            lr = _lr(alpha, min_alpha, words_done + starts[s], total_words)
            for i in range(n):
                span, state = _window_span(window, state)
                want_loss = loss_every > 0 and centres % loss_every == 0
                centres += 1
                for j in range(max(i - span, 0), min(i + span + 1, n)):
                    if j == i:
                        continue
                    n_targets, state = _targets(sentence[i], cum_table, guide, negative, targets, state)
                    for d in range(D):
                        grad[d] = 0.0
                    context = sentence[j]  # its input row predicts the centre word
                    loss = _ns_update(w_in, context, w_out, targets, n_targets, lr, grad, want_loss)
                    for d in range(D):
                        w_in[context, d] += grad[d]
                    update_counts[p, context] += 1  # a row per thread: no increment lost to a race
                    if want_loss:
                        stats[p, 1] += loss
                        stats[p, 2] += n_targets
            stats[p, 0] += n
        rng_state[p] = state
    return stats.sum(axis=0)


@njit(nogil=True, parallel=True, cache=True, fastmath=_FAST)
def cbow_chunk(ids, starts, bounds, w_in, w_out, keep, cum_table, guide, rng_state, update_counts,
               window, negative, alpha, min_alpha, words_done, total_words, loss_every, cbow_mean):  # fmt: skip
    """CBOW on one Chunk, in place: the mean (or sum) of the window's input rows predicts the centre
    word. Same arguments and result as sgns_chunk, plus cbow_mean."""
    P = bounds.shape[0] - 1
    stats = np.zeros((P, 3))
    for p in prange(P):
        state = rng_state[p]
        D = w_in.shape[1]
        grad = np.empty(D, np.float32)
        hidden = np.empty((1, D), np.float32)  # row 0: the window's mean, a table of one row for _ns_update
        targets = np.empty(negative + 1, np.int64)
        sentence = np.empty(starts[bounds[p + 1]] - starts[bounds[p]], np.int32)
        centres = 0
        for s in range(bounds[p], bounds[p + 1]):
            n, state = _subsample(ids, starts[s], starts[s + 1], keep, sentence, state)
            lr = _lr(alpha, min_alpha, words_done + starts[s], total_words)
            for i in range(n):
                span, state = _window_span(window, state)
                lo, hi = max(i - span, 0), min(i + span + 1, n)
                if hi - lo < 2:
                    continue  # a one-word sentence has no context to predict from
                for d in range(D):
                    hidden[0, d] = 0.0
                    grad[d] = 0.0
                for j in range(lo, hi):
                    if j != i:
                        context = sentence[j]
                        for d in range(D):
                            hidden[0, d] += w_in[context, d]
                scale = np.float32(1.0 / (hi - lo - 1))
                if cbow_mean:
                    for d in range(D):
                        hidden[0, d] *= scale
                want_loss = loss_every > 0 and centres % loss_every == 0
                centres += 1
                n_targets, state = _targets(sentence[i], cum_table, guide, negative, targets, state)
                loss = _ns_update(hidden, 0, w_out, targets, n_targets, lr, grad, want_loss)
                if not cbow_mean:  # gensim: a summed window shares the step among its rows
                    for d in range(D):
                        grad[d] *= scale
                for j in range(lo, hi):  # as word2vec: each context row takes the whole step
                    if j != i:
                        context = sentence[j]
                        for d in range(D):
                            w_in[context, d] += grad[d]
                        update_counts[p, context] += 1  # a row per thread: no increment lost to a race
                if want_loss:
                    stats[p, 1] += loss
                    stats[p, 2] += n_targets
            stats[p, 0] += n
        rng_state[p] = state
    return stats.sum(axis=0)


# ----- state and driver ---------------------------------------------------------------------------


@dataclass
class TrainState:
    """Everything a run needs to go on from where it is: save these and a resume is exact."""

    w_in: np.ndarray  # (V, D) float32 input rows: the embedding table
    w_out: np.ndarray  # (V, D) float32 output rows, predicted against
    rng_state: np.ndarray  # (threads,) uint64: each thread's LCG
    update_counts: np.ndarray  # (threads, V) int64: gradient steps each input row took, counted per thread
    words_total: int  # words planned, epochs × vocab.total: the learning rate reaches min_alpha there
    words_done: int = 0  # in-vocabulary corpus words trained so far, all epochs
    kept_words: int = 0  # of those, the ones subsampling kept
    loss_sum: float = 0.0  # -log σ summed over the targets of every LOSS_EVERY-th centre word
    loss_terms: int = 0  # targets in loss_sum

    @classmethod
    def new(cls, vocab: WordVocab, config: Word2VecConfig) -> TrainState:
        w_in, w_out = init_tables(len(vocab), config.dim, config.seed)
        streams = np.random.SeedSequence(config.seed).generate_state(config.threads, dtype=np.uint64)
        counts = np.zeros((config.threads, len(vocab)), dtype=np.int64)
        return cls(w_in, w_out, streams, counts, config.epochs * vocab.total)


@dataclass(frozen=True)
class TrainStats:
    """Where a run stands: given to on_progress after each chunk and returned at the end."""

    epoch: int  # 0-based epoch of the last chunk
    words: int  # in-vocabulary corpus words trained, all epochs
    kept_words: int  # of those, the ones subsampling kept
    seconds: float  # wall time since training started
    loss: float  # mean -log σ per scored target in this epoch so far (nan before any)
    alpha: float  # learning rate at the start of the last chunk
    thread_counts: np.ndarray  # (threads, V) int64 TrainState.update_counts (the live array)

    @property
    def update_counts(self) -> np.ndarray:
        """(V,) int64 gradient steps each input row has taken."""
        return self.thread_counts.sum(axis=0)

    @property
    def words_per_second(self) -> float:
        return self.words / self.seconds if self.seconds > 0 else 0.0


class Tables(NamedTuple):
    """What the kernels read from the vocabulary, built once per run by vocab_tables."""

    keep: np.ndarray  # (V,) float32 subsampling keep probabilities
    cum_table: np.ndarray  # (V,) uint32 noise distribution, gensim's cum_table
    guide: np.ndarray  # (V,) int64 guide_table(cum_table)


def vocab_tables(vocab: WordVocab, sample: float) -> Tables:
    cum_table = vocab.noise_table()
    return Tables(vocab.keep_probabilities(sample), cum_table, guide_table(cum_table))


def split_parts(starts: np.ndarray, parts: int) -> np.ndarray:
    """(S+1,) sentence offsets -> (parts+1,) sentence bounds cutting the words into near-equal parts.

    >>> split_parts(np.array([0, 4, 5, 9, 10]), 2).tolist()
    [0, 2, 4]
    """
    targets = np.linspace(0, starts[-1], parts + 1)[1:-1]
    inner = np.searchsorted(starts, targets, side="left")  # first sentence starting at or after the target
    return np.concatenate([[0], inner, [len(starts) - 1]]).astype(np.int64)


def train_chunk(state: TrainState, chunk: Chunk, tables: Tables, config: Word2VecConfig) -> float:
    """Train on one Chunk, updating `state` in place -> the learning rate at the chunk's start.

    With one thread the result depends only on the state and the words, not on how the corpus
    was cut into chunks: the learning rate follows each sentence's position in the whole run.
    """
    threads = len(state.rng_state)
    bounds = split_parts(chunk.starts, threads)  # thread p trains sentences bounds[p]:bounds[p+1]
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    args = (chunk.ids, chunk.starts, bounds, state.w_in, state.w_out, *tables, state.rng_state,
            state.update_counts, config.window, config.negative, config.alpha, config.min_alpha,
            state.words_done, state.words_total, LOSS_EVERY)  # fmt: skip
    if config.method == "sgns":
        kept, loss_sum, loss_terms = sgns_chunk(*args)
    else:
        kept, loss_sum, loss_terms = cbow_chunk(*args, config.cbow_mean)
    lr = _lr(config.alpha, config.min_alpha, state.words_done, state.words_total)
    state.words_done += len(chunk.ids)
    state.kept_words += int(kept)
    state.loss_sum += float(loss_sum)  # a Python float: checkpoints hold plain values
    state.loss_terms += int(loss_terms)
    return lr


def train_epochs(
    lines: Iterable[str],
    vocab: WordVocab,
    config: Word2VecConfig,
    *,
    on_progress: Callable[[TrainStats], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, TrainStats]:
    """Train word2vec over `config.epochs` passes of a re-iterable stream of lines.

    -> w_in (V, D) float32 (the embedding table), w_out (V, D) float32, the final TrainStats.
    The corpus is read and tokenized once: later epochs replay its ids from a temporary file.
    """
    if len(vocab) == 0:
        raise InvalidValueError("the vocabulary is empty: lower min_count or give a larger corpus")
    state = TrainState.new(vocab, config)
    tables = vocab_tables(vocab, config.sample)
    start, lr, stats = time.perf_counter(), config.alpha, None
    with ChunkCache(lines, vocab, config.batch_words * config.threads) as chunks:
        for epoch in range(config.epochs):
            epoch_loss = (state.loss_sum, state.loss_terms)
            for chunk in _prefetch(iter(chunks)):
                lr = train_chunk(state, chunk, tables, config)
                stats = _stats(state, epoch, start, lr, epoch_loss)
                if on_progress is not None:
                    on_progress(stats)
            log.info("epoch %d: %d words, loss %.4f", epoch, state.words_done, stats.loss if stats else math.nan)
    return state.w_in, state.w_out, _stats(state, config.epochs - 1, start, lr, epoch_loss)


def _stats(state: TrainState, epoch: int, start: float, lr: float, epoch_loss: tuple[float, int]) -> TrainStats:
    loss_sum, loss_terms = state.loss_sum - epoch_loss[0], state.loss_terms - epoch_loss[1]
    loss = loss_sum / loss_terms if loss_terms else math.nan
    seconds = time.perf_counter() - start
    return TrainStats(epoch, state.words_done, state.kept_words, seconds, loss, lr, state.update_counts)


def _prefetch(chunks: Iterator[Chunk], depth: int = 4) -> Iterator[Chunk]:
    """Encode ahead in a thread: tokenizing is Python work that overlaps the kernels (they drop the GIL)."""
    ready: queue.Queue = queue.Queue(maxsize=depth)
    stop, end = threading.Event(), object()

    def put(item) -> bool:
        while not stop.is_set():  # the consumer may be gone: look again every 0.1 s
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                pass
        return False

    def produce():
        try:
            for chunk in chunks:
                if not put(chunk):
                    return
            put(end)
        except BaseException as error:  # raised again in the consumer
            put(error)
        finally:
            getattr(chunks, "close", lambda: None)()  # a generator given up on ends here, in its own thread

    worker = threading.Thread(target=produce, daemon=True)
    worker.start()
    try:
        while (item := ready.get()) is not end:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()
