"""The torch engine: windows and pairs by hand, one step against torch autograd, exact update
counts and rates, determinism and resume, neighbours on real text, and a CUDA run."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError
from embedlab.train.batched import (
    BatchedTrainer,
    cbow_step,
    context_windows,
    draw_noise,
    noise_targets,
    ns_loss,
    sgns_step,
)
from embedlab.train.config import RunConfig
from embedlab.train.corpus import WordVocab, encode
from embedlab.train.kernels import LR_STEP, METHODS
from embedlab.train.tables import TrainState, vocab_tables
from embedlab.vectors import Vectors

STEP_ATOL = 1e-6  # float32 steps vs float64 autograd on entries of size ~0.3, sums of up to 3 steps
KEEP_TOLERANCE = 0.01  # relative error of the subsampled share of ~100,000 words
NOISE_TOLERANCE = 0.01  # absolute error of empirical noise frequencies from 200,000 draws (sd ≈ 0.001)


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread():
    # subtle: on a small machine busy with other work, torch's OpenMP threads wait on each other and
    # these small steps run several times slower; one thread never waits
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def wiki_lines(wiki_text):
    return wiki_text.read_bytes().decode("utf-8").split("\n")[:-1]  # enwiki-sample's lines, ~470,000 words


@pytest.fixture(scope="module")
def wiki_vocab(wiki_lines):
    return WordVocab.build(wiki_lines, min_count=5)


@pytest.fixture(scope="module")
def small_lines(wiki_lines):
    return wiki_lines[:400]  # ~20,000 words


def _train(lines, vocab, config, chunk_words=2000, device="cpu", **kwargs) -> tuple[BatchedTrainer, list[float]]:
    state = TrainState.new(vocab, config)
    trainer = BatchedTrainer(state, vocab_tables(vocab, config.sample), config, device, **kwargs)
    chunks = list(encode(lines, vocab, chunk_words))
    rates = [trainer.train_chunk(chunk) for _ in range(config.epochs) for chunk in chunks]
    trainer.sync_state()
    return trainer, rates


def _pairs(sentence, span, window) -> set[tuple[int, int]]:
    index, mask = context_windows(torch.tensor(sentence), torch.tensor(span), window)
    centre, slot = mask.nonzero(as_tuple=True)
    return set(zip(index[centre, slot].tolist(), centre.tolist(), strict=True))  # (context, centre)


def test_window_one_pairs_are_the_neighbours_inside_each_sentence():
    sentence = [0, 0, 0, 1, 1, 2, 3, 3, 3, 3]  # sentences of 3, 2, 1 and 4 words
    pairs = _pairs(sentence, [1] * 10, window=1)
    adjacent = {(i, i + 1) for i in range(9) if sentence[i] == sentence[i + 1]}
    assert pairs == adjacent | {(j, i) for i, j in adjacent}
    assert len(pairs) == 2 * (2 + 1 + 0 + 3)
    # a wider window changes nothing where every span is 1: the span, not the window, decides
    assert _pairs(sentence, [1] * 10, window=4) == pairs


def test_each_centre_looks_as_far_as_its_own_span():
    # one sentence of 6 words; centre 2 draws span 2, centre 3 span 3, the others span 1
    pairs = _pairs([0] * 6, [1, 1, 2, 3, 1, 1], window=3)
    by_centre = {c: sorted(j for j, i in pairs if i == c) for c in range(6)}
    assert by_centre == {0: [1], 1: [0, 2], 2: [0, 1, 3, 4], 3: [0, 1, 2, 4, 5], 4: [3, 5], 5: [4]}


def test_noise_targets_drop_draws_of_the_true_word():
    targets, valid = noise_targets(torch.tensor([3, 1]), torch.tensor([[3, 0], [2, 1]]))
    assert targets.tolist() == [[3, 3, 0], [1, 2, 1]]
    assert valid.tolist() == [[True, False, True], [True, True, False]]


def test_noise_frequencies_follow_counts_to_the_three_quarters(wiki_vocab):
    cum_table = vocab_tables(wiki_vocab, 1e-3).cum_table
    generator = torch.Generator().manual_seed(7)
    rows = draw_noise(torch.tensor(cum_table.astype(np.int64)), int(cum_table[-1]), (200_000,), generator)
    expected = wiki_vocab.counts[:20] ** 0.75 / (wiki_vocab.counts**0.75).sum()
    observed = np.bincount(rows.numpy(), minlength=len(wiki_vocab))[:20] / len(rows)
    np.testing.assert_allclose(observed, expected, atol=NOISE_TOLERANCE)


def _tables(V=7, D=8, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 0.3, (V, D)), rng.normal(0, 0.3, (V, D))  # float64, small: no score saturates


def _autograd_loss(h, u, targets, valid, lr):
    """Σ_b lr_b L_b with L_b = -log σ(u_t·h_b) - Σ_noise log σ(-u_n·h_b) over valid targets, in float64."""
    f = (u[targets] * h[:, None, :]).sum(2)  # (B, K+1)
    sign = torch.ones(targets.shape[1], dtype=f.dtype)
    sign[0] = -1.0
    terms = -F.logsigmoid(-sign * f) * valid
    return (terms.sum(1) * lr).sum(), terms


# pairs share context rows (4 twice, 2 twice) and targets, and one noise draw hits the true row:
# a minibatch step must equal one SGD step on the summed loss, which autograd takes at one point
CONTEXT = torch.tensor([4, 2, 4, 2])
TRUE = torch.tensor([1, 3, 5, 1])
NOISE = torch.tensor([[0, 2, 5], [6, 3, 1], [0, 0, 2], [5, 6, 4]])
LR = torch.tensor([0.05, 0.04, 0.05, 0.03])


def test_sgns_step_equals_one_autograd_sgd_step():
    w_in, w_out = _tables()
    targets, valid = noise_targets(TRUE, NOISE)
    v = torch.tensor(w_in, requires_grad=True)
    u = torch.tensor(w_out, requires_grad=True)
    loss, terms = _autograd_loss(v[CONTEXT], u, targets, valid, LR.double())
    loss.backward()

    got_in, got_out = torch.tensor(w_in, dtype=torch.float32), torch.tensor(w_out, dtype=torch.float32)
    scores = sgns_step(got_in, got_out, CONTEXT, targets, valid, LR)
    np.testing.assert_allclose(got_in, (v - v.grad).detach(), atol=STEP_ATOL)
    np.testing.assert_allclose(got_out, (u - u.grad).detach(), atol=STEP_ATOL)
    np.testing.assert_allclose(ns_loss(scores, valid), terms.detach(), atol=STEP_ATOL)
    assert not valid[1, 2]  # the draw of the true row was left out of both


def test_max_steps_scales_a_crowded_rows_summed_step():
    # max_steps=1.5: a row named k > 1.5 times in the minibatch takes 1.5/k of its summed step
    w_in, w_out = _tables()
    targets, valid = noise_targets(TRUE, NOISE)
    v = torch.tensor(w_in, requires_grad=True)
    u = torch.tensor(w_out, requires_grad=True)
    _autograd_loss(v[CONTEXT], u, targets, valid, LR.double())[0].backward()
    share_in = np.minimum(1.0, 1.5 / np.maximum(np.bincount(CONTEXT, minlength=7), 1))  # rows 2 and 4: 0.75
    share_out = np.minimum(1.0, 1.5 / np.maximum(np.bincount(targets[valid], minlength=7), 1))

    got_in, got_out = torch.tensor(w_in, dtype=torch.float32), torch.tensor(w_out, dtype=torch.float32)
    sgns_step(got_in, got_out, CONTEXT, targets, valid, LR, max_steps=1.5)
    np.testing.assert_allclose(got_in, w_in - v.grad.numpy() * share_in[:, None], atol=STEP_ATOL)
    np.testing.assert_allclose(got_out, w_out - u.grad.numpy() * share_out[:, None], atol=STEP_ATOL)
    assert share_in[4] == 0.75 and share_out.min() < 1.0  # the cap did act on both tables


@pytest.mark.parametrize("cbow_mean", [True, False])
def test_cbow_step_gives_each_context_row_the_hidden_step(cbow_mean):
    # autograd of the loss in the hidden vector h; as word2vec, every context row then takes the
    # whole -∂L/∂h (a mean's true gradient would be 1/n of it), and a summed window 1/n of it
    w_in, w_out = _tables()
    windows = torch.tensor([[0, 2, 2, 6], [4, 5, 1, 0], [3, 4, 0, 0]])
    window_mask = torch.tensor([[True, True, True, False], [True, True, False, True], [False, True, False, False]])
    n = window_mask.sum(1, keepdim=True).double()
    rows = (torch.tensor(w_in)[windows] * window_mask[:, :, None]).sum(1)  # (B, D)
    h = (rows / n if cbow_mean else rows).requires_grad_(True)
    u = torch.tensor(w_out, requires_grad=True)
    targets, valid = noise_targets(TRUE[:3], NOISE[:3])
    loss, _ = _autograd_loss(h, u, targets, valid, LR[:3].double())
    loss.backward()
    step = -h.grad if cbow_mean else -h.grad / n  # (B, D)
    expected_in = torch.tensor(w_in).index_add(0, windows[window_mask], step.repeat_interleave(n.long().view(-1), 0))

    got_in, got_out = torch.tensor(w_in, dtype=torch.float32), torch.tensor(w_out, dtype=torch.float32)
    cbow_step(got_in, got_out, windows, window_mask, targets, valid, LR[:3], cbow_mean)
    np.testing.assert_allclose(got_in, expected_in, atol=STEP_ATOL)
    np.testing.assert_allclose(got_out, (u - u.grad).detach(), atol=STEP_ATOL)


def test_a_saturated_right_answer_takes_no_step():
    w_in = torch.full((3, 4), 2.0)  # u·h = 16 > MAX_EXP for the true row
    w_out = torch.full((3, 4), 2.0)
    w_out[2] = -2.0  # and -16 for the noise row: both answers already right
    before = (w_in.clone(), w_out.clone())
    targets, valid = noise_targets(torch.tensor([0]), torch.tensor([[2]]))
    sgns_step(w_in, w_out, torch.tensor([1]), targets, valid, torch.tensor([0.025]))
    assert torch.equal(w_in, before[0]) and torch.equal(w_out, before[1])


@pytest.mark.parametrize("method", METHODS)
def test_update_counts_and_rates_are_exact(method):
    # window=1 and sample=0 fix every update: each occurrence of a word updates its row once per
    # neighbour in its line. test_sgns.py holds the numba engine to the same numbers; it is not run
    # here because after numba's OpenMP kernels a busy machine runs torch's small steps 5-8x slower.
    lines = ["a b c d", "b a", "e", "c d e a b", "e"] * 20
    vocab = WordVocab.build(lines, min_count=1)
    config = RunConfig(corpus="lines", method=method, dim=8, window=1, sample=0.0, epochs=3, threads=1)
    trainer, rates = _train(lines, vocab, config, chunk_words=30, batch_pairs=16)
    state = trainer.state
    expected = {"a": 4, "b": 4, "c": 3, "d": 3, "e": 2}  # neighbours of each word over one repeat
    for word, n in expected.items():
        assert state.update_counts[0, vocab.key_to_index[word]] == n * 20 * 3, word
    assert state.update_counts.sum() == sum(expected.values()) * 20 * 3
    assert state.words_done == state.kept_words == 13 * 20 * 3
    # the rate at each chunk's start: 780 words lie inside the schedule's first LR_STEP words, which
    # train at lr (as gensim's first job of 10,000 words does); the steps are test_kernels.py's
    assert state.words_total < LR_STEP and rates == [config.lr] * 3 * len(list(encode(lines, vocab, 30)))
    assert state.loss_terms > 0 and 0 < state.loss_sum / state.loss_terms < np.log(2) + 0.1


def test_subsampling_keeps_the_expected_share(small_lines, wiki_vocab):
    config = RunConfig(corpus="lines", dim=8, window=2, epochs=4)
    trainer, _ = _train(small_lines, wiki_vocab, config, chunk_words=5000)
    ids = np.concatenate([c.ids for c in encode(small_lines, wiki_vocab)])
    expected = wiki_vocab.keep_probabilities(1e-3)[ids].sum() * 4
    assert trainer.state.words_done == len(ids) * 4
    assert trainer.state.kept_words == pytest.approx(expected, rel=KEEP_TOLERANCE)


@pytest.mark.parametrize("method", METHODS)
def test_seeded_runs_repeat_and_a_synced_state_resumes_bit_for_bit(method, small_lines, wiki_vocab):
    config = RunConfig(corpus="lines", method=method, dim=16, epochs=1, seed=5)
    tables = vocab_tables(wiki_vocab, config.sample)
    chunks = list(encode(small_lines, wiki_vocab, 2000))
    whole, _ = _train(small_lines, wiki_vocab, config, batch_pairs=512)
    again, _ = _train(small_lines, wiki_vocab, config, batch_pairs=512)
    other, _ = _train(small_lines, wiki_vocab, dataclasses.replace(config, seed=6), batch_pairs=512)

    first = BatchedTrainer(TrainState.new(wiki_vocab, config), tables, config, batch_pairs=512)
    for chunk in chunks[:4]:
        first.train_chunk(chunk)
    arrays = ("w_in", "w_out", "update_counts")
    state = first.sync_state()
    saved = dataclasses.replace(state, **{name: getattr(state, name).copy() for name in arrays})
    resumed = BatchedTrainer(saved, tables, config, batch_pairs=512)
    for chunk in chunks[4:]:
        resumed.train_chunk(chunk)
    resumed.sync_state()

    for name in arrays:
        np.testing.assert_array_equal(getattr(again.state, name), getattr(whole.state, name))
        np.testing.assert_array_equal(getattr(resumed.state, name), getattr(whole.state, name))
    for name in ("words_done", "kept_words", "loss_sum", "loss_terms"):
        assert getattr(resumed.state, name) == getattr(whole.state, name), name
    assert not np.array_equal(other.state.w_in, whole.state.w_in)


def test_states_with_other_rng_streams_draw_apart(small_lines, wiki_vocab):
    # distributed ranks reseed state.rng_state each their own way: their chunks must not share draws
    config = RunConfig(corpus="lines", dim=8)
    tables, chunk = vocab_tables(wiki_vocab, config.sample), next(encode(small_lines, wiki_vocab, 2000))
    trained = []
    for shift in (0, 0, 1):
        state = TrainState.new(wiki_vocab, config)
        state.rng_state += np.uint64(shift)
        trainer = BatchedTrainer(state, tables, config)
        trainer.train_chunk(chunk)
        trained.append(trainer.sync_state().w_in)
    np.testing.assert_array_equal(trained[0], trained[1])
    assert not np.array_equal(trained[0], trained[2])


def test_bad_arguments_are_refused(wiki_vocab):
    config = RunConfig(corpus="lines", dim=8)
    state, tables = TrainState.new(wiki_vocab, config), vocab_tables(wiki_vocab, config.sample)
    with pytest.raises(InvalidValueError, match="config.dim is 16"):
        BatchedTrainer(state, tables, dataclasses.replace(config, dim=16))
    with pytest.raises(InvalidValueError, match="batch_pairs must be >= 1; got 0"):
        BatchedTrainer(state, tables, config, batch_pairs=0)
    with pytest.raises(InvalidValueError, match="max_steps must be >= 1.0; got 0.5"):
        BatchedTrainer(state, tables, config, max_steps=0.5)


# test_sgns.py's expectations for the numba engine, on the same corpus at dim 50. Measured here over
# seeds 1-3: "february" ranks 1st-4th of january's neighbours, "three" 1st-2nd of two's, "she" 1st of
# he's; sgns margins 0.73+ and 0.45+, cbow 0.66+ and 0.45+. Skip-gram needs 3 epochs (2 leave its
# margins at 0.3-0.4), CBOW 5 (after 3 the tables of both engines still share one direction).
@pytest.mark.slow
@pytest.mark.parametrize("method, epochs", [("sgns", 3), ("cbow", 5)])
def test_real_text_gives_sensible_neighbours(method, epochs, wiki_lines, wiki_vocab, check_neighbours):
    config = RunConfig(corpus="lines", method=method, dim=50, epochs=epochs, seed=1)
    trainer, _ = _train(wiki_lines, wiki_vocab, config, chunk_words=100_000)
    vectors = Vectors(wiki_vocab.index_to_key, trainer.state.w_in)
    check_neighbours(vectors, method)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("method", METHODS)
def test_trains_on_cuda(method, small_lines, wiki_vocab):
    config = RunConfig(corpus="lines", method=method, dim=32, epochs=2)
    trainer, rates = _train(small_lines, wiki_vocab, config, device="cuda")
    state = trainer.state
    assert trainer.w_in.is_cuda and np.isfinite(state.w_in).all() and np.isfinite(state.w_out).all()
    assert state.words_done == 2 * sum(len(c.ids) for c in encode(small_lines, wiki_vocab))
    assert 0 < state.kept_words < state.words_done and state.update_counts[0].sum() > state.kept_words
    assert rates == sorted(rates, reverse=True) and 0 < state.loss_sum / state.loss_terms < 1
    assert state.w_out.any()  # trained: the output table starts at zero
