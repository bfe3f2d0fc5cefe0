"""The measured vocabulary-size table on enwiki-sample: each figure recounted here by a plainer route
(line by line, word by word, Counter.most_common), the trends the lesson's table describes, table
sizes equal to embedlab.sizing's, and the rungs a corpus or a ladder cannot give, left out with why."""

from __future__ import annotations

import json

import pytest

from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError
from embedlab.files import json_safe
from embedlab.sims.subword_table import DIM, PARAGRAPH, RARE_BELOW, RUNGS, measure
from embedlab.sims.subwords import SIZES, VocabularyLadder
from embedlab.sizing import EmbeddingLayout, count
from embedlab.tokenizer.vocab import SPECIALS, count_words, words

TOLERANCE = 1e-12  # the same sums taken in another order


@pytest.fixture(scope="module")
def wiki_lines(wiki_text):
    return list(open_corpus(wiki_text))


@pytest.fixture(scope="module")
def table(ladder, wiki_lines):
    return measure(ladder, wiki_lines)


def test_the_split_and_the_rungs(table, wiki_lines):
    held = wiki_lines[9::10]
    train_counts = count_words(line for i, line in enumerate(wiki_lines) if i % 10 != 9)
    assert (table.train_lines, table.held_out_lines) == (len(wiki_lines) - len(held), len(held))
    assert table.held_out_words == sum(len(line.split()) for line in held)
    assert table.distinct_words == len(train_counts)
    assert [r.size for r in table.rungs] == list(SIZES) and RUNGS[-1] == 100_000
    # enwiki-sample is too small for the lesson's 100K column: fewer distinct words than rows
    assert len(train_counts) < 100_000
    (left,) = table.left_out
    assert left.size == 100_000 and f"{len(train_counts):,} distinct words" in left.reason
    assert table.paragraph == PARAGRAPH and table.paragraph_words == 75  # docs/lessons.md (Subwords) quotes it
    assert json.loads(json.dumps(json_safe(table)))["rungs"][0]["size"] == SIZES[0]


def test_each_figure_recounted_line_by_line(table, ladder, wiki_lines):
    held = wiki_lines[9::10]
    train_counts = count_words(line for i, line in enumerate(wiki_lines) if i % 10 != 9)
    held_words = [w for line in held for w in words(line, lowercase=False)]  # as written
    rare = [w for w in held_words if train_counts[w.lower()] < RARE_BELOW]
    other = [w for w in held_words if train_counts[w.lower()] >= RARE_BELOW]
    assert table.rare_words == len(rare) and table.rare_share == pytest.approx(len(rare) / len(held_words))
    for rung in table.rungs:
        tokenizer = ladder.tokenizers[rung.size]
        tokens = sum(len(tokenizer.encode(line)) for line in held)  # one line at a time, not batched
        assert rung.pieces_per_word == pytest.approx(tokens / table.held_out_words, rel=TOLERANCE)
        rare_pieces = sum(len(tokenizer.encode(" " + w)) for w in rare)  # every occurrence encoded
        assert rung.pieces_per_rare_word == pytest.approx(rare_pieces / len(rare), rel=TOLERANCE)
        other_pieces = sum(len(tokenizer.encode(" " + w)) for w in other)
        assert rung.pieces_per_other_word == pytest.approx(other_pieces / len(other), rel=TOLERANCE)
        assert rung.paragraph_tokens == len(tokenizer.encode(PARAGRAPH))
        barely = [i for i, c in enumerate(tokenizer.counts) if c < RARE_BELOW]  # rows that barely train
        assert rung.rare_piece_share == len(barely) / tokenizer.vocab_size
        kept = {w for w, _ in train_counts.most_common(rung.size - len(SPECIALS))}  # ties: first seen, as Vocab
        lower = [w for line in held for w in words(line)]  # lower-cased before it is split, as Vocab.build counts
        assert rung.word_oov_running == pytest.approx(sum(w not in kept for w in lower) / len(lower), rel=TOLERANCE)
        assert rung.word_oov_distinct == pytest.approx(len(set(lower) - kept) / len(set(lower)), rel=TOLERANCE)
        assert rung.word_paragraph_unknown == sum(w not in kept for w in words(PARAGRAPH))


