"""word2vec kernels: one step against torch autograd, the noise draws against a plain-Python
oracle, exact update counts, bit-for-bit determinism and resume, and neighbours on real text."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError
from embedlab.train.corpus import WordVocab, encode
from embedlab.train.sgns import (
    METHODS,
    TrainState,
    Word2VecConfig,
    draw_noise,
    guide_table,
    init_tables,
    sgns_pair_update,
    train_chunk,
    train_epochs,
    vocab_tables,
)
from embedlab.vectors import Vectors

STEP_ATOL = 1e-7  # float32 kernel vs float64 autograd on entries of size ~0.1
NOISE_TOLERANCE = 0.01  # absolute error of empirical noise frequencies from 200,000 draws (sd ≈ 0.001)
KEEP_TOLERANCE = 0.01  # relative error of the subsampled share of ~100,000 words


@pytest.fixture(scope="module")
def wiki_lines():
    return list(open_corpus("enwiki-sample"))  # ~470,000 words, read once


@pytest.fixture(scope="module")
def wiki_vocab(wiki_lines):
    return WordVocab.build(wiki_lines, min_count=5)


@pytest.fixture(scope="module")
def small_lines(wiki_lines):
    return wiki_lines[:400]  # ~20,000 words: enough for the kernels to take every branch


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("method", "glove", "method must be one of sgns, cbow; got 'glove'"),
        ("dim", 0, "dim must be >= 1; got 0"),
        ("window", 2.5, "window must be an integer; got 2.5"),
        ("negative", 0, "negative must be >= 1; got 0"),
        ("sample", 1.5, "sample must be between 0.0 and 1.0; got 1.5"),
        ("alpha", -0.1, "alpha must be >= 0.0; got -0.1"),
        ("min_alpha", 0.5, "min_alpha must be between 0.0 and 0.025; got 0.5"),
        ("epochs", 0, "epochs must be >= 1; got 0"),
        ("threads", 0, "threads must be between 1 and 1024; got 0"),
        ("seed", -1, "seed must be >= 0; got -1"),
    ],
)
def test_config_names_the_bad_value(field, value, message):
    with pytest.raises(InvalidValueError) as info:
        Word2VecConfig(**{field: value})
    assert str(info.value) == message


def test_init_tables_are_gensims():
    w_in, w_out = init_tables(1000, 50, seed=3)
    assert w_in.dtype == w_out.dtype == np.float32 and w_in.shape == w_out.shape == (1000, 50)
    assert w_in.min() >= -1 / 50 and w_in.max() < 1 / 50 and w_in.std() > 1 / 50 / 2
    assert not w_out.any()
    np.testing.assert_array_equal(w_in, init_tables(1000, 50, seed=3)[0])


def test_pair_update_equals_autograd():
    rng = np.random.default_rng(0)
    w_in = rng.normal(0, 0.3, (6, 8)).astype(np.float32)
    w_out = rng.normal(0, 0.3, (6, 8)).astype(np.float32)
    true_row, context_row, noise_rows, lr = 1, 4, np.array([0, 2, 5]), 0.05

    v = torch.tensor(w_in, dtype=torch.float64, requires_grad=True)
    u = torch.tensor(w_out, dtype=torch.float64, requires_grad=True)
    h = v[context_row]
    loss = -torch.nn.functional.logsigmoid(u[true_row] @ h) - torch.nn.functional.logsigmoid(-u[noise_rows] @ h).sum()
    loss.backward()

    got_loss = sgns_pair_update(w_in, w_out, true_row, context_row, noise_rows, lr)
    assert got_loss == pytest.approx(loss.item(), abs=1e-6)
    np.testing.assert_allclose(w_in, (v - lr * v.grad).detach().numpy(), atol=STEP_ATOL)
    np.testing.assert_allclose(w_out, (u - lr * u.grad).detach().numpy(), atol=STEP_ATOL)


def test_a_saturated_right_answer_takes_no_step():
    w_in = np.full((3, 4), 2.0, np.float32)  # u·h = 16 > MAX_EXP for the true row
    w_out = np.full((3, 4), 2.0, np.float32)
    w_out[2] = -2.0  # and -16 for the noise row: both answers already right
    before = (w_in.copy(), w_out.copy())
    sgns_pair_update(w_in, w_out, 0, 1, np.array([2]), 0.025)
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


@pytest.mark.parametrize("method", METHODS)
def test_update_counts_are_exact(method):
    # window=1 always spans one word each side and sample=0 keeps every word, so every input-row
    # update is known: each occurrence of a word updates its row once per neighbour in its line
    lines = ["a b c d", "b a", "e", "c d e a b", "e"] * 20
    vocab = WordVocab.build(lines, min_count=1)
    config = Word2VecConfig(method=method, dim=8, window=1, sample=0.0, epochs=3, threads=1)
    _, _, stats = train_epochs(lines, vocab, config)
    expected = {"a": 4, "b": 4, "c": 3, "d": 3, "e": 2}  # neighbours of each word over one repeat
    for word, n in expected.items():
        assert stats.update_counts[vocab.key_to_index[word]] == n * 20 * 3, word
    assert stats.update_counts.sum() == sum(expected.values()) * 20 * 3


def test_a_word_never_in_context_is_never_updated():
    lines = ["a b c a b", "lonely", "b c"] * 30  # "lonely" only ever stands alone
    vocab = WordVocab.build(lines, min_count=1)
    for method in METHODS:
        w_in, _, stats = train_epochs(lines, vocab, Word2VecConfig(method=method, dim=8, sample=0.0, threads=2))
        row = vocab.key_to_index["lonely"]
        assert stats.update_counts[row] == 0
        np.testing.assert_array_equal(w_in[row], init_tables(len(vocab), 8, seed=1)[0][row])


@pytest.mark.parametrize("method", METHODS)
def test_one_thread_is_deterministic_and_seeded(method, small_lines, wiki_vocab):
    config = Word2VecConfig(method=method, dim=16, epochs=2, threads=1, seed=5)
    a = train_epochs(small_lines, wiki_vocab, config)
    b = train_epochs(small_lines, wiki_vocab, config)
    c = train_epochs(small_lines, wiki_vocab, dataclasses.replace(config, seed=6))
    for x, y in zip(a[:2], b[:2], strict=True):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a[2].update_counts, b[2].update_counts)
    assert not np.array_equal(a[0], c[0]) and not np.array_equal(a[2].update_counts, c[2].update_counts)


@pytest.mark.parametrize("method", METHODS)
def test_results_do_not_depend_on_chunk_size(method, small_lines, wiki_vocab):
    small = train_epochs(small_lines, wiki_vocab, Word2VecConfig(method=method, dim=16, threads=1, batch_words=300))
    large = train_epochs(small_lines, wiki_vocab, Word2VecConfig(method=method, dim=16, threads=1, batch_words=10**6))
    np.testing.assert_array_equal(small[0], large[0])
    np.testing.assert_array_equal(small[1], large[1])


def test_a_saved_state_resumes_bit_for_bit(small_lines, wiki_vocab):
    config = Word2VecConfig(dim=16, epochs=1, threads=1, batch_words=2000)
    tables = vocab_tables(wiki_vocab, config.sample)
    chunks = list(encode(small_lines, wiki_vocab, config.batch_words))
    state = TrainState.new(wiki_vocab, config)
    for chunk in chunks[:3]:
        train_chunk(state, chunk, tables, config)
    arrays = ("w_in", "w_out", "rng_state", "update_counts")
    saved = dataclasses.replace(state, **{name: getattr(state, name).copy() for name in arrays})
    for chunk in chunks[3:]:
        train_chunk(state, chunk, tables, config)
    for chunk in chunks[3:]:  # the same again, from the saved copy
        train_chunk(saved, chunk, tables, config)
    for name in arrays:
        np.testing.assert_array_equal(getattr(saved, name), getattr(state, name))
    assert saved.words_done == state.words_done == sum(len(c.ids) for c in chunks)
    # train_epochs is this loop of train_chunk
    w_in, w_out, stats = train_epochs(small_lines, wiki_vocab, config)
    np.testing.assert_array_equal(w_in, state.w_in)
    np.testing.assert_array_equal(w_out, state.w_out)
    assert stats.kept_words == state.kept_words


def test_subsampling_keeps_the_expected_share(small_lines, wiki_vocab):
    _, _, stats = train_epochs(small_lines, wiki_vocab, Word2VecConfig(dim=8, epochs=5, threads=2))
    ids = np.concatenate([c.ids for c in encode(small_lines, wiki_vocab)])
    expected = wiki_vocab.keep_probabilities(1e-3)[ids].sum() * 5
    assert stats.words == len(ids) * 5
    assert stats.kept_words == pytest.approx(expected, rel=KEEP_TOLERANCE)


def test_progress_reports_fall_in_rate_and_loss(small_lines, wiki_vocab):
    reports = []
    config = Word2VecConfig(dim=16, epochs=4, threads=1, batch_words=2000)
    _, _, final = train_epochs(small_lines, wiki_vocab, config, on_progress=reports.append)
    assert len(reports) > 4 * 3
    assert [r.words for r in reports] == sorted({r.words for r in reports})
    assert [r.alpha for r in reports] == sorted((r.alpha for r in reports), reverse=True)
    assert reports[0].alpha == config.alpha and final.words == reports[-1].words
    first_epoch = [r.loss for r in reports if r.epoch == 0][-1]
    assert 0 < final.loss < first_epoch
    assert final.words_per_second > 0


def test_an_empty_vocabulary_is_refused():
    with pytest.raises(InvalidValueError, match="vocabulary is empty"):
        train_epochs(["a b"], WordVocab([], np.zeros(0, np.int64)), Word2VecConfig())


# Measured over seeds 1-3 on enwiki-sample (dim 50, 5 epochs, 2 threads): "february" ranks 1-8th
# of january's neighbours, "three" 1st-2nd of two's, "she" 1st-2nd of he's; sgns also puts spain
# or germany first for france, and sgns cosines of related words sit 0.5+ above unrelated ones.
@pytest.mark.parametrize("method", METHODS)
def test_real_text_gives_sensible_neighbours(method, wiki_lines, wiki_vocab, check_neighbours):
    w_in, _, _ = train_epochs(wiki_lines, wiki_vocab, Word2VecConfig(method=method, dim=50, threads=2, seed=1))
    vectors = Vectors(wiki_vocab.index_to_key, w_in)
    check_neighbours(vectors, method)
    if method == "sgns":
        assert {"spain", "germany"} & {k for k, _ in vectors.most_similar("france", topn=3)}


def test_hogwild_threads_share_the_work(small_lines, wiki_vocab):
    # more threads than cores is allowed: the parts then queue for the cores
    config = Word2VecConfig(dim=16, window=1, sample=0.0, epochs=2, threads=3)
    w_in, _, stats = train_epochs(small_lines, wiki_vocab, config)
    one = train_epochs(small_lines, wiki_vocab, dataclasses.replace(config, threads=1))[2]
    # window=1 and sample=0 fix every update, and each thread counts its own, so none is lost
    np.testing.assert_array_equal(stats.update_counts, one.update_counts)
    assert np.isfinite(w_in).all() and stats.kept_words == one.kept_words == stats.words


def test_a_failing_corpus_stops_training():
    class Failing:
        def __iter__(self):
            yield "a b c a b c"
            raise OSError("disk gone")

    vocab = WordVocab(["a", "b", "c"], np.array([2, 2, 2]))
    with pytest.raises(OSError, match="disk gone"):
        train_epochs(Failing(), vocab, Word2VecConfig(dim=4, batch_words=1))
