"""The classifier's compiled loops (numba): lines into row ids, and prediction.

    fill_bags(tokens, offsets, kind, target, hashes, sub_offsets, sub_ids, n, bucket, nwords, prune, pruned)
        -> ids (N,) int32, offsets (L+1,), labels (M,) int32, label_offsets (L+1,)   (labelled.Dictionary.encode)
    predict_bags(ids, offsets, w_in, w_out, loss, k, threshold, left, right, labels_out, scores_out)
        top-k labels of each line and their scores, log(p + 1e-5) as fastText ranks them
    mean_row(ids, a, b, w_in, hidden)   hidden = the mean of rows ids[a:b] (shared with the trainer)
    label_probs(w_out, hidden, loss, out)   each label's probability: softmax, or the table sigmoid (ns, ova)
    sigmoid(x)                          fastText's table sigmoid (512 steps over -8..8)
    split_text(data, n)                 bytes -> token ids, line offsets, and each distinct token's span and hash

The arithmetic is fastText's where it shows in the answers: ns, ova and hs score a label with the table
sigmoid (so 0.5 sits on a step of 1/32 in x), softmax with exp; a score is std_log(p) =
float32(log(p + 1e-5)), so a probability printed as exp(score) is p + 1e-5, as the tool prints it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from embedlab.hashing.kernels import fnv
from embedlab.hashing.words import NGRAM_MULTIPLIER

SIGMOID_TABLE_SIZE, MAX_SIGMOID = 512, 8
# fastText's table: x_i = 16 i / 512 - 8 in float32, sigmoid in double, kept as float32
_X = (np.arange(SIGMOID_TABLE_SIZE + 1, dtype=np.float32) * 2 * MAX_SIGMOID / SIGMOID_TABLE_SIZE - MAX_SIGMOID).astype(
    np.float32
)
SIGMOID_TABLE = (1.0 / (1.0 + np.exp(-_X.astype(np.float64)))).astype(np.float32)
_MULT = np.uint64(NGRAM_MULTIPLIER)
# Reassociation lets LLVM vectorise the row sums and dot products (as the word2vec kernels do); NaN and inf
# keep their meaning. Sums then round in another order than the tool's: answers agree to float32 rounding.
FASTMATH = {"reassoc", "contract", "nsz", "arcp"}


_MASK = np.uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _blank(c):
    """fastText's readWord separators but the newline: space, tab, CR, VT, FF (NUL is refused before)."""
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(cache=True)
def _find(data, a, b, h, table, starts, ends):
    """The table slot of the token data[a:b] of hash h: the slot holding its type, or the empty one it goes in."""
    mask = len(table) - 1
    slot = np.int64(h) & mask
    while table[slot] >= 0:
        t = table[slot]
        if ends[t] - starts[t] == b - a:
            same = True
            for k in range(b - a):
                if data[starts[t] + k] != data[a + k]:
                    same = False
                    break
            if same:
                return slot
        slot = (slot + 1) & mask
    return slot


@njit(cache=True, inline="always")
def _is_eos(data, a, b):
    """data[a:b] is b"</s>"."""
    return b - a == 4 and data[a] == 60 and data[a + 1] == 47 and data[a + 2] == 115 and data[a + 3] == 62


@njit(cache=True)
def split_text(data, n):
    """Tokens of data[:n] as fastText's readWord reads them (data[n:n + 4] must hold b"</s>", the word each
    newline is read as) -> ids (N,) int32, offsets (L+1,) int64 (a line ends after each "</s>"), and of
    each distinct token, in order of first appearance, its span starts, ends (U,) in data and its FNV-1a
    hash (U,) int64 as fastText's int32. One pass; distinct tokens found in an open-addressing table."""
    table = np.full(1 << 12, -1, np.int64)
    starts = np.empty(1 << 11, np.int64)
    ends = np.empty(1 << 11, np.int64)
    hashes = np.empty(1 << 11, np.int64)
    ids = np.empty(n + 1, np.int32)
    offsets = np.empty(n + 2, np.int64)
    offsets[0] = 0
    types, tokens, lines, i = 0, 0, 0, 0
    eos = -1  # the type of "</s>", once seen
    while i < n:
        a, b = i, i + 1
        if data[i] == 10:
            a, b = n, n + 4  # the newline is the word "</s>"
        elif _blank(data[i]):
            i += 1
            continue
        else:
            while b < n and data[b] != 10 and not _blank(data[b]):
                b += 1
        h = fnv(data, a, b)
        slot = _find(data, a, b, h, table, starts, ends)
        if table[slot] < 0:
            if types == len(starts):  # grow the types' arrays
                starts = np.concatenate((starts, np.empty_like(starts)))
                ends = np.concatenate((ends, np.empty_like(ends)))
                hashes = np.concatenate((hashes, np.empty_like(hashes)))
            starts[types], ends[types] = a, b
            hashes[types] = np.int64(h) - 4294967296 if h >= 2147483648 else np.int64(h)
            table[slot] = types
            types += 1
            if 2 * types > len(table):  # keep the table at most half full: rebuild it twice as large
                table = np.full(2 * len(table), -1, np.int64)
                for t in range(types):
                    table[_find(data, starts[t], ends[t], np.uint64(hashes[t]) & _MASK, table, starts, ends)] = t
                slot = -1
        t = table[slot] if slot >= 0 else types - 1
        ids[tokens] = t
        tokens += 1
        if t == eos or (eos < 0 and _is_eos(data, starts[t], ends[t])):
            eos = t
            lines += 1  # "</s>", read from a newline or typed: the line ends
            offsets[lines] = tokens
        i = b if a != n else i + 1
    if tokens > offsets[lines]:  # a last line without a newline
        lines += 1
        offsets[lines] = tokens
    return ids[:tokens], offsets[: lines + 1], starts[:types], ends[:types], hashes[:types]


