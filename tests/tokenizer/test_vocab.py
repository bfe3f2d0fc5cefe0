"""Word-level vocabularies, the OOV policy, and the frequency statistics on a real corpus."""

from __future__ import annotations

from collections import Counter
from itertools import islice

import pytest

from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError
from embedlab.tokenizer.bpe import BPE
from embedlab.tokenizer.fast import FastTokenizer
from embedlab.tokenizer.vocab import (
    SPECIALS,
    UNK,
    Vocab,
    count_words,
    most_frequent,
    piece_counts,
    pieces_per_word,
    words,
)
from embedlab.train import corpus
from embedlab.vectors.frequency import frequency_bands

COUNTS = Counter({"the": 10, "cat": 4, "sat": 4, "mat": 2, "zebra": 1})


def test_specials_come_first_at_fixed_ids_then_words_by_count():
    vocab = Vocab(COUNTS)
    assert vocab.index_to_key[: len(SPECIALS)] == list(SPECIALS)
    assert vocab.key_to_index["[PAD]"] == 0 and vocab.key_to_index["[UNK]"] == UNK == 1
    assert vocab.index_to_key[len(SPECIALS)] == "the"
    assert vocab.count("cat") == 4 and vocab.count("dog") == 0
    assert len(vocab) == len(SPECIALS) + 5


def test_min_count_and_max_size():
    assert "zebra" not in Vocab(COUNTS, min_count=2)
    small = Vocab(COUNTS, max_size=len(SPECIALS) + 2)
    assert small.index_to_key[len(SPECIALS) :] == ["the", "cat"]  # ties keep first-counted order
    assert small.encode("the mat") == [small.key_to_index["the"], UNK]


def test_oov_policies():
    unk = Vocab(COUNTS)
    assert unk.tokens("the cat ate") == ["the", "cat", "[UNK]"]
    bpe = BPE(mode="byte")
    bpe.train("the cat ate the hat " * 5, num_merges=20)
    sub = Vocab(COUNTS, oov="subword", subword=bpe)
    ids = sub.encode("the cat ate")
    assert ids[:2] == [sub.key_to_index["the"], sub.key_to_index["cat"]]
    assert all(i >= len(sub) for i in ids[2:])  # subword ids follow the word ids
    assert "".join(sub.token(i) for i in ids[2:]) == "ate"  # spelled, not collapsed to [UNK]
    assert UNK not in ids


def test_lowercase_and_build_from_a_corpus():
    lines = list(islice(open_corpus("gcide"), 2000))
    vocab = Vocab.build(lines, lowercase=True, min_count=2)
    assert "The" in vocab and vocab.count("The") == vocab.count("the")
    assert vocab.count("the") == count_words(lines, lowercase=True)["the"]


def test_one_word_tokenizer_for_vocab_and_word2vec():
    assert corpus.words is words and corpus.count_words is count_words  # train's tables split text so
    lines = ["The cat sat.", "the CAT, the mat!", "rock’n’roll isn't dead"]
    assert count_words(lines) == Counter(w for line in lines for w in words(line))
    assert count_words(lines, lowercase=False)["The"] == 1 and "The" not in count_words(lines)
    vocab = Vocab.build(lines)  # lower-cased, punctuation dropped: the same words as WordVocab.build
    assert vocab.index_to_key[len(SPECIALS) :] == corpus.WordVocab.build(lines, min_count=1).index_to_key
    assert vocab.tokens("The cat, the MAT.") == ["the", "cat", "the", "mat"]  # encode splits as counting did


def test_most_frequent_orders_by_count_then_first_appearance():
    counts = count_words(["b a b c a d", "e"])
    assert most_frequent(counts) == [("b", 2), ("a", 2), ("c", 1), ("d", 1), ("e", 1)]
    assert most_frequent(counts, min_count=2, max_size=1) == [("b", 2)]
    assert most_frequent(counts, max_size=0) == []
    with pytest.raises(InvalidValueError, match="min_count must be >= 1; got 0"):
        most_frequent(counts, min_count=0)


def test_fewer_pieces_per_word_as_the_vocabulary_grows():
    lines = list(islice(open_corpus("gcide"), 15000))
    words = count_words(lines)
    ratios = [pieces_per_word(FastTokenizer.train(lines, vocab_size=n), words) for n in (1000, 8000, 32000)]
    assert ratios[0] > ratios[1] > ratios[2] >= 1.0


def test_piece_counts_and_frequency_bands():
    lines = list(islice(open_corpus("gcide"), 3000))
    fast = FastTokenizer.train(lines, vocab_size=1000)
    counts = piece_counts(fast, lines)
    assert len(counts) == fast.vocab_size
    assert sum(counts) == sum(len(fast.encode(line)) for line in lines)
    bpe = BPE(mode="byte", tie="hf")
    bpe.train(lines[:300], num_merges=200)
    assert piece_counts(bpe, lines[:300], batch=7) == bpe.counts  # encoding agrees with training's tally
    with pytest.raises(InvalidValueError, match="batch must be >= 1; got 0"):
        piece_counts(fast, lines, batch=0)
    bands = frequency_bands(counts, threshold=100)
    assert sorted(bands.well_trained + bands.rare) == list(range(fast.vocab_size))
    assert all(counts[i] >= 100 for i in bands.well_trained) and all(counts[i] < 100 for i in bands.rare)
    assert 0 < bands.rare_share < 1


def test_bad_arguments():
    with pytest.raises(InvalidValueError, match="min_count must be >= 1; got 0"):
        Vocab(COUNTS, min_count=0)
    with pytest.raises(InvalidValueError, match="max_size must be >= 7; got 3"):
        Vocab(COUNTS, max_size=3)
    with pytest.raises(InvalidValueError, match='oov="subword" needs a subword tokenizer'):
        Vocab(COUNTS, oov="subword")
    with pytest.raises(InvalidValueError, match="oov must be one of unk, subword; got 'drop'"):
        Vocab(COUNTS, oov="drop")
    with pytest.raises(InvalidValueError, match="the corpus has no words"):
        Vocab.build(["   ", ""])
    with pytest.raises(InvalidValueError, match="token id 99 is out of range: vocab_size is 12"):
        Vocab(COUNTS).token(99)
    with pytest.raises(InvalidValueError, match="threshold must be >= 1; got 0"):
        frequency_bands([1, 2], 0)
