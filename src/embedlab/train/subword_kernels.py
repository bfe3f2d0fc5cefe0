"""fastText's model as numba kernels: skip-gram and CBOW where a word's input is the mean of its own
row and its character n-grams' bucket rows.

    sgns_subword_chunk(ids, starts, bounds, w_in, w_out, offsets, rows, keep, cum_table, guide, rng_state,
                       update_counts, window, negative, alpha, min_alpha, words_done, total_words, epochs, share,
                       loss_every, pair_steps, ngram_divisor)
    cbow_subword_chunk(...)                           # the schedule's arguments as sgns's, then cbow_mean
    sgns_subword_update(w_in, w_out, rows, targets, n_targets, lr)    # one centre's step, as the chunk takes it
    cbow_subword_sentence(w_in, w_out, offsets, rows, sentence, spans, targets, n_targets, lr, window, cbow_mean)
    compose(w_in, offsets, rows, words)               # (W,) word ids -> (W, D) their composed vectors

The input table w_in (V + B, D) holds the V word rows, then the B bucket rows. Word w's input rows
are rows[offsets[w]:offsets[w + 1]]: its own row first, then V + the bucket id of each n-gram of
"<w>" (repeats kept), built once per vocabulary by `subwords.input_rows`. As in fastText's
Model::update for unsupervised models, the hidden vector h is the MEAN of those rows, and the whole
gradient of h (not divided by the row count) is added to each of them. The pairing is fastText's
and gensim FastText's: in skip-gram the centre word's composed input predicts each context word in
the output table (the reverse of kernels.py's word2vec order), with `negative` noise words per
pair; in CBOW the mean over every input row of every context word predicts the centre word.

Subsampling, the shrunk window, unigram^0.75 noise, MAX_EXP, the linear rate and the LCG streams are
kernels.py's, so a run with one thread is a pure function of its seed and resumes bit for bit.

Departures, for speed (HogBatch's idea, here on the input side): skip-gram composes the centre's h
once per centre word and takes its window's pairs in order (noise drawn per pair, as fastText and
gensim draw it); each pair's step moves h at once, as it moves the mean of rows that all take it,
and the rows take the sum of the steps once, after the last pair. fastText and gensim recompose h
from the rows and step every row after each pair: 2 × (rows of the word) row passes per pair instead
of per centre, for the same result but for a row listed twice in one word (a repeated n-gram, a
bucket collision), seen to move once per listing until the next centre. (Taking every pair at the
first h, as kernels.py's word2vec HogBatch does, scored ~0.006 lower on WordSim-353 and SimLex-999
and ~0.5 point lower on Google analogies on gcide, seeds 1-3.) One more
difference from gensim only: gensim's skip-gram divides the rows' sum by the n-gram count alone;
fastText and these kernels by the number of rows (n-grams + 1), so a word's training input is
exactly the composed vector it is queried by. Both of gensim's ways are switches (`pair_steps`,
`ngram_divisor`; docs/benchmarks.md measures them against gensim).

CBOW defers its input steps within a sentence (the same idea on a window that slides): each word
position's rows are summed once, when it enters the window, into that position's sum S_j; a centre's
h is the mean over its window of the S_j (divided by the total row count, as before), its step -lr ∂L/∂h
goes into each window position's pending step G_j (and into S_j, c_j times for c_j rows, as the rows
would have moved), and each position's rows take their G_j once, when it leaves the window after the
last centre that can see it (centre j + window) or at the sentence's end. fastText and gensim sum
every row of every window word per centre and step each of them: ~10 words × ~20 rows, twice; here
each row is read and written once per position. What is delayed is exactly the steps between
different positions: a row shared by two positions within 2 × window of each other (the word repeated,
an n-gram or bucket shared) takes the other position's steps only when that position leaves, up to
2 × window centres later (and a Hogwild thread's steps to a row in the window are not seen until the
row is summed again). tests/train/test_subwords.py states this as a reference with autograd.

`update_counts` (P, V) counts, per thread (no increment lost to a race), how often each word's
input rows took a step. A word's rows always step together, so each bucket's count follows exactly
(`subwords.bucket_counts`) without a count per row in the loop: that one was a random access into a
(P, V + B) array for every row updated, ~10-20% of skip-gram's time on enwiki-sample.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from embedlab.train.kernels import (
    FASTMATH,
    draw_targets,
    lr_at,
    ns_update,
    prefetch_rows,
    subsample,
    window_span,
)

AHEAD = 2  # CBOW asks for an entrant's input rows this many centres early (gcide: 1 slower, 3 no faster)


@njit(inline="always", fastmath=FASTMATH)
def _add_mean(w_in, rows, a, b, out, o):
    """out[o] += the rows rows[a:b] of w_in, summed in order. Indexed, never sliced (kernels._dot)."""
    for k in range(a, b):
        r = rows[k]
        for d in range(w_in.shape[1]):
            out[o, d] += w_in[r, d]


@njit(inline="always", fastmath=FASTMATH)
def _add_to_rows(w_in, rows, a, b, grad):
    """w_in[rows[k]] += grad for k in a..b-1 (a row listed twice takes it twice, as fastText)."""
    for k in range(a, b):
        r = rows[k]
        for d in range(w_in.shape[1]):
            w_in[r, d] += grad[d]


@njit(inline="always", fastmath=FASTMATH)
def _compose_hidden(w_in, rows, a, b, hidden, scale):
    """hidden[0] = scale × the sum of the rows rows[a:b] of w_in."""
    for d in range(w_in.shape[1]):
        hidden[0, d] = 0.0
    _add_mean(w_in, rows, a, b, hidden, 0)
    for d in range(w_in.shape[1]):
        hidden[0, d] *= scale


@njit(inline="always", fastmath=FASTMATH)
def _centre_step(w_in, w_out, rows, a, b, targets, n_targets, B, lr, hidden, step, grad, want_loss, pair_steps,
                 ngram_divisor):  # fmt: skip
    """The skip-gram steps of a centre word whose input rows are rows[a:b], pair by pair, in place.

    h = the sum of those m rows / m (D,) (/ (m - 1) with ngram_divisor: gensim's skip-gram divides by
    the n-gram count alone); context c < B predicts targets[c, 0] (its output row) against the
    noise rows targets[c, 1:n_targets[c]], loss L_c = -log σ(u_c0·h) - Σ_k log σ(-u_ck·h). Pair c's
    step s_c = -lr ∂L_c/∂h moves every input row by s_c, so h by (m / divisor) s_c: h moves at once
    and the next pair is taken there, as fastText's and gensim's, while the rows take the summed
    steps once at the end. With pair_steps, gensim's and fastText's order itself: the rows take
    each pair's step at once and h is summed again from them for the next pair (2m row passes a
    pair instead of a centre). Scratch: step, grad (D,). Returns Σ_c L_c (0.0 unless want_loss).
    """
    D = w_in.shape[1]
    m = b - a
    divisor = m - 1 if ngram_divisor and m > 1 else m
    scale = np.float32(1.0 / divisor)
    move = np.float32(m / divisor)  # h's move when every row takes a step: 1 unless ngram_divisor
    for d in range(D):
        grad[d] = 0.0
    _compose_hidden(w_in, rows, a, b, hidden, scale)
    loss = 0.0
    for c in range(B):
        if pair_steps and c > 0:
            _compose_hidden(w_in, rows, a, b, hidden, scale)
        for d in range(D):
            step[d] = 0.0
        loss += ns_update(hidden, 0, w_out, targets[c], n_targets[c], lr, step, want_loss)
        if pair_steps:
            _add_to_rows(w_in, rows, a, b, step)
        else:
            for d in range(D):
                hidden[0, d] += move * step[d]  # h as its rows would be after this pair
                grad[d] += step[d]
    if not pair_steps:
        _add_to_rows(w_in, rows, a, b, grad)
    return loss


@njit(nogil=True, cache=True)
def sgns_subword_update(w_in, w_out, rows, targets, n_targets, lr, pair_steps=False, ngram_divisor=False):
    """One skip-gram step in place, as the kernel takes it for a centre word: input rows `rows` (m,),
    context b predicting targets[b, 0] against targets[b, 1:n_targets[b]] (B, K+1). Returns the loss."""
    hidden = np.empty((1, w_in.shape[1]), np.float32)
    step, grad = np.empty(w_in.shape[1], np.float32), np.empty(w_in.shape[1], np.float32)
    return _centre_step(w_in, w_out, rows, 0, rows.shape[0], targets, n_targets, targets.shape[0], lr, hidden, step,
                        grad, True, pair_steps, ngram_divisor)  # fmt: skip


@njit(inline="always")
def ring_size(window):
    """The CBOW ring's slot count: the power of two ≥ 2·window + 1 (a slot is then j & (size - 1),
    no division). ring_size(5) == 16."""
    size = 1
    while size < 2 * window + 1:
        size *= 2
    return size


@njit(inline="always", fastmath=FASTMATH)
def _enter(w_in, offsets, rows, word, sums, pending, sizes, slot):
    """A word position enters the window: sums[slot] = the sum of its input rows as they are now,
    pending[slot] = 0, sizes[slot] = its row count."""
    for d in range(w_in.shape[1]):
        sums[slot, d] = 0.0
        pending[slot, d] = 0.0
    _add_mean(w_in, rows, offsets[word], offsets[word + 1], sums, slot)
    sizes[slot] = offsets[word + 1] - offsets[word]


@njit(inline="always", fastmath=FASTMATH)
def _leave(w_in, offsets, rows, word, pending, slot):
    """A word position leaves the window: each of its input rows takes the position's summed steps."""
    for k in range(offsets[word], offsets[word + 1]):
        r = rows[k]
        for d in range(w_in.shape[1]):
            w_in[r, d] += pending[slot, d]


