"""Subword training (fastText's model, and floret's): one step of each kernel against torch autograd,
each word's input rows against embedlab.hashing one word at a time, exact row and bucket update
counts, the composed table and determinism (subwords.safetensors: tests/vectors/test_run_folder.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from embedlab.errors import InvalidValueError
from embedlab.hashing import ngram_buckets
from embedlab.train.config import RunConfig
from embedlab.train.corpus import WordVocab
from embedlab.train.kernels import METHODS
from embedlab.train.subword_kernels import cbow_subword_sentence, compose, sgns_subword_update
from embedlab.train.subwords import input_rows
from embedlab.train.tables import init_tables
from embedlab.train.word2vec import Word2VecJob

STEP_ATOL = 1e-6  # float32 kernel vs float64 autograd on entries of size ~0.3, rows summed ~4 times
MEAN_ATOL = 1e-6  # float32 sum of ~20 rows of size 1/D vs a float64 mean


def _tables(V: int, D: int = 8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(0, 0.3, (V, D)).astype(np.float32), rng.normal(0, 0.3, (V, D)).astype(np.float32)


def _bce(logits, labels):
    return torch.nn.functional.binary_cross_entropy_with_logits(logits, labels, reduction="sum")


@pytest.mark.parametrize("rows", [[2, 6, 9], [2, 6, 6, 9], [4]])  # word + n-grams; a repeated n-gram; no n-gram
def test_skipgram_steps_are_fasttexts_pair_by_pair_updates(rows):
    w_in, w_out = _tables(10)
    rows = np.array(rows)
    # three contexts (true rows 0, 1, 3), each with its own noise rows; row 0 is noise for the second
    targets = np.array([[0, 5, 7], [1, 8, 0], [3, 0, 0]])
    n_targets = np.array([3, 2, 1])  # a pair whose noise draws all hit the true row keeps only it
    lr = 0.05
    # fastText's order: each pair's step lands on every listed row before the next pair recomposes h.
    # The kernel moves h by the step instead of recomposing it, so a row listed twice is seen to move
    # once per listing (fastText would see it move twice): each listing is a private copy here.
    copies, u = w_in[rows].astype(np.float64), torch.tensor(w_out, dtype=torch.float64)
    want_loss = 0.0
    for t, n in zip(targets, n_targets, strict=True):
        h = torch.tensor(copies.mean(0)).requires_grad_()  # (D,) the centre's composed input
        u.requires_grad_()
        loss = _bce(u[t[:n]] @ h, torch.eye(n, dtype=torch.float64)[0])
        loss.backward()
        want_loss += loss.item()
        copies += -lr * h.grad.numpy()
        u = (u - lr * u.grad).detach()
    want_in = w_in.astype(np.float64)
    np.add.at(want_in, rows, copies - w_in[rows])
    got_loss = sgns_subword_update(w_in, w_out, rows, targets, n_targets, lr)
    assert got_loss == pytest.approx(want_loss, abs=1e-5)
    np.testing.assert_allclose(w_in, want_in, atol=STEP_ATOL)
    np.testing.assert_allclose(w_out, u.numpy(), atol=STEP_ATOL)


def _cbow_sentence(w_in, w_out, offsets, rows, sentence, spans, targets, n_targets, lr, window, cbow_mean, deferred):
    """CBOW over one sentence in float64, each step's gradients from autograd -> (w_in, w_out, loss).

    deferred=False is fastText's order: each centre's step lands on the rows of its window at once.
    deferred=True is what the kernel computes: position j takes a private copy of its word's rows when
    it enters the window (before centre j - window), every step of a window it is in lands on that
    copy at once, and the copy's change reaches the table when j leaves (after centre j + window, the
    last centre that sees it; or at the sentence's end). So the delayed updates are exactly those
    between different positions: a row shared by two positions in reach of each other (the word
    repeated, a shared n-gram) takes the other position's steps only when that position leaves.
    """
    W, U = w_in.astype(np.float64), torch.tensor(w_out, dtype=torch.float64)
    n = len(sentence)
    views, entered, total = {}, {}, 0.0

    def listed(j):  # position j's input rows, repeats kept
        return rows[offsets[sentence[j]] : offsets[sentence[j] + 1]]

    def enter(j):
        views[j], entered[j] = W[listed(j)], W[listed(j)]

    def leave(j):
        np.add.at(W, listed(j), views[j] - entered[j])

    for j in range(min(window, n) if deferred else 0):
        enter(j)
    for i in range(n):
        if deferred and i + window < n:
            enter(i + window)
        context = [j for j in range(max(i - spans[i], 0), min(i + spans[i] + 1, n)) if j != i]
        stacked = torch.tensor(np.vstack([views[j] if deferred else W[listed(j)] for j in context]))
        h = (stacked.mean(0) if cbow_mean else stacked.sum(0)).requires_grad_()
        u = U.clone().requires_grad_()
        t = targets[i, : n_targets[i]]
        loss = _bce(u[t] @ h, torch.eye(len(t), dtype=torch.float64)[0])
        loss.backward()
        total += loss.item()
        step = -lr * h.grad.numpy() * (1.0 if cbow_mean else 1.0 / len(stacked))  # a summed window shares it
        U = (u - lr * u.grad).detach()
        for j in context:
            if deferred:
                views[j] = views[j] + step  # every row of the copy, a repeated row in each of its places
            else:
                np.add.at(W, listed(j), step)
        if deferred and i - window >= 0:
            leave(i - window)
    for j in range(max(n - window, 0), n) if deferred else ():
        leave(j)
    return W, U.numpy(), total


@pytest.mark.parametrize("cbow_mean", [True, False])
def test_cbow_sentence_is_fasttexts_update_with_each_positions_steps_deferred(cbow_mean):
    w_in, w_out = _tables(14)
    offsets = np.array([0, 3, 4, 7, 9])  # 4 words; word 1 has no n-gram
    rows = np.array([0, 5, 6, 1, 2, 6, 11, 3, 3])  # word 2 shares n-gram row 6 with word 0; word 3 lists row 3 twice
    sentence = np.array([0, 2, 0, 1, 3, 0, 2, 1], dtype=np.int32)  # word 0 three times, within reach
    spans = np.array([2, 1, 2, 2, 1, 2, 2, 1])  # window 2, shrunk at some centres
    # each centre's true row (its word) and noise rows: no output row twice in one step
    targets = np.array([[0, 12, 9], [2, 4, 0], [0, 7, 13], [1, 12, 0], [3, 10, 0], [0, 5, 6], [2, 8, 0], [1, 9, 4]])
    n_targets = np.array([3, 3, 3, 2, 1, 3, 2, 3])  # fewer where a noise draw hit the true row
    lr, window = 0.1, 2
    start = w_in.copy(), w_out.copy()
    want_in, want_out, want_loss = _cbow_sentence(w_in, w_out, offsets, rows, sentence, spans, targets, n_targets, lr,
                                                  window, cbow_mean, deferred=True)  # fmt: skip
    got_loss = cbow_subword_sentence(w_in, w_out, offsets, rows, sentence, spans, targets, n_targets, lr, window,
                                     cbow_mean)  # fmt: skip
    assert got_loss == pytest.approx(want_loss, abs=1e-5)
    np.testing.assert_allclose(w_in, want_in, atol=STEP_ATOL)
    np.testing.assert_allclose(w_out, want_out, atol=STEP_ATOL)
    # the oracle sees the deferral: fastText's order moves the shared rows (0, 6) differently
    at_once, _, _ = _cbow_sentence(*start, offsets, rows, sentence, spans, targets, n_targets,
                                   lr, window, cbow_mean, deferred=False)  # fmt: skip
    assert np.abs(at_once - want_in).max() > 100 * STEP_ATOL


def test_a_one_word_sentence_trains_nothing_in_cbow():
    w_in, w_out = _tables(5)
    before = w_in.copy(), w_out.copy()
    offsets, rows = np.array([0, 2]), np.array([0, 3])
    targets = np.array([[0, 1, 2]])
    loss = cbow_subword_sentence(w_in, w_out, offsets, rows, np.array([0], np.int32), np.array([2]), targets,
                                 np.array([3]), 0.1, 2, True)  # fmt: skip
    assert loss == 0.0
    np.testing.assert_array_equal(w_in, before[0])
    np.testing.assert_array_equal(w_out, before[1])


WORDS = ["the", "a", "unhappiness", "café", "naïve", "</s>", "東京", "x"]  # EOS has no n-gram


@pytest.mark.parametrize("min_n, max_n, buckets", [(3, 6, 2_000_000), (1, 2, 97), (4, 4, 5000)])
def test_input_rows_are_the_word_then_its_hashed_ngrams(min_n, max_n, buckets):
    offsets, rows = input_rows(WORDS, min_n, max_n, buckets)
    V = len(WORDS)
    assert offsets.shape == (V + 1,) and rows.dtype == np.int64
    for w, word in enumerate(WORDS):
        expected = [w, *(V + ngram_buckets(word, min_n, max_n, buckets))]
        assert rows[offsets[w] : offsets[w + 1]].tolist() == expected, word


@pytest.mark.parametrize("min_n, max_n, buckets, hash_count", [(3, 6, 50_000, 2), (1, 2, 97, 1), (4, 4, 5000, 4)])
def test_floret_input_rows_are_floret_ids_alone(min_n, max_n, buckets, hash_count):
    # floret's input table is the bucket rows alone: no own row, no offset past the words
    offsets, rows = input_rows(WORDS, min_n, max_n, buckets, hash_count=hash_count)
    assert offsets.shape == (len(WORDS) + 1,) and rows.dtype == np.int64
    for w, word in enumerate(WORDS):
        expected = ngram_buckets(word, min_n, max_n, buckets, hash_count=hash_count).tolist()
        assert rows[offsets[w] : offsets[w + 1]].tolist() == expected, word
        assert len(expected) % hash_count == 0 and (word == "</s>" or len(expected) > 0)


def test_composed_vectors_are_the_mean_of_the_word_row_and_its_ngram_rows():
    offsets, rows = input_rows(WORDS, 3, 6, 1000)
    w_in, _ = init_tables(len(WORDS), 16, seed=2, buckets=1000)
    got = compose(w_in, offsets, rows, np.arange(len(WORDS)))
    for w, word in enumerate(WORDS):
        ngrams = w_in[len(WORDS) + ngram_buckets(word, 3, 6, 1000)]
        want = np.vstack([w_in[w], ngrams]).astype(np.float64).mean(0)
        np.testing.assert_allclose(got[w], want, atol=MEAN_ATOL, err_msg=word)
    np.testing.assert_array_equal(got[WORDS.index("</s>")], w_in[WORDS.index("</s>")])  # its row alone
    np.testing.assert_array_equal(compose(w_in, offsets, rows, np.array([3, 0])), got[[3, 0]])


def test_init_draws_the_word_rows_of_a_plain_run_then_the_buckets():
    w_in, w_out = init_tables(50, 10, seed=4, buckets=300)
    plain, _ = init_tables(50, 10, seed=4)
    assert w_in.shape == (350, 10) and w_out.shape == (50, 10) and not w_out.any()
    np.testing.assert_array_equal(w_in[:50], plain)
    assert w_in.min() >= -1 / 10 and w_in.max() < 1 / 10 and w_in[50:].std() > 0.05  # uniform(-1/D, 1/D)


def test_init_of_a_floret_run_draws_the_bucket_rows_alone():
    w_in, w_out = init_tables(50, 10, seed=4, buckets=300, word_rows=False)
    assert w_in.shape == (300, 10) and w_out.shape == (50, 10) and not w_out.any()
    assert w_in.min() >= -1 / 10 and w_in.max() < 1 / 10 and w_in.std() > 0.05


def _train(lines, vocab, **settings) -> Word2VecJob:
    config = RunConfig(corpus="lines", subwords=True, **settings)
    job = Word2VecJob(lines, vocab, config)
    try:
        for epoch in range(config.epochs):
            for _ in job.steps(epoch, skip=0):
                pass
    finally:
        job.close()
    return job


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("hash_count", [None, 2], ids=["fasttext", "floret"])
def test_update_counts_of_word_rows_and_buckets_are_exact(method, hash_count):
    # window=1 and sample=0 fix every update (tests/train/test_word2vec.py): skip-gram updates a
    # centre's rows once per occurrence with a neighbour, CBOW a context's rows once per neighbour
    lines = ["a b c d", "b a", "e", "c d e ab ba", "e"] * 20
    vocab = WordVocab.build(lines, min_count=1)
    floret = {} if hash_count is None else {"floret": True, "hash_count": hash_count}
    job = _train(lines, vocab, method=method, dim=8, window=1, sample=0.0, epochs=3, threads=2, min_n=1, max_n=3,
                 buckets=5000, **floret)  # fmt: skip
    per_repeat = {"sgns": {"a": 2, "b": 2, "c": 2, "d": 2, "e": 1, "ab": 1, "ba": 1},
                  "cbow": {"a": 2, "b": 3, "c": 3, "d": 3, "e": 2, "ab": 2, "ba": 1}}[method]  # fmt: skip
    word_counts = np.zeros(len(vocab), np.int64)
    bucket_counts = np.zeros(5000, np.int64)
    for word, n in per_repeat.items():
        word_counts[vocab.key_to_index[word]] = n * 20 * 3
        np.add.at(bucket_counts, ngram_buckets(word, 1, 3, 5000, hash_count=hash_count), n * 20 * 3)
    counts, _ = job.gather()
    np.testing.assert_array_equal(counts, word_counts)
    np.testing.assert_array_equal(job.bucket_counts, bucket_counts)
    assert job.state.update_counts.shape == (2, len(vocab))
    assert job.state.w_in.shape == ((0 if hash_count else len(vocab)) + 5000, 8)  # floret: no word rows


@pytest.fixture(scope="module")
def small(small_text):
    lines = [line.rstrip("\n") for line in open(small_text, encoding="utf-8")][:1000]
    return lines, WordVocab.build(lines, min_count=5)


@pytest.mark.parametrize("method", METHODS)
def test_one_thread_is_deterministic_seeded_and_trains_the_buckets(method, small):
    lines, vocab = small
    settings = {"method": method, "dim": 16, "epochs": 2, "threads": 1, "buckets": 5000}
    a, b = (_train(lines, vocab, seed=5, **settings) for _ in range(2))
    c = _train(lines, vocab, seed=6, **settings)
    np.testing.assert_array_equal(a.state.w_in, b.state.w_in)
    np.testing.assert_array_equal(a.state.w_out, b.state.w_out)
    assert not np.array_equal(a.state.w_in, c.state.w_in)
    V = len(vocab)
    init, _ = init_tables(V, 16, seed=5, buckets=5000)
    moved = (a.state.w_in[V:] != init[V:]).any(axis=1)
    a.gather()
    np.testing.assert_array_equal(moved, a.bucket_counts > 0)  # a bucket moves iff it was counted
    assert moved.mean() > 0.5
    composed = a.table()
    assert composed.shape == (V, 16)
    np.testing.assert_array_equal(composed, compose(a.state.w_in, *a.subwords, np.arange(V)))
    np.testing.assert_array_equal(a.rows(np.array([7, 2])), composed[[7, 2]])


@pytest.mark.parametrize("method", METHODS)
def test_a_floret_run_trains_its_buckets_and_composes_each_word_from_them(method, small):
    lines, vocab = small
    settings = {"method": method, "dim": 16, "epochs": 1, "threads": 1, "buckets": 5000, "floret": True}
    a, b = (_train(lines, vocab, seed=5, **settings) for _ in range(2))
    np.testing.assert_array_equal(a.state.w_in, b.state.w_in)  # one thread: a pure function of the seed
    init, _ = init_tables(len(vocab), 16, seed=5, buckets=5000, word_rows=False)
    assert a.state.w_in.shape == init.shape == (5000, 16)
    a.gather()
    moved = (a.state.w_in != init).any(axis=1)
    np.testing.assert_array_equal(moved, a.bucket_counts > 0)  # a bucket moves iff it was counted
    composed = a.table()
    for word in ["the", "january", vocab.index_to_key[-1]]:  # the oracle: floret's ids, word by word
        ids = ngram_buckets(word, 3, 6, 5000, hash_count=2)
        want = a.state.w_in[ids].astype(np.float64).mean(0)
        np.testing.assert_allclose(composed[vocab.key_to_index[word]], want, atol=MEAN_ATOL, err_msg=word)


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"min_n": 2}, "min_n 2 needs subwords: only a subword run trains n-grams"),
        ({"max_n": 4}, "max_n 4 needs subwords"),
        ({"buckets": 100}, "buckets 100 needs subwords"),
        ({"subwords": True, "min_n": 5, "max_n": 4}, "min_n must be between 1 and 4; got 5"),
        ({"subwords": True, "max_n": 0}, "max_n must be >= 1; got 0"),
        ({"subwords": True, "buckets": 0}, "buckets must be between 1 and 2147483647; got 0"),
        ({"subwords": True, "buckets": 2**31}, "buckets must be between 1 and 2147483647; got 2147483648"),
        ({"subwords": True, "method": "lm"}, "subwords train with sgns or cbow; got method lm"),
        ({"subwords": True, "device": "cuda"}, "subwords train on the cpu kernels only; got device cuda"),
        ({"subwords": "yes"}, "subwords must be True or False; got 'yes'"),
        ({"floret": True}, "floret True needs subwords: only a subword run trains n-grams"),
        ({"hash_count": 2}, "hash_count 2 needs floret: only floret's mode hashes each word and n-gram into 1..4 rows"),
        ({"subwords": True, "hash_count": 3}, "hash_count 3 needs floret"),
        ({"subwords": True, "floret": True, "hash_count": 0}, "hash_count must be between 1 and 4; got 0"),
        ({"subwords": True, "floret": True, "hash_count": 5}, "hash_count must be between 1 and 4; got 5"),
        ({"subwords": True, "floret": "yes"}, "floret must be True or False; got 'yes'"),
        ({"subwords": True, "buckets": 2**31 - 1, "dim": 10_000},
         r"sgns with dim 10,000 and 2,147,483,647 n-gram buckets .*: needs at least [\d.]+ TiB of memory"),
    ],
)  # fmt: skip
def test_subword_settings_name_the_bad_value(settings, message):
    with pytest.raises(InvalidValueError, match=message):
        RunConfig(corpus="lines", **settings)


def test_run_json_keeps_the_ngram_settings_of_a_subword_run_only():
    assert {"min_n", "max_n", "buckets", "floret", "hash_count"}.isdisjoint(RunConfig(corpus="x").to_dict())
    record = RunConfig(corpus="x", subwords=True, buckets=5000).to_dict()
    assert (record["subwords"], record["min_n"], record["max_n"], record["buckets"]) == (True, 3, 6, 5000)
    assert record["floret"] is False and "hash_count" not in record  # a setting of floret's mode only
    assert RunConfig.from_dict(record) == RunConfig(corpus="x", subwords=True, buckets=5000)
    assert RunConfig.from_dict(RunConfig(corpus="x").to_dict()).subwords is False
    floret = RunConfig(corpus="x", subwords=True, floret=True, buckets=5000)
    assert (floret.to_dict()["floret"], floret.to_dict()["hash_count"]) == (True, 2)  # floret's usual 2
    assert RunConfig.from_dict(floret.to_dict()) == floret
    old = {k: v for k, v in record.items() if k != "floret"}  # a run.json from before floret's mode
    assert RunConfig.from_dict(old) == RunConfig(corpus="x", subwords=True, buckets=5000)


def test_a_floret_run_plans_memory_for_the_bucket_rows_alone():
    fasttext = RunConfig(corpus="x", subwords=True, buckets=5000)
    floret = RunConfig(corpus="x", subwords=True, floret=True, buckets=5000)
    assert (fasttext.input_table_rows(1000), floret.input_table_rows(1000)) == (6000, 5000)
    assert RunConfig(corpus="x").input_table_rows(1000) == 1000
