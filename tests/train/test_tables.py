"""word2vec's tables: gensim's initial rows, and the state both engines start from."""

from __future__ import annotations

import numpy as np

from embedlab.train.config import RunConfig
from embedlab.train.corpus import WordVocab
from embedlab.train.kernels import guide_table
from embedlab.train.tables import TrainState, init_tables, vocab_tables


def test_init_tables_are_gensims():
    w_in, w_out = init_tables(1000, 50, seed=3)
    assert w_in.dtype == w_out.dtype == np.float32 and w_in.shape == w_out.shape == (1000, 50)
    assert w_in.min() >= -1 / 50 and w_in.max() < 1 / 50 and w_in.std() > 1 / 50 / 2
    assert not w_out.any()
    np.testing.assert_array_equal(w_in, init_tables(1000, 50, seed=3)[0])


def test_a_new_state_plans_every_epochs_words_and_reads_the_vocabulary():
    lines = ["a b c a b", "b c", "a"] * 10  # 80 words: a 30, b 30, c 20
    vocab = WordVocab.build(lines, min_count=1)
    config = RunConfig(corpus="lines", dim=8, epochs=3, threads=2, seed=4)
    state = TrainState.new(vocab, config)
    np.testing.assert_array_equal(state.w_in, init_tables(3, 8, seed=4)[0])
    assert state.words_total == 3 * 80 and state.words_done == state.kept_words == 0
    assert state.rng_state.shape == (2,) and state.update_counts.shape == (2, 3) and not state.update_counts.any()
    tables = vocab_tables(vocab, sample=0.0)
    assert tables.keep.tolist() == [1.0, 1.0, 1.0]  # sample=0 keeps every word
    np.testing.assert_array_equal(tables.cum_table, vocab.noise_table())
    np.testing.assert_array_equal(tables.guide, guide_table(tables.cum_table))
