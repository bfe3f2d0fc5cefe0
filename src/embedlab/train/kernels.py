"""word2vec's inner loops as numba kernels: skip-gram (sgns) and CBOW with negative sampling.

    sgns_chunk(ids, starts, bounds, w_in, w_out, keep, cum_table, guide, rng_state, update_counts, ...)
    sgns_window_update(w_in, w_out, contexts, targets, lr)   # one window's step, as sgns_chunk takes it
    cbow_chunk(...)                                   # the same arguments, plus cbow_mean
    linear_lr(alpha, min_alpha, done, total, epochs, share)   # the learning-rate schedule, for every engine

The details are word2vec's and gensim's: subsampled frequent words, a window shrunk at random
for each centre word, noise words drawn from unigram^0.75, a learning rate falling over the whole
run in steps of LR_STEP words (on the straight line, or with each epoch taking a share of its fall as
gensim's corpus_file mode does: `linear_lr`), separate input and output tables. Skip-gram follows
gensim's pair order: each context word's input row predicts the centre word (and `negative` noise
words) in the output table.
One departure, for speed: skip-gram draws the noise words once per centre word and takes one step
for its whole window (HogBatch, `_window_step`), where word2vec and gensim draw them per pair and
step pair by pair. On gcide it trains twice as fast, and WordSim-353, SimLex-999 and Google
analogies stay within the quality bound of docs/benchmarks.md.
The state these kernels update, and the job that feeds them chunks, are in `word2vec.py`. The
inline parts without a leading underscore (lcg, draw_row, window_span, subsample, draw_targets, draw_ahead,
prefetch_rows, ns_update, lr_at) are shared with the subword kernels (`subword_kernels.py`).

All randomness is one LCG per thread, word2vec's `r = r * 25214903917 + 11` on uint64, held in
the caller's `rng_state`, so a run with one thread is a pure function of its seed and its state
can be saved and resumed. With threads > 1 the parts of a chunk train at once on shared tables
without locks (Hogwild, as word2vec and gensim), so results then vary from run to run.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

METHODS = ("sgns", "cbow")
CBOW_MEAN = True  # cbow averages its window's rows (gensim's and word2vec's default; False sums them)
MAX_EXP = 6.0  # beyond |u·h| > 6 the sigmoid is taken as 0 or 1, as word2vec does: right answers then cost nothing
LOSS_EVERY = 16  # the loss is scored on every 16th centre word: a progress signal for ~1/16 of its cost
# The rate is updated every 10,000 words, as gensim (once per job of 10,000 words) and word2vec.c
# (every 10,000 words a thread trains) update it: on a small corpus the steps lag the straight line
# by half a step on average, 12.5% more rate in all over 80,000 words, and what is learned in the
# first epoch follows that sum steeply (docs/benchmarks.md, "One epoch on a small corpus").
LR_STEP = 10_000
_LCG_MUL, _LCG_ADD = np.uint64(25214903917), np.uint64(11)
_HIGH = np.uint64(32)  # draws use the state's top 32 bits: an LCG's low bits repeat with short periods
# Reassociation lets LLVM vectorise the dot product; NaN and inf keep their meaning (no "fast" nnan/ninf).
FASTMATH = {"reassoc", "contract", "nsz", "arcp"}


# ----- kernels ------------------------------------------------------------------------------------


@njit(inline="always")
def lcg(state):
    """word2vec's next_random; uint64 arithmetic wraps modulo 2**64."""
    return state * _LCG_MUL + _LCG_ADD


@njit(inline="always")
def window_span(window, state):
    """word2vec's dynamic window: draw b uniform in 0..window-1 and look span = window - b words
    each side, so near words are used more often than far ones. Returns (span, next state)."""
    state = lcg(state)
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
def draw_row(cum_table, guide, state):
    """A noise row: the first i with cum_table[i] > r, r uniform below cum_table[-1]."""
    state = lcg(state)
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
        rows[i], state = draw_row(cum_table, guide, state)
    rng_state[0] = state
    return rows


@njit(inline="always")
def subsample(ids, a, b, keep, out, state):
    """ids[a:b] -> out[:n], each word kept with probability keep[word] -> (n, state)."""
    n = 0
    for i in range(a, b):
        word = ids[i]
        if keep[word] < 1.0:  # no draw for words that are always kept
            state = lcg(state)
            if (state >> _HIGH) * 2.0**-32 >= keep[word]:
                continue
        out[n] = word
        n += 1
    return n, state


