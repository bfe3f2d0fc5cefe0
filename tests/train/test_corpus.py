"""The word2vec corpus pieces: tokenizer, vocabulary, subsampling and noise tables against gensim,
streaming encoding and its replay cache."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from itertools import islice

import numpy as np
import pytest

from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError
from embedlab.train.corpus import MAX_SENTENCE_WORDS, NOISE_DOMAIN, ChunkCache, WordVocab, encode, words

KEEP_RTOL = 1e-6  # gensim stores keep probabilities as uint32 fractions of 2**32 - 1; ours are float32
STREAM_GROWTH_BYTES = 20 * 2**20  # the streamed lines would take ~50 MB held; counting holds a 1,005-word Counter

TINY = ["the cat sat on the mat", "The dog sat", "", "a cat, the cat!", "dog"]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("The King's men", ["the", "king's", "men"]),
        ("rock’n’roll isn't dead", ["rock’n’roll", "isn't", "dead"]),
        ("snake_case and 'quoted' words", ["snake", "case", "and", "quoted", "words"]),
        ("Café naïve ÉTÉ 1913", ["café", "naïve", "été", "1913"]),
        ("-- ... !!", []),
    ],
)
def test_words(line, expected):
    assert words(line) == expected


def test_vocab_orders_by_count_then_first_appearance():
    vocab = WordVocab.build(TINY, min_count=1)
    # the 4, cat 3; sat and dog 2 each, sat seen first; on, mat, a once each in order of appearance
    assert vocab.index_to_key == ["the", "cat", "sat", "dog", "on", "mat", "a"]
    assert vocab.counts.tolist() == [4, 3, 2, 2, 1, 1, 1]
    assert vocab.counts.dtype == np.int64
    assert vocab.key_to_index["dog"] == 3
    assert vocab.total == 14


def test_vocab_min_count_and_max_size():
    assert WordVocab.build(TINY, min_count=2).index_to_key == ["the", "cat", "sat", "dog"]
    vocab = WordVocab.build(TINY, min_count=1, max_size=3)
    assert vocab.index_to_key == ["the", "cat", "sat"]
    assert vocab.total == 9  # only kept words count


@pytest.mark.parametrize("kwargs", [{"min_count": 0}, {"max_size": 0}, {"min_count": 1.5}])
def test_vocab_rejects_bad_sizes(kwargs):
    with pytest.raises(InvalidValueError, match="must be"):
        WordVocab.build(TINY, **kwargs)


def test_vocab_needs_a_count_per_word():
    with pytest.raises(InvalidValueError, match=r"2 words need counts of shape \(2,\); got shape \(3,\)"):
        WordVocab(["a", "b"], [3, 2, 1])


def test_vocab_round_trips_through_json():
    vocab = WordVocab.build(TINY, min_count=1)
    again = WordVocab.from_dict(json.loads(json.dumps(vocab.to_dict())))
    assert again.index_to_key == vocab.index_to_key
    np.testing.assert_array_equal(again.counts, vocab.counts)
    assert again.counts.dtype == np.int64


@pytest.fixture(scope="module")
def wiki_sentences():
    return [words(line) for line in open_corpus("enwiki-sample")]


@pytest.fixture(scope="module")
def gensim_model(wiki_sentences):
    """gensim's own vocabulary (counts, sample_int, cum_table) built on the same token lists."""
    from gensim.models import Word2Vec

    model = Word2Vec(min_count=5, sample=1e-3, workers=1)
    model.build_vocab(wiki_sentences)
    return model


@pytest.fixture(scope="module")
def wiki_vocab(wiki_sentences):
    return WordVocab.build((" ".join(sentence) for sentence in wiki_sentences), min_count=5)


def test_vocab_equals_gensims(wiki_vocab, gensim_model):
    wv = gensim_model.wv
    assert sorted(wiki_vocab.index_to_key) == sorted(wv.index_to_key)
    gensim_counts = np.array([wv.get_vecattr(key, "count") for key in wiki_vocab.index_to_key])
    np.testing.assert_array_equal(wiki_vocab.counts, gensim_counts)


def test_keep_probabilities_equal_gensims(wiki_vocab, gensim_model):
    wv = gensim_model.wv
    rows = [wv.key_to_index[key] for key in wiki_vocab.index_to_key]
    gensim_keep = wv.expandos["sample_int"][rows] / (2**32 - 1)
    keep = wiki_vocab.keep_probabilities(1e-3)
    assert keep.dtype == np.float32 and keep.shape == (len(wiki_vocab),)
    np.testing.assert_allclose(keep, gensim_keep, rtol=KEEP_RTOL)
    assert keep[0] < 0.2 and keep[-1] == 1.0  # "the" loses most of its occurrences, rare words none