@njit(cache=True, inline="always")
def sigmoid(x):
    if x < -MAX_SIGMOID:
        return np.float32(0.0)
    if x > MAX_SIGMOID:
        return np.float32(1.0)
    return SIGMOID_TABLE[np.int64((x + np.float32(MAX_SIGMOID)) * np.float32(SIGMOID_TABLE_SIZE / MAX_SIGMOID / 2))]


@njit(cache=True, inline="always")
def std_log(p):
    return np.float32(math.log(np.float64(p) + 1e-5))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def mean_row(ids, a, b, w_in, hidden):
    hidden[:] = 0.0
    for k in range(a, b):
        row = w_in[ids[k]]
        for j in range(len(hidden)):
            hidden[j] += row[j]
    scale = np.float32(1.0) / np.float32(b - a)
    for j in range(len(hidden)):
        hidden[j] *= scale


@njit(cache=True)
def _line(tokens, a, b, kind, target, hashes, sub_offsets, sub_ids, n, bucket, nwords, prune, pruned,
          ids, k, labels, m, write, scratch):  # fmt: skip
    """Line tokens[a:b]: its rows into ids[k:] and labels into labels[m:] (when `write`) -> the next k, m."""
    w = 0
    for t in range(a, b):
        u = tokens[t]
        if kind[u] == 0:  # a word, known or not
            for s in range(sub_offsets[u], sub_offsets[u + 1]):
                if write:
                    ids[k] = sub_ids[s]
                k += 1
            scratch[w] = hashes[u]
            w += 1
        elif kind[u] == 1:  # a known label (kind 2, an unknown one, is dropped)
            if write:
                labels[m] = target[u]
            m += 1
    for i in range(w):
        h = np.uint64(scratch[i])  # the int32 hash widened with its sign, as fastText's uint64_t h = hashes[i]
        for j in range(i + 1, min(w, i + n)):
            h = h * _MULT + np.uint64(scratch[j])
            row = np.int64(h % np.uint64(bucket))
            if pruned:
                row = prune[row]
                if row < 0:
                    continue
            if write:
                ids[k] = nwords + row
            k += 1
    return k, m


@njit(cache=True)
def fill_bags(tokens, offsets, kind, target, hashes, sub_offsets, sub_ids, n, bucket, nwords, prune, pruned):
    lines = len(offsets) - 1
    id_offsets = np.zeros(lines + 1, dtype=np.int64)
    label_offsets = np.zeros(lines + 1, dtype=np.int64)
    longest = 1
    for line in range(lines):
        longest = max(longest, offsets[line + 1] - offsets[line])
    scratch = np.empty(longest, dtype=np.int64)
    none32 = np.empty(0, dtype=np.int32)
    for line in range(lines):  # count, then fill
        k, m = _line(tokens, offsets[line], offsets[line + 1], kind, target, hashes, sub_offsets, sub_ids, n, bucket,
                     nwords, prune, pruned, none32, 0, none32, 0, False, scratch)  # fmt: skip
        id_offsets[line + 1] = id_offsets[line] + k
        label_offsets[line + 1] = label_offsets[line] + m
    ids = np.empty(id_offsets[-1], dtype=np.int32)
    labels = np.empty(label_offsets[-1], dtype=np.int32)
    for line in range(lines):
        _line(tokens, offsets[line], offsets[line + 1], kind, target, hashes, sub_offsets, sub_ids, n, bucket,
              nwords, prune, pruned, ids, id_offsets[line], labels, label_offsets[line], True, scratch)  # fmt: skip
    return ids, id_offsets, labels, label_offsets


# fastText keeps the k best in a std::vector heap ordered by score alone (comparePairs: a.first > b.first, so
# the front is the worst kept) and sorts it with std::sort_heap at the end. Equal scores are common (ns and
# ova read a 512-step table), and which of two equal labels is kept, and in which order, is whatever
# libstdc++'s heap moves do: they are written out here move for move, so ties come out as the tool's.


@njit(cache=True, inline="always")
def _sift_up(scores, labels, hole, top, score, label):
    """libstdc++'s __push_heap: move `score` up from `hole` while its parent scores higher."""
    parent = (hole - 1) // 2
    while hole > top and scores[parent] > score:
        scores[hole], labels[hole] = scores[parent], labels[parent]
        hole = parent
        parent = (hole - 1) // 2
    scores[hole], labels[hole] = score, label


