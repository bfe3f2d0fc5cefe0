"""The classifier's training loop as numba kernels: fastText's `supervised` update, line by line.

    train_lines(bags arrays, begin, end, w_in, w_out, loss, lr, done, total, threads, noise, paths, rng, sums)
    uniform_rows(w, bound, seed)          w[:] uniform in [-bound, bound): fastText's input init, in parallel

One step, for a line whose input rows are r_1..r_n and whose label is y (one label drawn at random
when the line has several; all of them at once with ova):
    h = mean(w_in[r_i])                                   the bag
    softmax: p = softmax(w_out h); for every label l: a = lr (1[l = y] - p_l)
    ns:      y and `neg` labels drawn by count^0.5;  ova: every label;  hs: the nodes on y's tree path
             each a binary step, a = lr (target - sigmoid(w_out[l] h)) with fastText's table sigmoid
    g += a w_out[l], then w_out[l] += a h   (g takes the row before its step, as fastText)
    w_in[r_i] += g / n for every i (a row listed twice gets it twice)
For softmax and ova that is plain SGD on the cross-entropy of an nn.EmbeddingBag(mode="mean") and a
bias-free nn.Linear: tests check one step against torch autograd.

The rate falls linearly to 0 over epochs x tokens, tokens counted as fastText counts them (labels and
"</s>" included); `done` is the count before this call and each thread adds its own share times
`threads`, as if the threads kept pace. Threads train their slices of [begin, end) at once on shared
tables without locks (Hogwild, as fastText), so with threads > 1 runs differ by rounding; with one
thread a run is a pure function of its seed (one LCG per thread, word2vec's, in `rng`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from embedlab.models.bag_kernels import FASTMATH, label_probs, mean_row, sigmoid
from embedlab.train.kernels import draw_row, lcg

_HIGH = np.uint64(32)


@njit(inline="always", fastmath=FASTMATH)
def _binary(w_out, row, hidden, grad, positive, rate):
    """One binary logistic step on output row `row` -> its loss."""
    s = np.float32(0.0)
    for j in range(len(hidden)):
        s += w_out[row, j] * hidden[j]
    score = sigmoid(s)
    alpha = rate * (np.float32(positive) - score)
    for j in range(len(hidden)):
        grad[j] += alpha * w_out[row, j]
        w_out[row, j] += alpha * hidden[j]
    return -math.log((score if positive else np.float32(1.0) - score) + 1e-5)


@njit(inline="always", fastmath=FASTMATH)
def _softmax(w_out, target, hidden, grad, out, rate):
    """One softmax step towards label `target` -> its loss."""
    label_probs(w_out, hidden, 3, out)
    for i in range(len(out)):
        alpha = rate * (np.float32(i == target) - out[i])
        for j in range(len(hidden)):
            grad[j] += alpha * w_out[i, j]
            w_out[i, j] += alpha * hidden[j]
    return -math.log(out[target] + 1e-5)


@njit(parallel=True, nogil=True, cache=True, fastmath=FASTMATH)
def train_lines(ids, offsets, labels, label_offsets, tokens, begin, end, w_in, w_out, loss, lr, done, total,
                threads, neg, cum_table, guide, path_offsets, path_rows, path_codes, rng, sums):  # fmt: skip
    """Train on lines [begin, end), thread t on its contiguous slice, in place. sums[t] += (loss, lines)."""
    dim, nlabels = w_in.shape[1], w_out.shape[0]
    for t in prange(threads):
        a = begin + (end - begin) * t // threads
        b = begin + (end - begin) * (t + 1) // threads
        hidden = np.empty(dim, np.float32)
        grad = np.empty(dim, np.float32)
        out = np.empty(nlabels, np.float32)
        state = rng[t]
        seen = 0.0
        total_loss, lines = 0.0, 0
        for line in range(a, b):
            progress = (done + seen * threads) / total
            seen += tokens[line]
            ia, ib, la, lb = offsets[line], offsets[line + 1], label_offsets[line], label_offsets[line + 1]
            if ib == ia or lb == la:
                continue
            rate = np.float32(lr * max(0.0, 1.0 - progress))
            mean_row(ids, ia, ib, w_in, hidden)
            grad[:] = 0.0
            step = 0.0
            if loss == 4:  # ova: every label a binary step, the line's own labels positive
                for i in range(nlabels):
                    positive = False
                    for m in range(la, lb):
                        positive |= labels[m] == i
                    step += _binary(w_out, i, hidden, grad, positive, rate)
            else:
                state = lcg(state)
                target = labels[la + np.int64((state >> _HIGH) % np.uint64(lb - la))]
                if loss == 3:
                    step = _softmax(w_out, target, hidden, grad, out, rate)
                elif loss == 2:
                    step = _binary(w_out, target, hidden, grad, True, rate)
                    for _ in range(neg):
                        noise = target
                        while noise == target:
                            noise, state = draw_row(cum_table, guide, state)
                        step += _binary(w_out, noise, hidden, grad, False, rate)
                else:  # hs: the label's path from its leaf to the root
                    for p in range(path_offsets[target], path_offsets[target + 1]):
                        step += _binary(w_out, path_rows[p], hidden, grad, path_codes[p], rate)
            scale = np.float32(1.0) / np.float32(ib - ia)
            for k in range(ia, ib):
                row = w_in[ids[k]]
                for j in range(dim):
                    row[j] += grad[j] * scale
            total_loss += step
            lines += 1
        rng[t] = state
        sums[t, 0] += total_loss
        sums[t, 1] += lines


@njit(parallel=True, nogil=True, cache=True)
def uniform_rows(w, bound, seed):
    """w (M, D) float32 filled uniform in [-bound, bound), each block of rows from its own LCG."""
    blocks = 64
    for block in prange(blocks):
        state = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(block + 1)
        for i in range(len(w) * block // blocks, len(w) * (block + 1) // blocks):
            for j in range(w.shape[1]):
                state = lcg(state)
                w[i, j] = np.float32((np.float64(state >> np.uint64(11)) / 9007199254740992.0 * 2.0 - 1.0) * bound)