@njit(inline="always", fastmath=FASTMATH)
def _deferred_step(w_out, sums, pending, sizes, lo, hi, i, mask, targets, n_targets, lr, cbow_mean, hidden, grad,
                   want_loss):  # fmt: skip
    """One CBOW step for centre i on the positions lo..hi-1 of the ring: h = the mean (or sum) of every
    input row of the context positions, from their sums; the step -lr ∂L/∂h (divided by the row count
    when summed, as gensim) goes to each position's pending step, and into its sum as its rows would
    have moved (sizes × step). Returns L (0.0 unless want_loss)."""
    D = w_out.shape[1]
    for d in range(D):
        hidden[0, d] = 0.0
        grad[d] = 0.0
    count = 0
    for j in range(lo, hi):
        if j != i:
            slot = j & mask
            for d in range(D):
                hidden[0, d] += sums[slot, d]
            count += sizes[slot]
    scale = np.float32(1.0 / count)
    if cbow_mean:
        for d in range(D):
            hidden[0, d] *= scale
    loss = ns_update(hidden, 0, w_out, targets, n_targets, lr, grad, want_loss)
    if not cbow_mean:
        for d in range(D):
            grad[d] *= scale
    for j in range(lo, hi):
        if j != i:
            slot = j & mask
            size = np.float32(sizes[slot])
            for d in range(D):
                pending[slot, d] += grad[d]
                sums[slot, d] += size * grad[d]
    return loss