@njit(cache=True, inline="always")
def _pop_into(scores, labels, size, at):
    """libstdc++'s __pop_heap over heap[0:size]: the front goes to `at`, what was at `at` is re-seated."""
    score, label = scores[at], labels[at]
    scores[at], labels[at] = scores[0], labels[0]
    hole, child = 0, 0
    while child < (size - 1) // 2:  # __adjust_heap: the hole walks down to a leaf by the lower child
        child = 2 * (child + 1)
        if scores[child] > scores[child - 1]:
            child -= 1
        scores[hole], labels[hole] = scores[child], labels[child]
        hole = child
    if size % 2 == 0 and child == (size - 2) // 2:
        child = 2 * (child + 1)
        scores[hole], labels[hole] = scores[child - 1], labels[child - 1]
        hole = child - 1
    _sift_up(scores, labels, hole, 0, score, label)


@njit(cache=True, inline="always")
def _offer(score, label, k, scores, labels, size):
    """findKBest's step: push (score, label) and drop the worst when more than k are kept -> the new size."""
    if size == k and score < scores[0]:
        return size
    scores[size], labels[size] = score, label
    _sift_up(scores, labels, size, 0, score, label)
    size += 1
    if size > k:
        _pop_into(scores, labels, size - 1, size - 1)
        size -= 1
    return size


@njit(cache=True, inline="always")
def _sort_heap(scores, labels, size):
    """std::sort_heap: best first."""
    while size > 1:
        size -= 1
        _pop_into(scores, labels, size, size)


@njit(cache=True, fastmath=FASTMATH)
def label_probs(w_out, hidden, loss, out):
    """out (labels,) = each label's probability from hidden (D,): softmax (loss 3), else the table sigmoid."""
    for i in range(len(out)):
        s = np.float32(0.0)
        for j in range(len(hidden)):
            s += w_out[i, j] * hidden[j]
        out[i] = s
    if loss == 3:
        top = out.max()
        z = np.float32(0.0)
        for i in range(len(out)):
            out[i] = math.exp(out[i] - top)
            z += out[i]
        for i in range(len(out)):
            out[i] /= z
    else:
        for i in range(len(out)):
            out[i] = sigmoid(out[i])


@njit(cache=True, fastmath=FASTMATH)
def _tree_search(w_out, hidden, k, threshold, left, right, labels, scores, stack_nodes, stack_scores):
    """-> how many labels were kept (the heap's size)."""
    """hs: depth-first over the label tree from its root, a path's score the sum of std_log of each
    branch's exact sigmoid; subtrees already below the k-th best or the threshold are cut."""
    osz = len(left) // 2 + 1
    floor = std_log(threshold)
    size, top = 0, 0
    stack_nodes[0] = 2 * osz - 2
    stack_scores[0] = 0.0
    while top >= 0:
        node, score = stack_nodes[top], stack_scores[top]
        top -= 1
        if score < floor or (size == k and score < scores[0]):
            continue
        if left[node] == -1 and right[node] == -1:
            size = _offer(score, node, k, scores, labels, size)
            continue
        f = np.float32(0.0)
        for j in range(len(hidden)):
            f += w_out[node - osz, j] * hidden[j]
        f = np.float32(1.0 / (1.0 + math.exp(-f)))
        top += 1  # right pushed first so the left subtree is searched first, as fastText's recursion does
        stack_nodes[top], stack_scores[top] = right[node], score + std_log(f)
        top += 1
        stack_nodes[top], stack_scores[top] = left[node], score + std_log(np.float32(1.0 - f))
    return size


@njit(parallel=True, cache=True)
def predict_bags(ids, offsets, w_in, w_out, loss, k, threshold, left, right, labels_out, scores_out):
    """Each line's k best labels into labels_out (L, k) int32 (-1 past the last) and their scores into
    scores_out (L, k) float32. A line with no rows predicts nothing."""
    lines, dim, nlabels = len(offsets) - 1, w_in.shape[1], w_out.shape[0]
    for line in prange(lines):
        labels_out[line] = -1
        scores_out[line] = -np.inf
        a, b = offsets[line], offsets[line + 1]
        if b == a:
            continue
        labels = np.full(k + 1, -1, np.int32)  # the heap: one more than k while a new label waits
        scores = np.full(k + 1, -np.inf, np.float32)
        hidden = np.empty(dim, dtype=np.float32)
        mean_row(ids, a, b, w_in, hidden)
        if loss == 1:
            size = _tree_search(w_out, hidden, k, threshold, left, right, labels, scores,
                                np.empty(len(left) + 1, np.int64), np.empty(len(left) + 1, np.float32))  # fmt: skip
        else:
            out = np.empty(nlabels, dtype=np.float32)
            label_probs(w_out, hidden, loss, out)
            size = 0
            for i in range(nlabels):
                if out[i] >= threshold:
                    size = _offer(std_log(out[i]), i, k, scores, labels, size)
        _sort_heap(scores, labels, size)
        labels_out[line, :size] = labels[:size]
        scores_out[line, :size] = scores[:size]
