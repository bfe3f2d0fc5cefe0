"""word2vec as a job: exact update counts, bit-for-bit determinism and resume, the subsampled share,
falling loss, Hogwild threads, and neighbours on real text. The kernels' single steps are checked
against autograd in test_kernels.py."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError
from embedlab.train.config import RunConfig
from embedlab.train.corpus import WordVocab, encode
from embedlab.train.kernels import METHODS
from embedlab.train.tables import TrainState, init_tables, vocab_tables
from embedlab.train.word2vec import Word2VecJob, train_chunk
from embedlab.vectors import Vectors

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


def _train(lines, vocab, chunk_words=None, on_step=None, **settings) -> Word2VecJob:
    """Every epoch of a job, as run.train drives it (without the folder around it)."""
    config = RunConfig(corpus="lines", **settings)
    job = Word2VecJob(lines, vocab, config, chunk_words=chunk_words)
    try:
        for epoch in range(config.epochs):
            for _ in job.steps(epoch, skip=0):
                if on_step is not None:
                    on_step(epoch, job)
    finally:
        job.close()
    return job


def _updates(job: Word2VecJob) -> np.ndarray:
    return job.state.update_counts.sum(axis=0)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("method", "glove", "method must be one of sgns, cbow, lm; got 'glove'"),
        ("dim", 0, "dim must be >= 1; got 0"),
        ("window", 2.5, "window must be an integer; got 2.5"),
        ("negative", 0, "negative must be >= 1; got 0"),
        ("sample", 1.5, "sample must be between 0.0 and 1.0; got 1.5"),
        ("lr", -0.1, "lr must be >= 0.0; got -0.1"),
        ("epochs", 0, "epochs must be >= 1; got 0"),
        ("threads", 0, "threads must be between 1 and 1024; got 0"),
        ("seed", -1, "seed must be >= 0; got -1"),
        ("epoch_decay", 1.5, "epoch_decay must be between 0.0 and 1.0; got 1.5"),
        ("epoch_decay", 0, "epoch_decay must be in (0, 1]: at 0 the rate never falls; got 0.0"),
        ("epoch_decay", float("nan"), "epoch_decay must be a finite number; got nan"),
    ],
)
def test_settings_name_the_bad_value(field, value, message):
    with pytest.raises(InvalidValueError) as info:
        RunConfig(corpus="lines", **{field: value})
    assert str(info.value) == message


def test_the_default_schedule_is_corpus_files_and_an_older_record_keeps_the_straight_line():
    assert RunConfig(corpus="lines").epoch_decay == 0.5  # gensim corpus_file's rate with 2 workers
    record = RunConfig(corpus="lines").to_dict()
    assert RunConfig.from_dict(record).epoch_decay == 0.5
    del record["epoch_decay"]  # run.json as runs wrote it before the setting existed: on the straight line
    assert RunConfig.from_dict(record).epoch_decay == 1.0


@pytest.mark.parametrize("method", METHODS)
def test_update_counts_are_exact(method):
    # window=1 always spans one word each side and sample=0 keeps every word, so every input-row
    # update is known: each occurrence of a word updates its row once per neighbour in its line
    lines = ["a b c d", "b a", "e", "c d e a b", "e"] * 20
    vocab = WordVocab.build(lines, min_count=1)
    job = _train(lines, vocab, method=method, dim=8, window=1, sample=0.0, epochs=3, threads=1)
    expected = {"a": 4, "b": 4, "c": 3, "d": 3, "e": 2}  # neighbours of each word over one repeat
    for word, n in expected.items():
        assert _updates(job)[vocab.key_to_index[word]] == n * 20 * 3, word
    assert _updates(job).sum() == sum(expected.values()) * 20 * 3


def test_a_word_never_in_context_is_never_updated():
    lines = ["a b c a b", "lonely", "b c"] * 30  # "lonely" only ever stands alone
    vocab = WordVocab.build(lines, min_count=1)
    for method in METHODS:
        job = _train(lines, vocab, method=method, dim=8, sample=0.0, threads=2)
        row = vocab.key_to_index["lonely"]
        assert _updates(job)[row] == 0
        np.testing.assert_array_equal(job.table()[row], init_tables(len(vocab), 8, seed=1)[0][row])


@pytest.mark.parametrize("method", METHODS)
def test_one_thread_is_deterministic_and_seeded(method, small_lines, wiki_vocab):
    settings = {"method": method, "dim": 16, "epochs": 2, "threads": 1}
    a, b = (_train(small_lines, wiki_vocab, seed=5, **settings) for _ in range(2))
    c = _train(small_lines, wiki_vocab, seed=6, **settings)
    np.testing.assert_array_equal(a.state.w_in, b.state.w_in)
    np.testing.assert_array_equal(a.state.w_out, b.state.w_out)
    np.testing.assert_array_equal(_updates(a), _updates(b))
    assert not np.array_equal(a.state.w_in, c.state.w_in) and not np.array_equal(_updates(a), _updates(c))


@pytest.mark.parametrize("method", METHODS)
def test_results_do_not_depend_on_chunk_size(method, small_lines, wiki_vocab):
    small = _train(small_lines, wiki_vocab, chunk_words=300, method=method, dim=16, threads=1)
    large = _train(small_lines, wiki_vocab, chunk_words=10**6, method=method, dim=16, threads=1)
    np.testing.assert_array_equal(small.state.w_in, large.state.w_in)
    np.testing.assert_array_equal(small.state.w_out, large.state.w_out)


def test_a_saved_state_resumes_bit_for_bit(small_lines, wiki_vocab):
    config = RunConfig(corpus="lines", dim=16, epochs=1, threads=1)
    tables = vocab_tables(wiki_vocab, config.sample)
    chunks = list(encode(small_lines, wiki_vocab, 2000))
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
    # the job's steps are this loop of train_chunk
    job = _train(small_lines, wiki_vocab, chunk_words=2000, dim=16, epochs=1, threads=1)
    np.testing.assert_array_equal(job.state.w_in, state.w_in)
    np.testing.assert_array_equal(job.state.w_out, state.w_out)
    assert job.state.kept_words == state.kept_words


def test_subsampling_keeps_the_expected_share(small_lines, wiki_vocab):
    job = _train(small_lines, wiki_vocab, dim=8, epochs=5, threads=2)
    ids = np.concatenate([c.ids for c in encode(small_lines, wiki_vocab)])
    expected = wiki_vocab.keep_probabilities(1e-3)[ids].sum() * 5
    assert job.state.words_done == len(ids) * 5
    assert job.state.kept_words == pytest.approx(expected, rel=KEEP_TOLERANCE)


def test_rate_falls_and_loss_falls_step_by_step(small_lines, wiki_vocab):
    reports = []
    job = _train(small_lines, wiki_vocab, chunk_words=2000, dim=16, epochs=4, threads=1,
                 on_step=lambda epoch, job: reports.append((epoch, job.done, job.lr, job.loss)))  # fmt: skip
    assert len(reports) > 4 * 3
    done = [r[1] for r in reports]
    assert done == sorted(set(done)) and done[-1] == job.state.words_done
    rates = [r[2] for r in reports]
    # the rate holds for each LR_STEP words (as gensim's jobs): it falls in steps, first below lr at word 10,000
    assert rates == sorted(rates, reverse=True) and rates[0] == job.config.lr and len(set(rates)) > 4
    first_epoch = [r[3] for r in reports if r[0] == 0][-1]
    assert 0 < job.loss < first_epoch


def test_an_empty_vocabulary_is_refused():
    with pytest.raises(InvalidValueError, match="vocabulary is empty"):
        Word2VecJob(["a b"], WordVocab([], np.zeros(0, np.int64)), RunConfig(corpus="lines"))


# Measured over seeds 1-3 on enwiki-sample (dim 50, 5 epochs, 2 threads): "february" ranks 1-8th
# of january's neighbours, "three" 1st-2nd of two's, "she" 1st-2nd of he's; sgns also puts spain
# or germany first for france, and sgns cosines of related words sit 0.5+ above unrelated ones.
@pytest.mark.parametrize("method", METHODS)
def test_real_text_gives_sensible_neighbours(method, wiki_lines, wiki_vocab, check_neighbours):
    job = _train(wiki_lines, wiki_vocab, method=method, dim=50, threads=2, seed=1)
    vectors = Vectors(wiki_vocab.index_to_key, job.table())
    check_neighbours(vectors, method)
    if method == "sgns":
        assert {"spain", "germany"} & {k for k, _ in vectors.most_similar("france", topn=3)}


def test_hogwild_threads_share_the_work(small_lines, wiki_vocab):
    # more threads than cores is allowed: the parts then queue for the cores
    settings = {"dim": 16, "window": 1, "sample": 0.0, "epochs": 2}
    three = _train(small_lines, wiki_vocab, threads=3, **settings)
    one = _train(small_lines, wiki_vocab, threads=1, **settings)
    # window=1 and sample=0 fix every update, and each thread counts its own, so none is lost
    np.testing.assert_array_equal(_updates(three), _updates(one))
    assert np.isfinite(three.table()).all()
    assert three.state.kept_words == one.state.kept_words == three.state.words_done


def test_a_failing_corpus_stops_training():
    class Failing:
        def __iter__(self):
            yield "a b c a b c"
            raise OSError("disk gone")

    vocab = WordVocab(["a", "b", "c"], np.array([2, 2, 2]))
    with pytest.raises(OSError, match="disk gone"):
        _train(Failing(), vocab, chunk_words=1, dim=4)