@njit(inline="always", fastmath=FASTMATH)
def _cbow_sentence(w_in, w_out, offsets, rows, sentence, n, spans, targets, n_targets, lr, window, cbow_mean,
                   hidden, grad, sums, pending, sizes, update_counts, p, loss_every, centres):  # fmt: skip
    """CBOW with deferred input steps on one subsampled sentence sentence[:n], in place: centre i looks
    spans[i] words each side and predicts targets[i, 0] against targets[i, 1:n_targets[i]].

    Position j enters the window (its rows summed into sums) before centre j - window and leaves it
    (its pending steps added to its rows) after centre j + window, the last centre that can see it;
    a ring of ring_size(window) ≥ 2·window + 1 slots holds the positions in between.
    -> (loss sum, loss terms, centres).
    """
    loss_sum, terms = 0.0, 0
    if n < 2:
        return loss_sum, terms, centres  # a one-word sentence has no context to predict from
    mask = sums.shape[0] - 1  # position j's slot is j & mask
    for j in range(min(window, n)):
        _enter(w_in, offsets, rows, sentence[j], sums, pending, sizes, j & mask)
    for i in range(n):
        if i + window < n:
            _enter(w_in, offsets, rows, sentence[i + window], sums, pending, sizes, (i + window) & mask)
        if i + 1 < n:  # the next centre's output rows, and the next entrant's input rows, load while this one trains
            prefetch_rows(w_out, targets[i + 1], 0, n_targets[i + 1])
        if i + window + AHEAD < n:
            word = sentence[i + window + AHEAD]
            prefetch_rows(w_in, rows, offsets[word], offsets[word + 1])
        lo, hi = max(i - spans[i], 0), min(i + spans[i] + 1, n)
        want_loss = loss_every > 0 and centres % loss_every == 0
        centres += 1
        loss = _deferred_step(w_out, sums, pending, sizes, lo, hi, i, mask, targets[i], n_targets[i], lr, cbow_mean,
                              hidden, grad, want_loss)  # fmt: skip
        for j in range(lo, hi):
            if j != i:
                update_counts[p, sentence[j]] += 1  # a row per thread: no increment lost to a race
        if want_loss:
            loss_sum += loss
            terms += n_targets[i]
        if i - window >= 0:
            _leave(w_in, offsets, rows, sentence[i - window], pending, (i - window) & mask)
    for j in range(max(n - window, 0), n):
        _leave(w_in, offsets, rows, sentence[j], pending, j & mask)
    return loss_sum, terms, centres