@njit(inline="always")
def draw_targets(true_row, cum_table, guide, negative, out, state):
    """out[0] = the true row, out[1:n] = noise rows (a draw of the true row is dropped, as gensim)."""
    out[0] = true_row
    n = 1
    for _ in range(negative):
        row, state = draw_row(cum_table, guide, state)
        if row != true_row:
            out[n] = row
            n += 1
    return n, state


@intrinsic
def _prefetch(typingctx, table, row, col):
    """A hint to the CPU to start loading table[row, col]'s cache line (LLVM's prefetch, for
    writing, kept in every cache level). It changes no value; a wrong address cannot fault."""

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        index = [context.cast(builder, a, t, types.intp) for a, t in zip(args[1:], signature.args[1:], strict=True)]
        pointer = cgutils.get_item_pointer(context, builder, signature.args[0], array, index)
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        name = "llvm.prefetch.p0" if str(i8p) == "ptr" else "llvm.prefetch.p0i8"  # opaque or typed pointers
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), name)
        builder.call(fn, [builder.bitcast(pointer, i8p), i32(1), i32(3), i32(1)])  # for writing, keep, data
        return context.get_dummy_value()

    return types.void(table, row, col), codegen


@njit(inline="always")
def draw_ahead(sentence, i, n, cum_table, guide, negative, targets, w_out, state):
    """The targets of centre word i (if i < n) drawn one centre early, with their output rows asked
    for: noise rows are random rows of a table larger than the cache, and a prefetched row arrives
    while the current centre trains (1.1-1.3x faster kernels on gcide). -> (n_targets, state)."""
    if i >= n:
        return 0, state
    n_targets, state = draw_targets(sentence[i], cum_table, guide, negative, targets, state)
    prefetch_rows(w_out, targets, 0, n_targets)
    return n_targets, state


@njit(inline="always")
def prefetch_rows(table, rows, a, b):
    """Ask for the rows table[rows[a:b]] to be loaded (see _prefetch); changes nothing."""
    for k in range(a, b):
        for d in range(0, table.shape[1], 16):  # one cache line holds 16 float32
            _prefetch(table, rows[k], d)


@njit(inline="always", fastmath=FASTMATH)
def _dot(a, i, b, j):
    """a[i] · b[j] in float32. subtle: indexed, never sliced: a slice is a new array view whose
    reference count both Hogwild threads would update atomically on every call."""
    f = np.float32(0.0)
    for d in range(a.shape[1]):
        f += a[i, d] * b[j, d]
    return f


@njit(inline="always")
def _logit_step(f, true, lr, want_loss):
    """The logit f = u·h of a true (label 1) or noise (label 0) target -> (-lr ∂L/∂f as float32,
    its loss term -log σ(±f), 0.0 unless want_loss). Beyond |f| > MAX_EXP σ is taken as 0 or 1."""
    loss = 0.0
    if want_loss:  # softplus(∓f) = -log σ(±f), written to stay finite for any f
        x = -f if true else f
        loss = max(x, 0.0) + math.log1p(math.exp(-abs(x)))
    if f > MAX_EXP:
        sig = 1.0
    elif f < -MAX_EXP:
        sig = 0.0
    else:
        sig = 1.0 / (1.0 + math.exp(-f))
    return np.float32(((1.0 if true else 0.0) - sig) * lr), loss


@njit(inline="always", fastmath=FASTMATH)
def ns_update(src, row, w_out, targets, n_targets, lr, grad, want_loss):
    """One negative-sampling step for the hidden vector h = src[row] (D,): targets[0] is the true
    row, targets[1:n] noise rows. Loss L = -log σ(u_0·h) - Σ_k log σ(-u_k·h). Updates the output
    rows u in place (u -= lr ∂L/∂u) and adds -lr ∂L/∂h to grad (D,), for the caller to apply to
    the input rows. Returns L (0.0 unless want_loss). Rows are indexed, never sliced (see _dot).
    """
    D = src.shape[1]
    loss = 0.0
    for k in range(n_targets):
        t = targets[k]
        g, term = _logit_step(_dot(src, row, w_out, t), k == 0, lr, want_loss)
        loss += term
        if g == 0.0:
            continue  # a saturated right answer: nothing to learn, and two vector loops saved
        for d in range(D):
            grad[d] += g * w_out[t, d]  # the old u: both gradients are taken at the same point
            w_out[t, d] += g * src[row, d]
    return loss