def test_bigger_vocabularies_split_less(table):
    per_word = [r.pieces_per_word for r in table.rungs]
    per_rare = [r.pieces_per_rare_word for r in table.rungs]
    paragraph = [r.paragraph_tokens for r in table.rungs]
    rare_rows = [r.rare_piece_share for r in table.rungs]  # the lesson: "low [frequency] for rare tokens" at large V
    assert per_word == sorted(per_word, reverse=True) and len(set(per_word)) == len(per_word)
    assert per_rare == sorted(per_rare, reverse=True) and len(set(per_rare)) == len(per_rare)
    assert paragraph == sorted(paragraph, reverse=True) and paragraph[0] > paragraph[-1]
    assert rare_rows[-1] > rare_rows[0] and rare_rows[-1] > 0.5  # at 32K most rows barely train on this corpus
    for r in table.rungs:
        assert r.pieces_per_rare_word > r.pieces_per_other_word >= 1  # rare words fall apart more
        assert r.pieces_per_word > r.pieces_per_other_word  # a running word's punctuation is a piece too
        assert r.paragraph_tokens > table.paragraph_words


def test_whole_words_miss_some_held_out_words_bpe_misses_none(table):
    running = [r.word_oov_running for r in table.rungs]
    distinct = [r.word_oov_distinct for r in table.rungs]
    assert all(x > 0 for x in running) and running == sorted(running, reverse=True) and running[0] > running[-1]
    assert distinct == sorted(distinct, reverse=True) and distinct[0] > distinct[-1]
    for r in table.rungs:
        assert r.word_rows == r.size  # as many rows as the BPE vocabulary, specials included
        assert r.word_oov_distinct > r.word_oov_running  # the missing words are the rare ones
        assert r.spelled_back  # every held-out line decodes back to itself: BPE's OOV is 0


def test_table_sizes_are_sizings(table):
    for r in table.rungs:
        fp32 = count(EmbeddingLayout(vocab_size=r.vocab_size, dim=DIM), "fp32")
        fp16 = count(EmbeddingLayout(vocab_size=r.vocab_size, dim=DIM), "fp16")
        assert r.params == fp32.token_params == fp32.total_params == r.vocab_size * 768
        assert (r.mib_fp32, r.mib_fp16) == (fp32.mib, fp16.mib)
    big = table.rungs[-1]
    assert (big.vocab_size, big.params, big.mib_fp32, big.mib_fp16) == (32_000, 24_576_000, 93.75, 46.875)  # by hand


def test_another_corpus_is_refused(ladder, wiki_lines):
    with pytest.raises(InvalidValueError) as err:
        measure(ladder, wiki_lines[:-100])
    trained = len(wiki_lines) - len(wiki_lines[9::10])
    assert str(err.value).startswith(f"the ladder was trained on [{trained}] lines, but this corpus's training part "
                                     f"has {trained - 90}")  # fmt: skip


def test_rungs_a_ladder_or_a_corpus_cannot_give_are_left_out(wiki_text, tmp_path):
    path = tmp_path / "small.txt"
    path.write_text("".join(line + "\n" for line in wiki_text.read_text(encoding="utf-8").splitlines()[:300]))
    corpus = open_corpus(path)
    table = measure(VocabularyLadder.open(corpus, tmp_path, (300, 600)), corpus, rungs=(300, 600, 1_000, 100_000))
    assert [r.size for r in table.rungs] == [300, 600]
    assert [(x.size, x.reason) for x in table.left_out] == [
        (1_000, "this ladder has no 1,000 vocabulary (it has 300, 600)"),
        (100_000, f"the training part has {table.distinct_words:,} distinct words, fewer than 100,000: a word "
                  "vocabulary of 100,000 would hold them all"),
    ]  # fmt: skip


def test_a_corpus_too_short_to_hold_out_a_line(tmp_path):
    path = tmp_path / "nine.txt"
    path.write_text("".join(f"line {i} of a short text\n" for i in range(9)))
    corpus = open_corpus(path)
    ladder = VocabularyLadder.open(corpus, tmp_path, (260,))
    with pytest.raises(InvalidValueError, match="a corpus of 9 lines holds nothing out"):
        measure(ladder, corpus)