@njit(nogil=True, cache=True)
def cbow_subword_sentence(w_in, w_out, offsets, rows, sentence, spans, targets, n_targets, lr, window, cbow_mean):
    """CBOW on one sentence (n,) in place, as the kernel takes it: centre i looks spans[i] (n,) words
    each side and predicts targets[i, 0] against targets[i, 1:n_targets[i]] (n, K+1). Returns the loss."""
    D = w_in.shape[1]
    ring = ring_size(window)
    hidden, grad = np.empty((1, D), np.float32), np.empty(D, np.float32)
    sums, pending, sizes = np.empty((ring, D), np.float32), np.empty((ring, D), np.float32), np.empty(ring, np.int64)
    counts = np.zeros((1, offsets.shape[0] - 1), np.int64)
    loss, _, _ = _cbow_sentence(w_in, w_out, offsets, rows, sentence, sentence.shape[0], spans, targets, n_targets,
                                lr, window, cbow_mean, hidden, grad, sums, pending, sizes, counts, 0, 1, 0)  # fmt: skip
    return loss


@njit(nogil=True, parallel=True, cache=True, fastmath=FASTMATH)
def sgns_subword_chunk(ids, starts, bounds, w_in, w_out, offsets, rows, keep, cum_table, guide, rng_state,
                       update_counts, window, negative, alpha, min_alpha, words_done, total_words, epochs, share,
                       loss_every, pair_steps, ngram_divisor):  # fmt: skip
    """Skip-gram with subwords on one Chunk, in place: kernels.sgns_chunk's arguments and result,
    plus each word's input rows (offsets (V+1,), rows (V + N,)) and _centre_step's two variants."""
    P = bounds.shape[0] - 1
    stats = np.zeros((P, 3))
    for p in prange(P):
        state = rng_state[p]
        D = w_in.shape[1]
        hidden = np.empty((1, D), np.float32)  # h, a table of one row for ns_update
        step = np.empty(D, np.float32)  # one pair's step
        grad = np.empty(D, np.float32)  # the centre's summed steps
        targets = np.empty((2 * window, negative + 1), np.int64)  # each context's true row and noise rows
        n_targets = np.empty(2 * window, np.int64)
        sentence = np.empty(starts[bounds[p + 1]] - starts[bounds[p]], np.int32)
        centres = 0
        for s in range(bounds[p], bounds[p + 1]):
            n, state = subsample(ids, starts[s], starts[s + 1], keep, sentence, state)
            lr = lr_at(alpha, min_alpha, words_done + starts[s], total_words, epochs, share)
            for i in range(n):
                span, state = window_span(window, state)
                B = 0
                for j in range(max(i - span, 0), min(i + span + 1, n)):
                    if j != i:  # the draws depend on no table value: all of them first, then the step
                        n_targets[B], state = draw_targets(sentence[j], cum_table, guide, negative, targets[B], state)
                        B += 1
                if B == 0:
                    continue  # a one-word sentence: no pair to learn from
                for c in range(B):  # this centre's output rows, and the next centre's input rows, load at once
                    prefetch_rows(w_out, targets[c], 0, n_targets[c])
                if i + 1 < n:
                    prefetch_rows(w_in, rows, offsets[sentence[i + 1]], offsets[sentence[i + 1] + 1])
                want_loss = loss_every > 0 and centres % loss_every == 0
                centres += 1
                word = sentence[i]
                loss = _centre_step(w_in, w_out, rows, offsets[word], offsets[word + 1], targets, n_targets, B, lr,
                                    hidden, step, grad, want_loss, pair_steps, ngram_divisor)  # fmt: skip
                update_counts[p, word] += 1  # a row per thread: no increment lost to a race
                if want_loss:
                    stats[p, 1] += loss
                    stats[p, 2] += n_targets[:B].sum()
            stats[p, 0] += n
        rng_state[p] = state
    return stats.sum(axis=0)