@njit(inline="always", fastmath=FASTMATH)
def _window_step(w_in, w_out, contexts, n_contexts, targets, n_targets, lr, g, grads, want_loss):
    """One skip-gram step for a centre word and its whole window, in place (HogBatch).

    Every context row v_b = w_in[contexts[b]] predicts the same targets (targets[0] the centre
    word's output row, targets[1:n] the noise rows drawn once for the window), so the step is one
    SGD step on the window's summed loss L = Σ_b [-log σ(u_0·v_b) - Σ_k log σ(-u_k·v_b)], every
    gradient taken at the same point: G = lr (labels - σ(V Uᵀ)) (B, K), then V += G U and U += Gᵀ V
    with the old U and V. Scratch: g (≥B, ≥K), grads (≥B, D). Returns L (0.0 unless want_loss).

    Sharing the noise rows across the window (Ji et al.'s HogBatch, in pWord2Vec) draws K noise
    words per centre instead of K per pair and keeps the K + 1 output rows in cache for the window.
    Rows are indexed, never sliced (see _dot).
    """
    D = w_in.shape[1]
    loss = 0.0
    for b in range(n_contexts):
        c = contexts[b]
        for k in range(n_targets):
            f = _dot(w_in, c, w_out, targets[k])
            g[b, k], term = _logit_step(f, k == 0, lr, want_loss)  # 0 for a saturated right answer
            loss += term
    for b in range(n_contexts):  # the input rows' steps, from the old output rows
        for d in range(D):
            grads[b, d] = 0.0
        for k in range(n_targets):
            if g[b, k] != 0.0:
                t = targets[k]
                for d in range(D):
                    grads[b, d] += g[b, k] * w_out[t, d]
    for k in range(n_targets):  # the output rows' steps, from the old input rows
        t = targets[k]
        for b in range(n_contexts):
            if g[b, k] != 0.0:
                c = contexts[b]
                for d in range(D):
                    w_out[t, d] += g[b, k] * w_in[c, d]
    for b in range(n_contexts):
        c = contexts[b]
        for d in range(D):
            w_in[c, d] += grads[b, d]
    return loss


@njit(nogil=True, cache=True)
def sgns_window_update(w_in, w_out, contexts, targets, lr):
    """One skip-gram step in place, as the kernel takes it for a window: the input rows `contexts`
    (B,) each predict targets[0] against the noise rows targets[1:] (K,). Returns the loss before."""
    g = np.empty((contexts.shape[0], targets.shape[0]), np.float32)
    grads = np.empty((contexts.shape[0], w_in.shape[1]), np.float32)
    return _window_step(w_in, w_out, contexts, contexts.shape[0], targets, targets.shape[0], lr, g, grads, True)


def linear_lr(alpha, min_alpha, done, total, epochs=1, share=1.0):
    """The learning rate after `done` of `total` words: linear from alpha down to min_alpha, never
    below it, held for LR_STEP words at a time (gensim's and word2vec's schedule). Floats or NumPy
    arrays of `done`; compiled into the kernels as lr_at. share < 1: each of `epochs` epochs falls
    only `share` of its fall, the next starting back on the line: gensim's corpus_file mode with k
    workers trains at share 1/k (each reads 1/k of the file, counting its progress against all of it).

    >>> float(linear_lr(0.025, 0.0001, 25_000, 100_000)), float(linear_lr(0.025, 0.0001, 200_000, 100_000))
    (0.02002, 0.0001)
    >>> float(linear_lr(0.025, 0.0001, 40_000, 100_000, epochs=2, share=0.5))   # as at 20,000 words
    0.02002
    """
    held = done // LR_STEP * LR_STEP  # the rate at the start of its LR_STEP-word step
    epoch_words = total / epochs
    into = held - held // epoch_words * epoch_words  # words into the current epoch
    position = held - into * (1.0 - share)  # share 1: exactly `held`
    return np.maximum(min_alpha, alpha - (alpha - min_alpha) * position / total)


lr_at = njit(inline="always")(linear_lr)  # one schedule: the same Python function, compiled