def test_sample_zero_keeps_every_word(wiki_vocab):
    np.testing.assert_array_equal(wiki_vocab.keep_probabilities(0.0), np.ones(len(wiki_vocab), np.float32))


def test_noise_table_equals_gensims_cum_table(wiki_vocab, gensim_model):
    table = wiki_vocab.noise_table()
    assert table.dtype == np.uint32 and table[-1] == NOISE_DOMAIN
    # within a tie in count gensim may order words differently, but the cumulative table is the same
    np.testing.assert_array_equal(table, gensim_model.cum_table)


def test_noise_table_power_one_is_the_unigram_cdf():
    vocab = WordVocab(["a", "b", "c"], np.array([5, 3, 2]))
    np.testing.assert_array_equal(vocab.noise_table(1.0), np.rint(np.array([0.5, 0.8, 1.0]) * NOISE_DOMAIN))


def test_encode_drops_unknown_words_and_keeps_sentences():
    vocab = WordVocab(["the", "cat", "sat"], np.array([4, 3, 2]))
    lines = ["the dog sat", "", "dog dog", "cat", "The cat, the cat."]
    (chunk,) = encode(lines, vocab)
    assert chunk.ids.dtype == np.int32 and chunk.starts.dtype == np.int64
    assert chunk.ids.tolist() == [0, 2, 1, 0, 1, 0, 1]
    assert chunk.starts.tolist() == [0, 2, 3, 7]  # "the sat" | "cat" | "the cat the cat"; no empty sentence


def test_encode_cuts_chunks_at_sentence_ends():
    vocab = WordVocab(["a", "b"], np.array([2, 2]))
    chunks = list(encode(["a b a"] * 10, vocab, chunk_words=7))
    assert [len(c.ids) for c in chunks] == [9, 9, 9, 3]  # each chunk passes 7 words at a whole line
    for chunk in chunks:
        assert np.diff(chunk.starts).tolist() == [3] * (len(chunk.ids) // 3)


def test_encode_splits_very_long_lines():
    vocab = WordVocab(["a"], np.array([1]))
    (chunk,) = encode([" ".join(["a"] * (2 * MAX_SENTENCE_WORDS + 5))], vocab)
    assert chunk.starts.tolist() == [0, MAX_SENTENCE_WORDS, 2 * MAX_SENTENCE_WORDS, 2 * MAX_SENTENCE_WORDS + 5]


def test_encode_of_nothing_known_yields_nothing():
    vocab = WordVocab(["a"], np.array([1]))
    assert list(encode(["b c", "", "d"], vocab, chunk_words=1)) == []


def test_chunk_cache_replays_the_encoding(wiki_vocab):
    lines = list(islice(open_corpus("enwiki-sample"), 300))
    expected = list(encode(lines, wiki_vocab, chunk_words=2000))
    with ChunkCache(lines, wiki_vocab, chunk_words=2000) as cache:
        for _ in range(3):  # the first pass encodes, later ones read back
            got = list(cache)
            assert len(got) == len(expected) > 1
            for a, b in zip(got, expected, strict=True):
                np.testing.assert_array_equal(a.ids, b.ids)
                np.testing.assert_array_equal(a.starts, b.starts)
                assert a.ids.flags.writeable and a.ids.dtype == np.int32


def test_chunk_cache_reencodes_after_a_pass_cut_short():
    vocab = WordVocab(["a", "b"], np.array([2, 2]))
    reads = []

    class Lines:
        def __iter__(self):
            reads.append(1)
            return iter(["a b"] * 10)

    cache = ChunkCache(Lines(), vocab, chunk_words=2)
    next(iter(cache))  # abandoned after one chunk
    assert len(list(cache)) == 10 and len(list(cache)) == 10
    assert len(reads) == 2  # the cut pass and one full pass; the last pass replayed the file
    cache.close()


def test_vocab_build_streams_without_holding_the_lines():
    # 600,000 lines (~50 MB as str objects) through a fresh interpreter; its peak memory barely moves
    script = textwrap.dedent(
        """
        import resource
        from embedlab.train.corpus import WordVocab

        def lines():
            for i in range(600_000):
                yield f"word{i % 1000} and the other word{(i * 7) % 1000} of line"

        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        vocab = WordVocab.build(lines(), min_count=1)
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        print(vocab.total, len(vocab), grown * 1024)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    total, size, grown = map(int, out.split())
    assert (total, size) == (600_000 * 7, 1005)
    assert grown < STREAM_GROWTH_BYTES