@njit(nogil=True, parallel=True, cache=True, fastmath=FASTMATH)
def cbow_subword_chunk(ids, starts, bounds, w_in, w_out, offsets, rows, keep, cum_table, guide, rng_state,
                       update_counts, window, negative, alpha, min_alpha, words_done, total_words, epochs, share,
                       loss_every, cbow_mean):  # fmt: skip
    """CBOW with subwords on one Chunk, in place: sgns_subword_chunk's arguments and result, plus cbow_mean."""
    P = bounds.shape[0] - 1
    stats = np.zeros((P, 3))
    for p in prange(P):
        state = rng_state[p]
        D = w_in.shape[1]
        longest = 0
        for s in range(bounds[p], bounds[p + 1]):
            longest = max(longest, starts[s + 1] - starts[s])
        ring = ring_size(window)
        hidden = np.empty((1, D), np.float32)
        grad = np.empty(D, np.float32)
        sums = np.empty((ring, D), np.float32)  # each position in the window: its rows' sum, as stepped
        pending = np.empty((ring, D), np.float32)  # ... and the steps its rows have still to take
        sizes = np.empty(ring, np.int64)  # ... and its row count
        sentence = np.empty(longest, np.int32)
        spans = np.empty(longest, np.int64)
        targets = np.empty((longest, negative + 1), np.int64)
        n_targets = np.empty(longest, np.int64)
        centres = 0
        for s in range(bounds[p], bounds[p + 1]):
            n, state = subsample(ids, starts[s], starts[s + 1], keep, sentence, state)
            lr = lr_at(alpha, min_alpha, words_done + starts[s], total_words, epochs, share)
            for i in range(n):  # the draws depend on no table value: all of them first, then the steps
                spans[i], state = window_span(window, state)
                n_targets[i], state = draw_targets(sentence[i], cum_table, guide, negative, targets[i], state)
            loss, terms, centres = _cbow_sentence(w_in, w_out, offsets, rows, sentence, n, spans, targets, n_targets,
                                                  lr, window, cbow_mean, hidden, grad, sums, pending, sizes,
                                                  update_counts, p, loss_every, centres)  # fmt: skip
            stats[p, 0] += n
            stats[p, 1] += loss
            stats[p, 2] += terms
        rng_state[p] = state
    return stats.sum(axis=0)


@njit(nogil=True, parallel=True, cache=True, fastmath=FASTMATH)
def compose(w_in, offsets, rows, words):
    """(W,) word ids -> (W, D) float32: each word's composed vector, the mean of its input rows
    summed in order and scaled by 1/count as the kernels form h (fastText's getWordVector)."""
    out = np.zeros((words.shape[0], w_in.shape[1]), np.float32)
    for t in prange(words.shape[0]):
        a, b = offsets[words[t]], offsets[words[t] + 1]
        for k in range(a, b):
            r = rows[k]
            for d in range(w_in.shape[1]):
                out[t, d] += w_in[r, d]
        scale = np.float32(1.0 / (b - a))
        for d in range(w_in.shape[1]):
            out[t, d] *= scale
    return out