@njit(nogil=True, parallel=True, cache=True, fastmath=FASTMATH)
def sgns_chunk(ids, starts, bounds, w_in, w_out, keep, cum_table, guide, rng_state, update_counts,
               window, negative, alpha, min_alpha, words_done, total_words, epochs, share, loss_every):  # fmt: skip
    """Skip-gram on one Chunk, in place. Thread p trains sentences bounds[p]:bounds[p+1] with LCG
    rng_state[p] and counts its input-row updates in update_counts[p] (P, V). The rate of each
    sentence is linear_lr(alpha, min_alpha, words_done + its offset, total_words, epochs, share).
    -> (3,) float64: words kept by subsampling, loss sum, loss terms."""
    P = bounds.shape[0] - 1
    stats = np.zeros((P, 3))
    for p in prange(P):
        state = rng_state[p]
        g = np.empty((2 * window, negative + 1), np.float32)  # one window's scratch for _window_step
        grads = np.empty((2 * window, w_in.shape[1]), np.float32)
        contexts = np.empty(2 * window, np.int64)
        targets = np.empty((2, negative + 1), np.int64)  # this centre's and the next one's
        sentence = np.empty(starts[bounds[p + 1]] - starts[bounds[p]], np.int32)  # kept ids of one sentence
        centres = 0
        for s in range(bounds[p], bounds[p + 1]):
            n, state = subsample(ids, starts[s], starts[s + 1], keep, sentence, state)
            lr = lr_at(alpha, min_alpha, words_done + starts[s], total_words, epochs, share)
            n_next, state = draw_ahead(sentence, 0, n, cum_table, guide, negative, targets[0], w_out, state)
            for i in range(n):
                n_targets, now = n_next, targets[i % 2]
                n_next, state = draw_ahead(sentence, i + 1, n, cum_table, guide, negative, targets[(i + 1) % 2],
                                            w_out, state)  # fmt: skip
                span, state = window_span(window, state)
                want_loss = loss_every > 0 and centres % loss_every == 0
                centres += 1
                B = 0
                for j in range(max(i - span, 0), min(i + span + 1, n)):
                    if j != i:
                        contexts[B] = sentence[j]
                        B += 1
                if B == 0:
                    continue  # a one-word sentence: no pair to learn from
                loss = _window_step(w_in, w_out, contexts, B, now, n_targets, lr, g, grads, want_loss)
                for b in range(B):
                    update_counts[p, contexts[b]] += 1  # a row per thread: no increment lost to a race
                if want_loss:
                    stats[p, 1] += loss
                    stats[p, 2] += B * n_targets
            stats[p, 0] += n
        rng_state[p] = state
    return stats.sum(axis=0)


@njit(nogil=True, parallel=True, cache=True, fastmath=FASTMATH)
def cbow_chunk(ids, starts, bounds, w_in, w_out, keep, cum_table, guide, rng_state, update_counts,
               window, negative, alpha, min_alpha, words_done, total_words, epochs, share, loss_every,
               cbow_mean):  # fmt: skip
    """CBOW on one Chunk, in place: the mean (or sum) of the window's input rows predicts the centre
    word. Same arguments and result as sgns_chunk, plus cbow_mean."""
    P = bounds.shape[0] - 1
    stats = np.zeros((P, 3))
    for p in prange(P):
        state = rng_state[p]
        D = w_in.shape[1]
        grad = np.empty(D, np.float32)
        hidden = np.empty((1, D), np.float32)  # row 0: the window's mean, a table of one row for ns_update
        targets = np.empty((2, negative + 1), np.int64)  # this centre's and the next one's
        sentence = np.empty(starts[bounds[p + 1]] - starts[bounds[p]], np.int32)
        centres = 0
        for s in range(bounds[p], bounds[p + 1]):
            n, state = subsample(ids, starts[s], starts[s + 1], keep, sentence, state)
            lr = lr_at(alpha, min_alpha, words_done + starts[s], total_words, epochs, share)
            n_next, state = draw_ahead(sentence, 0, n, cum_table, guide, negative, targets[0], w_out, state)
            for i in range(n):
                n_targets, now = n_next, targets[i % 2]
                n_next, state = draw_ahead(sentence, i + 1, n, cum_table, guide, negative, targets[(i + 1) % 2],
                                            w_out, state)  # fmt: skip
                span, state = window_span(window, state)
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
                loss = ns_update(hidden, 0, w_out, now, n_targets, lr, grad, want_loss)
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
