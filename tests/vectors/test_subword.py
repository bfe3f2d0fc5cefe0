"""SubwordVectors against gensim's FastTextKeyedVectors: the same word and bucket rows give the same
vectors for every word, seen or not (non-ASCII included), the same neighbours and the same answers
to `in` and `has_index_for`; and the words no vector can be made for fail saying why."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest
from gensim.models import FastText

from embedlab.data.corpora import open_corpus
from embedlab.errors import FileChangedError, FileFormatError, InvalidValueError, UnknownKeyError
from embedlab.hashing import ngram_buckets
from embedlab.vectors import SubwordVectors, Vectors
from embedlab.vectors.subword import load

SAME = 1e-6  # float32 vectors computed in another order (the brief's tolerance; most agree to the bit)
SCORE = 1e-5  # cosines from another float32 matrix product (gensim divides by norms, we use unit rows)
LINES = 3000  # enwiki-sample lines: ~120,000 words, ~3,300 of them seen 5 times or more
TOPN = 10
# words a min-count-5 vocabulary of lowercase ASCII words lacks: misspellings, inflections, non-ASCII,
# emoji; each has an n-gram of 5 characters ("<日本語>" is one), so the 5-5 table makes them too
UNSEEN = ["historyy", "goverment", "unhappinesses", "naïveté", "日本語", "🙂🙂🙂", "Straße", "anarchistically"]
SEEN = ["history", "government", "war", "people", "music", "the"]


@pytest.fixture(scope="module", params=[(3, 6), (5, 5)], ids=["3-6", "5-5"])
def trained(request):
    """(gensim's FastTextKeyedVectors, our SubwordVectors built from its word and bucket rows).

    A tiny gensim FastText on the first LINES lines of enwiki-sample, lowercased letters only.
    alpha 0.1: at gensim's 0.025 a corpus this small leaves every cosine near 0.9999, and neighbour
    lists would be decided by float rounding. The 5-5 range leaves short words ("a", "of") without
    any n-gram: their vector is their own row alone."""
    min_n, max_n = request.param
    lines = itertools.islice(open_corpus("enwiki-sample"), LINES)
    sentences = [re.findall(r"[a-z]+", line.lower()) for line in lines]
    model = FastText(vector_size=16, min_count=5, bucket=1000, min_n=min_n, max_n=max_n, sg=1, alpha=0.1)
    model.build_vocab(sentences)
    model.train(sentences, total_examples=len(sentences), epochs=5)
    wv = model.wv
    ours = SubwordVectors(
        wv.index_to_key, wv.vectors_vocab, wv.vectors_ngrams, min_n=min_n, max_n=max_n, name="tiny-fasttext"
    )
    return wv, ours


def test_whole_words_are_composed_as_gensim_composes_them(trained):
    wv, ours = trained
    assert ours.index_to_key == wv.index_to_key and ours.key_to_index == wv.key_to_index
    assert ours.buckets == 1000 and ours.vectors.shape == wv.vectors.shape
    np.testing.assert_allclose(ours.vectors, wv.vectors, rtol=0, atol=SAME)
    for word in SEEN:
        np.testing.assert_allclose(ours[word], wv[word], rtol=0, atol=SAME)
    # the stored parts are the ones given, and a word's vector is their mean (fastText's getWordVector)
    np.testing.assert_array_equal(ours.word_rows, wv.vectors_vocab)
    np.testing.assert_array_equal(ours.ngram_rows, wv.vectors_ngrams)
    i = ours.key_to_index["history"]
    ids = ngram_buckets("history", ours.min_n, ours.max_n, ours.buckets)
    mean = np.vstack([wv.vectors_vocab[i], wv.vectors_ngrams[ids]]).mean(axis=0)
    np.testing.assert_allclose(ours["history"], mean, rtol=0, atol=SAME)


def test_unseen_words_are_the_mean_of_their_ngram_rows_as_in_gensim(trained):
    wv, ours = trained
    for word in UNSEEN:
        assert word not in wv.key_to_index
        np.testing.assert_allclose(ours[word], wv[word], rtol=0, atol=SAME, err_msg=word)
        np.testing.assert_allclose(ours.get_vector(word, norm=True), wv.get_vector(word, norm=True), atol=SAME)
        assert ours.source(word) == "ngrams" and not ours[word].flags.writeable
    both = ours[["history", "historyy"]]  # a list mixes seen and unseen words
    np.testing.assert_allclose(both, np.stack([wv["history"], wv["historyy"]]), rtol=0, atol=SAME)


def test_in_and_has_index_for_answer_as_gensims(trained):
    wv, ours = trained
    for word in SEEN + UNSEEN:
        assert (word in ours) == (word in wv) is True
        assert ours.has_index_for(word) == wv.has_index_for(word) == (word in SEEN)
        assert ours.source(word) == ("word" if word in SEEN else "ngrams")
    with pytest.raises(UnknownKeyError, match="historyy"):
        ours.index_of("historyy")  # rows are whole words only


def _assert_same_neighbours(ours, gensim_answer, all_scores, keys):
    """Our top-n equals gensim's, allowing near-ties to swap places or cross the cut."""
    theirs = [k for k, _ in gensim_answer]
    np.testing.assert_allclose(ours.scores, [s for _, s in gensim_answer], rtol=0, atol=SCORE)
    cut = gensim_answer[-1][1]
    for key in set(ours.keys) ^ set(theirs):
        assert abs(all_scores[keys[key]] - cut) < SCORE, (key, ours.keys, theirs)


@pytest.mark.parametrize("word", ["history", "government", "historyy", "goverment", "naïveté", "日本語"])
def test_most_similar_ranks_whole_words_as_gensim(trained, word):
    wv, ours = trained
    answer = ours.most_similar(word, topn=TOPN)
    _assert_same_neighbours(answer, wv.most_similar(word, topn=TOPN), wv.most_similar(word, topn=None), wv.key_to_index)
    assert set(answer.keys) <= set(ours.index_to_key) and word not in answer.keys
    assert answer.inputs == (word,) and answer.sources == (ours.source(word),)
    assert answer.to_dict()["from"] == {word: ours.source(word)}
    # one matrix product for several queries gives the same answers, unseen words included
    batch = ours.most_similar_batch([word, "war"], topn=TOPN)
    assert batch[0].keys == answer.keys and batch[0].sources == answer.sources
    assert batch[1].keys == ours.most_similar("war", topn=TOPN).keys


def test_analogies_similarity_and_odd_one_out_take_unseen_words_as_gensim(trained):
    wv, ours = trained
    positive, negative = ["goverment", "people"], ["historyy"]
    answer = ours.most_similar(positive, negative, topn=TOPN)
    everything = wv.most_similar(positive, negative, topn=None)
    _assert_same_neighbours(answer, wv.most_similar(positive, negative, topn=TOPN), everything, wv.key_to_index)
    assert answer.from_ngrams == ("goverment", "historyy") and "people" not in answer.keys
    expression = ours.analogy("goverment - historyy + people", topn=TOPN)
    assert expression.keys == answer.keys and expression.sources == ("ngrams", "ngrams", "word")
    cosmul = ours.analogy("goverment - historyy + people", topn=TOPN, method="3cosmul")
    theirs = wv.most_similar_cosmul(positive, negative, topn=TOPN)
    np.testing.assert_allclose(cosmul.scores, [s for _, s in theirs], rtol=0, atol=SCORE)
    assert cosmul.sources == ("ngrams", "ngrams", "word")
    for a, b in [("history", "historyy"), ("naïveté", "日本語"), ("war", "people")]:
        assert ours.similarity(a, b) == pytest.approx(float(wv.similarity(a, b)), abs=SCORE)
    words = ["history", "historyy", "historian", "war"]
    assert ours.doesnt_match(words) == wv.doesnt_match(words)


def test_a_word_without_any_ngram_is_an_error_saying_why(trained):
    wv, ours = trained
    if ours.min_n < 5:
        word = ""  # "<>": too short for a 3-gram too
    else:
        word = "ж"  # "<ж>": 3 characters, no 5-gram; gensim answers the zero vector
        np.testing.assert_array_equal(wv[word], np.zeros(16, np.float32))
    assert word not in ours and not ours.has_index_for(word)
    for ask in (ours.get_vector, ours.source, ours.most_similar):
        with pytest.raises(UnknownKeyError, match=f"no character n-gram of {ours.min_n} to {ours.max_n}"):
            ask(word)
    # a seen word without n-grams ("of" under 5-5) is its own row alone
    short = [w for w in ours.index_to_key if not len(ngram_buckets(w, ours.min_n, ours.max_n, ours.buckets))]
    assert bool(short) == (ours.min_n == 5)
    for w in short:
        np.testing.assert_array_equal(ours[w], ours.word_rows[ours.key_to_index[w]])


def test_bucket_counts_decide_which_unseen_words_have_a_vector(trained):
    wv, ours = trained
    ids = ngram_buckets("historyy", ours.min_n, ours.max_n, ours.buckets)
    counts = np.ones(ours.buckets, dtype=np.int64)
    counts[ids] = 0  # none of its buckets was updated in training

    def rebuild(counts):
        return SubwordVectors(
            ours.index_to_key,
            ours.word_rows,
            ours.ngram_rows,
            bucket_counts=counts.copy(),
            min_n=ours.min_n,
            max_n=ours.max_n,
        )

    table = rebuild(counts)
    assert "historyy" not in table and "goverment" in table and "history" in table
    with pytest.raises(UnknownKeyError, match="none of the buckets of its .* was updated in training"):
        table["historyy"]
    counts[ids[0]] = 3  # one updated bucket is enough: the mean is still over all of them, as fastText's
    table = rebuild(counts)
    np.testing.assert_allclose(table["historyy"], wv["historyy"], rtol=0, atol=SAME)
    np.testing.assert_array_equal(table.bucket_counts, counts)


def test_the_table_behaves_as_vectors_and_refuses_bad_parts():
    words = ["cat", "cats", "dog"]
    rng = np.random.default_rng(1)
    table = SubwordVectors(words, rng.standard_normal((3, 8)), rng.standard_normal((50, 8)), [5, 3, 1], name="t")
    assert isinstance(table, Vectors) and repr(table).startswith("SubwordVectors('t', 3 words × 8, 50 buckets")
    assert table.counts.tolist() == [5, 3, 1] and table.bucket_counts is None
    moved = table.to("cpu")  # a copy of the handle stays a subword table
    assert isinstance(moved, SubwordVectors) and np.array_equal(moved["catz"], table["catz"])
    with pytest.raises(ValueError):
        table.word_rows[0, 0] = 1.0  # handed out read-only: the composed rows depend on them
    with pytest.raises(InvalidValueError, match="max_n must be"):
        SubwordVectors(words, np.zeros((3, 8)), np.zeros((50, 8)), min_n=0, max_n=0)
    with pytest.raises(InvalidValueError, match="buckets must be"):
        SubwordVectors(words, np.zeros((3, 8)), np.zeros((0, 8)))
    with pytest.raises(InvalidValueError, match="one width"):
        SubwordVectors(words, np.zeros((3, 8)), np.zeros((50, 4)))
    with pytest.raises(InvalidValueError, match="3 keys for 2 word rows"):
        SubwordVectors(words, np.zeros((2, 8)), np.zeros((50, 8)))
    with pytest.raises(InvalidValueError, match="one entry per bucket"):
        SubwordVectors(words, np.zeros((3, 8)), np.zeros((50, 8)), bucket_counts=np.ones(49))


def test_the_cli_answer_says_which_words_came_from_ngrams(trained, capsys):
    """What `embedlab neighbors` and `analogy` print for a subword table (the loader of .bin files
    that hands them one is glued on elsewhere; this is the printing of its answers)."""
    from embedlab.cli.vectors import _show

    _, ours = trained
    answer = ours.analogy("goverment - historyy + people", topn=3)
    _show(answer, ours, as_json=True)
    printed = json.loads(capsys.readouterr().out)
    assert printed["from"] == {"goverment": "ngrams", "historyy": "ngrams", "people": "word"}
    _show(answer, ours, as_json=False)
    text = capsys.readouterr().out
    assert "not in tiny-fasttext, made from character n-grams: goverment, historyy" in text
    assert "query words excluded: people\n" in text  # the others have no row: no answer could be them
    _show(ours.most_similar("historyy", topn=3), ours, as_json=False)
    text = capsys.readouterr().out
    assert "excluded" not in text and "made from character n-grams: historyy" in text
    _show(ours.most_similar("people", topn=3), ours, as_json=False)
    text = capsys.readouterr().out
    assert "n-grams" not in text and "query words excluded: people" in text


def test_compare_takes_a_subword_table_by_its_whole_words(trained):
    from embedlab.vectors.compare import compare_tables

    _, ours = trained
    plain = Vectors(ours.index_to_key[::2], ours.vectors[::2])  # every other word, its composed vector
    result = compare_tables(ours, plain, k=5)
    assert (result.shared, result.only_a, result.only_b) == (len(plain), len(ours) - len(plain), 0)
    assert result.residual == pytest.approx(0.0, abs=1e-6) and max(m.displacement for m in result.movers) < 1e-5


# ----- every subword file: NaN or ±inf is refused where it is used, a changed file is an error -------

SENTINEL = np.float32(1234.5)  # a value each file holds once (as float32 bytes), replaced by NaN or ±inf
WORDS = ["cat", "dog", "bird", "fish", "horse"]
STRANGER = "zebrafish"  # no row of its own: its vector is made from bucket rows alone
BUCKETS, DIM, MIN_N, MAX_N = 2000, 4, 3, 5


def _subword_table(floret: bool) -> SubwordVectors:
    rng = np.random.default_rng(0)
    word_rows = None if floret else rng.standard_normal((len(WORDS), DIM)).astype(np.float32)
    ngram_rows = rng.standard_normal((BUCKETS, DIM)).astype(np.float32)
    return SubwordVectors(WORDS, word_rows, ngram_rows, [5] * len(WORDS), min_n=MIN_N, max_n=MAX_N,
                          hash_count=2 if floret else None)  # fmt: skip


def _save_bin(table, folder):
    table.save(folder / "t.bin")
    return folder / "t.bin", folder / "t.bin"


def _save_run(table, folder):
    """A subword run folder as `embedlab train --subwords` leaves it: the table and subwords.safetensors."""
    from embedlab.vectors.io.run import RUN_SUBWORDS, RUN_TABLE, write_subwords

    out = folder / "run"
    out.mkdir()
    Vectors(table.index_to_key, table.vectors, table.counts).save(out / RUN_TABLE)
    write_subwords(out, table.word_rows, table.ngram_rows, np.ones(BUCKETS, np.int64), min_n=MIN_N,
                   max_n=MAX_N, hash_count=table.hash_count)  # fmt: skip
    return out, out / RUN_SUBWORDS


SUBWORD_FILES = {  # name -> (floret?, save(table, folder) -> (what load takes, the file holding the rows))
    "fastText .bin": (False, _save_bin),
    "floret .bin": (True, _save_bin),
    "fastText run folder": (False, _save_run),
    "floret run folder": (True, _save_run),
}
PLACES = ("word row", "bucket row of a word", "bucket row of an unseen word")


def _place(table: SubwordVectors, place: str) -> tuple[str, str]:
    """Put SENTINEL at `place` -> (the key whose vector reads it, the words the error must hold)."""
    if place == "word row":
        table._word_rows[1, 2] = SENTINEL
        return WORDS[1], r"row 1 \('dog'\) column 2 holds"
    words = [*WORDS] if place == "bucket row of a word" else [STRANGER]
    used = {int(b) for w in WORDS for b in ngram_buckets(w, MIN_N, MAX_N, BUCKETS, hash_count=table.hash_count)}
    mine = [int(b) for b in ngram_buckets(words[-1], MIN_N, MAX_N, BUCKETS, hash_count=table.hash_count)]
    bucket = next(b for b in mine if (b in used) == (place == "bucket row of a word"))
    table._ngram_rows[bucket, 3] = SENTINEL
    return words[-1], rf"bucket row {bucket} column 3 holds"


# every subword file with every kind of row it holds (floret keeps no word rows)
FILE_PLACES = [(source, place) for source in SUBWORD_FILES for place in PLACES
               if not (SUBWORD_FILES[source][0] and place == "word row")]  # fmt: skip


@pytest.mark.parametrize("value", [np.nan, np.inf])
@pytest.mark.parametrize(("source", "place"), FILE_PLACES)
def test_nan_or_inf_in_any_subword_file_is_refused_where_it_is_used(tmp_path, source, place, value):
    """Every subword file (fastText's and floret's .bin, a run folder of each), every kind of row it
    holds: the value is refused before it is used (a vector, a neighbour list), naming the row and
    column; and never written: saving a table holding it is refused."""
    floret, save = SUBWORD_FILES[source]
    table = _subword_table(floret)
    key, says = _place(table, place)
    path, rows_file = save(table, tmp_path)
    data = rows_file.read_bytes()
    assert data.count(SENTINEL.tobytes()) == 1
    rows_file.write_bytes(data.replace(SENTINEL.tobytes(), np.float32(value).tobytes()))
    loaded = load(path)
    assert isinstance(loaded, SubwordVectors)
    with pytest.raises(FileFormatError, match=says) as info:
        loaded.most_similar(key)  # a whole word's vector, or an unseen word's from its buckets
    assert str(path) in str(info.value)

    poisoned = _subword_table(floret)
    _place(poisoned, place)
    rows = poisoned._word_rows if place == "word row" else poisoned._ngram_rows
    rows[rows == SENTINEL] = value
    again = tmp_path / "again"
    again.mkdir()
    with pytest.raises(InvalidValueError, match=r"holds -?(nan|inf)"):  # FileFormatError is one too
        poisoned.save(again / "t.bin")
    assert list(again.iterdir()) == []


@pytest.mark.parametrize("source", SUBWORD_FILES)
def test_a_mapped_subword_file_that_changes_is_an_error_not_a_crash(tmp_path, source):
    """Every subword file whose rows are mapped: cut short or written again after loading, the next
    read through the mapping is FileChangedError saying how it changed, never SIGBUS (which would
    kill this test's process, failing it)."""
    floret, save = SUBWORD_FILES[source]
    path, rows_file = save(_subword_table(floret), tmp_path)
    table = load(path)
    assert len(table[STRANGER]) == DIM  # read through the mapping while it is whole
    with open(rows_file, "r+b") as f:
        f.truncate(64)  # in place: the same file, cut short under the mapping
    with pytest.raises(FileChangedError, match="size went from .* to 64 bytes"):
        table[STRANGER]
    with pytest.raises(FileChangedError):
        table.most_similar(WORDS[0])  # the first whole-word query composes from the mapped rows
