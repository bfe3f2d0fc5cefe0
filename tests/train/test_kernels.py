"""word2vec's numba kernels: one step against torch autograd, the noise draws against a plain-Python
oracle, and the learning-rate schedule every engine shares."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from embedlab.data.corpora import open_corpus
from embedlab.train.corpus import WordVocab
from embedlab.train.kernels import LR_STEP, draw_noise, guide_table, linear_lr, sgns_window_update
from embedlab.train.tables import vocab_tables

STEP_ATOL = 1e-7  # float32 kernel vs float64 autograd on entries of size ~0.1
NOISE_TOLERANCE = 0.01  # absolute error of empirical noise frequencies from 200,000 draws (sd ≈ 0.001)


@pytest.fixture(scope="module")
def wiki_vocab():
    return WordVocab.build(open_corpus("enwiki-sample"), min_count=5)


@pytest.mark.parametrize("contexts", [[4], [4, 3, 0], [4, 3, 4]])  # a pair; a window; a row twice in it
def test_window_update_is_one_sgd_step_on_the_windows_loss(contexts):
    rng = np.random.default_rng(0)
    w_in = rng.normal(0, 0.3, (6, 8)).astype(np.float32)
    w_out = rng.normal(0, 0.3, (6, 8)).astype(np.float32)
    contexts, targets, lr = np.array(contexts), np.array([1, 0, 2, 5, 2]), 0.05  # noise row 2 drawn twice

    v = torch.tensor(w_in, dtype=torch.float64, requires_grad=True)
    u = torch.tensor(w_out, dtype=torch.float64, requires_grad=True)
    logits = v[contexts] @ u[targets].T  # (B, K)
    labels = torch.zeros_like(logits)
    labels[:, 0] = 1.0
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels, reduction="sum")
    loss.backward()

    got_loss = sgns_window_update(w_in, w_out, contexts, targets, lr)
    assert got_loss == pytest.approx(loss.item(), abs=1e-5)
    np.testing.assert_allclose(w_in, (v - lr * v.grad).detach().numpy(), atol=STEP_ATOL)
    np.testing.assert_allclose(w_out, (u - lr * u.grad).detach().numpy(), atol=STEP_ATOL)


def test_a_saturated_right_answer_takes_no_step():
    w_in = np.full((3, 4), 2.0, np.float32)  # u·h = 16 > MAX_EXP for the true row
    w_out = np.full((3, 4), 2.0, np.float32)
    w_out[2] = -2.0  # and -16 for the noise row: both answers already right
    before = (w_in.copy(), w_out.copy())
    sgns_window_update(w_in, w_out, np.array([1]), np.array([0, 2]), 0.025)
    np.testing.assert_array_equal(w_in, before[0])
    np.testing.assert_array_equal(w_out, before[1])


def _oracle_draws(cum_table: np.ndarray, state: int, n: int) -> list[int]:
    """word2vec's LCG in Python integers, each draw its top 32 bits, rows by binary search."""
    rows = []
    for _ in range(n):
        state = (state * 25214903917 + 11) % 2**64
        r = (state >> 32) % int(cum_table[-1])
        rows.append(int(np.searchsorted(cum_table, r, side="right")))
    return rows


@pytest.mark.parametrize("counts", [[5, 3, 2], [1] * 7, [1000, 1, 1, 1, 1, 1], [50, 40, 10, 3, 2, 2, 1, 1, 1]])
def test_noise_draws_equal_the_binary_search(counts):
    vocab = WordVocab([str(i) for i in range(len(counts))], np.array(counts))
    cum_table = vocab.noise_table()
    state = np.array([12345], dtype=np.uint64)
    rows = draw_noise(cum_table, guide_table(cum_table), state, 2000)
    assert rows.tolist() == _oracle_draws(cum_table, 12345, 2000)
    assert state[0] != 12345  # the stream moved on


def test_noise_frequencies_follow_counts_to_the_three_quarters(wiki_vocab):
    tables = vocab_tables(wiki_vocab, 1e-3)
    rows = draw_noise(tables.cum_table, tables.guide, np.array([7], dtype=np.uint64), 200_000)
    expected = wiki_vocab.counts[:20] ** 0.75 / (wiki_vocab.counts**0.75).sum()
    observed = np.bincount(rows, minlength=len(wiki_vocab))[:20] / len(rows)
    np.testing.assert_allclose(observed, expected, atol=NOISE_TOLERANCE)


def test_the_schedule_falls_linearly_to_its_floor_for_floats_and_arrays():
    total = 4 * LR_STEP
    done = np.array([0, LR_STEP, total, 5 * total], dtype=np.float64)
    np.testing.assert_allclose(linear_lr(0.025, 0.0001, done, total), [0.025, 0.025 - 0.0249 / 4, 0.0001, 0.0001])
    assert float(linear_lr(0.025, 0.0001, LR_STEP, total)) == linear_lr(0.025, 0.0001, done, total)[1]


def _gensim_corpus_file_alpha(start, end, worker_words, expected_words, cur_epoch, num_epochs):
    """gensim 4.4's get_next_alpha (word2vec_corpusfile.pyx), word-based: a worker's progress is the
    words it has read this epoch over the whole file's, though it stops at expected_words / workers."""
    progress = (cur_epoch + worker_words / expected_words) / num_epochs
    return max(end, start - (start - end) * progress)


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_a_share_of_one_over_k_is_the_rate_gensims_corpus_file_mode_trains_at_with_k_workers(workers):
    epochs, epoch_words = 3, 40 * LR_STEP
    total = epochs * epoch_words
    for epoch in range(epochs):
        for step in range(40):  # k workers read the epoch together: each has read 1/k of what all have
            done = epoch * epoch_words + step * LR_STEP
            want = _gensim_corpus_file_alpha(0.025, 0.0001, done % epoch_words / workers, epoch_words, epoch, epochs)
            got = float(linear_lr(0.025, 0.0001, done, total, epochs, 1 / workers))
            assert got == pytest.approx(want, rel=1e-12)  # the same arithmetic in float64
    # one worker is the straight line; with 2 the rate ends each epoch half its fall above it, then jumps back
    end_of_first = epoch_words - LR_STEP
    line = float(linear_lr(0.025, 0.0001, end_of_first, total))
    assert float(linear_lr(0.025, 0.0001, end_of_first, total, epochs, 1.0)) == line
    start_of_second = float(linear_lr(0.025, 0.0001, epoch_words, total, epochs, 1 / workers))
    assert start_of_second == float(linear_lr(0.025, 0.0001, epoch_words, total))


def test_the_rate_holds_for_each_step_of_words_as_gensims_jobs_do():
    # gensim trains each job of 10,000 words at the rate of the job's start (word2vec.c updates
    # its rate every 10,000 words too): the rate of word n is the straight line's at n // 10,000
    total = 8 * LR_STEP  # 80,000 words: gensim's 8 jobs
    done = np.arange(total, dtype=np.float64)
    rates = linear_lr(0.025, 0.0001, done, total)
    jobs = [0.025 - 0.0249 * k / 8 for k in range(8)]
    np.testing.assert_allclose(rates, np.repeat(jobs, LR_STEP), rtol=1e-12)
    assert LR_STEP == 10_000  # gensim's batch_words and word2vec.c's update interval
