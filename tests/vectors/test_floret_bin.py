"""floret's mode and floret's .bin, against the `floret` package (explosion's fastText fork): a
model floret trained reads here with the vectors floret answers, for 50 words of its vocabulary
and 50 unseen ones (misspellings, non-ASCII); a table embedlab wrote reads in floret with ours; the
two Args layouts are told apart (the damaged-file cases of both run in test_fasttext_bin.py); and
the CLI answers for a floret .bin.
"""

from __future__ import annotations

import itertools
import json
import struct

import floret
import numpy as np
import pytest

from embedlab.data.corpora import open_corpus
from embedlab.errors import FileFormatError, InvalidValueError, UnknownKeyError
from embedlab.hashing import char_ngrams, ngram_buckets
from embedlab.vectors import SubwordVectors, load
from embedlab.vectors.io import read_table
from embedlab.vectors.io.fasttext import FastTextModel, read_fasttext, word_vectors, write_fasttext
from embedlab.vectors.io.fasttext_model import ARGS, MODES

SAME = {"rtol": 0, "atol": 1e-5}  # floret and embedlab both sum float32 rows: only the order differs
EOS = "</s>"
UNSEEN = [  # misspellings and inflections absent from 300 lines of enwiki-sample, and non-ASCII words
    *["recieve", "occured", "seperate", "goverment", "untill", "wich", "accomodate", "definately", "beleive"],
    *["enviroment", "tommorow", "neccessary", "embarassment", "existance", "publically", "unhappinesses"],
    *["anarchismically", "philosophizers", "reorganisationally", "xylophonists", "quizzically", "thx", "qj", "zz"],
    *["café", "naïveté", "résumé", "Zürich", "señorita", "coöperate", "straße", "Ærø", "ﬁnance", "Ελλάδα"],
    *["привет", "Москва", "日本語", "東京都", "한국어", "مرحبا", "שלום", "हिन्दी", "👍🏽ok", "ǅemal", "İstanbul"],
    *["Ĳssel", "þorn", "ðæt", "œuvre", "øre"],
]


def floret_vectors(model, words: list[str]) -> np.ndarray:
    """(n, D) what floret's get_word_vector answers for `words`."""
    return np.array([model.get_word_vector(w) for w in words])


def sample_words(words: list[str]) -> tuple[list[str], list[str]]:
    """50 words of a vocabulary (its first, which floret lets keep its row, and "</s>" among them),
    spread over its counts, and the 50 unseen."""
    known = list(dict.fromkeys([words[0], EOS, *[words[i] for i in np.linspace(1, len(words) - 1, 48).astype(int)]]))
    unseen = [w for w in UNSEEN if w not in set(words)]
    assert len(known) == 50 and len(unseen) == 50
    return known, unseen


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(floret's model, its .bin): floret's mode, 2 hashes a key, 1,000 buckets, 3..5-grams."""
    corpus = tmp_path_factory.mktemp("floret") / "lines.txt"
    corpus.write_text("".join(f"{line}\n" for line in itertools.islice(open_corpus("enwiki-sample"), 300)))
    model = floret.train_unsupervised(
        str(corpus),
        model="skipgram",
        mode="floret",
        hashCount=2,
        bucket=1000,
        minn=3,
        maxn=5,
        dim=8,
        epoch=1,
        minCount=2,
        thread=1,
        verbose=0,
    )
    path = corpus.parent / "F.bin"
    model.save_model(str(path))
    return model, path


# ----- reading what floret wrote -----------------------------------------------------------------


def test_a_bin_floret_wrote_reads_as_floret_answers(trained):
    model, path = trained
    read = read_fasttext(path)
    assert read.args["mode"] == MODES["floret"] and read.hash_count == 2 and read.words == model.words
    assert (read.buckets, read.min_n, read.max_n, read.dim) == (1000, 3, 5, 8)
    table = load(path)
    assert isinstance(table, SubwordVectors) and table.hash_count == 2 and table.word_rows is None
    assert table.index_to_key == model.words and table.ngram_rows.shape == (1000, 8)
    known, unseen = sample_words(model.words)
    assert known[0] == "the" != EOS  # the first word is not "</s>": floret's quirk (its own row) is exercised
    np.testing.assert_allclose(
        np.array([table[w] for w in known + unseen]), floret_vectors(model, known + unseen), **SAME
    )
    assert [table.source(w) for w in known] == ["word"] * 50 and all(table.source(w) == "ngrams" for w in unseen)
    assert all(table.has_index_for(w) for w in known) and not any(table.has_index_for(w) for w in unseen)
    assert all(w in table for w in known + unseen)
    # every whole word at once (read_table's path, and `vectors`) equals what floret answers
    everything = floret_vectors(model, model.words)
    np.testing.assert_allclose(table.vectors, everything, **SAME)
    np.testing.assert_allclose(read_table(path).vectors, everything, **SAME)
    np.testing.assert_allclose(word_vectors(read), everything, **SAME)


def test_an_unseen_floret_vector_is_the_mean_of_its_hashed_rows_whole_word_first(trained):
    _, path = trained
    table = load(path)
    ids = ngram_buckets("recieve", 3, 5, 1000, hash_count=2)
    assert len(ids) == 2 * (1 + len(char_ngrams("recieve", 3, 5)))  # "<recieve>", then each n-gram, twice
    np.testing.assert_allclose(table["recieve"], table.ngram_rows[ids].mean(axis=0), rtol=0, atol=1e-6)
    assert EOS in table.key_to_index and not table[EOS].any()  # floret gives "</s>" (not first) zeros, as here


def test_a_floret_table_refuses_words_it_cannot_make(tmp_path):
    rows = np.ones((50, 4), np.float32)
    table = SubwordVectors(["cat", "dog"], None, rows, min_n=3, max_n=5, hash_count=2, bucket_counts=[1] * 50)
    assert table.source("caat") == "ngrams" and table.source("a") == "ngrams"  # "<a>" itself is hashed
    with pytest.raises(UnknownKeyError, match="no character n-gram"):
        table.source(EOS)  # floret hashes nothing of "</s>", not even the whole word
    unused = SubwordVectors(["cat"], None, rows, hash_count=2, bucket_counts=np.zeros(50, np.int64))
    with pytest.raises(UnknownKeyError, match="none of the buckets"):
        unused["dog"]
    assert "dog" not in unused and "cat" in unused


def test_a_floret_file_in_fasttexts_mode_reads_with_fasttexts_hashing(tmp_path, trained):
    _, floret_path = trained
    corpus = floret_path.parent / "lines.txt"
    model = floret.train_unsupervised(
        str(corpus), model="cbow", bucket=500, minn=2, maxn=4, dim=8, epoch=1, minCount=2, thread=1, verbose=0
    )
    path = tmp_path / "fasttext-mode.bin"
    model.save_model(str(path))
    read = read_fasttext(path)
    assert read.args["mode"] == MODES["fasttext"] and read.hash_count is None  # floret's Args, fastText's hashing
    table = load(path)
    assert table.hash_count is None and table.word_rows.shape == (len(model.words), 8)
    known, unseen = sample_words(model.words)
    np.testing.assert_allclose(
        np.array([table[w] for w in known + unseen]), floret_vectors(model, known + unseen), **SAME
    )
    # written again, it is fastText's own layout: the Args without mode and hashCount
    again = tmp_path / "again.bin"
    table.save(again)
    assert list(read_fasttext(again).args) == list(ARGS)
    np.testing.assert_allclose(load(again).vectors, table.vectors, **SAME)


# ----- writing: floret reads what embedlab wrote -------------------------------------------------


def test_a_floret_table_embedlab_made_reads_in_floret_with_our_vectors(trained, tmp_path):
    model, _ = trained
    rng = np.random.default_rng(0)
    words = [model.words[i] for i in rng.permutation(len(model.words))]  # another first word
    rows = rng.normal(0, 0.3, (700, 8)).astype(np.float32)
    table = SubwordVectors(words, None, rows, np.arange(len(words)) + 1, min_n=2, max_n=4, hash_count=3)
    assert table.buckets == 700 and table.word_rows is None and words[0] != EOS
    ids = ngram_buckets(words[5], 2, 4, 700, hash_count=3)
    np.testing.assert_allclose(table[words[5]], rows[ids].mean(axis=0), rtol=0, atol=1e-6)
    path = tmp_path / "ours.bin"
    assert table.save(path) == [path]
    read = read_fasttext(path)
    assert (read.hash_count, read.min_n, read.max_n, read.buckets) == (3, 2, 4, 700)
    assert read.words == words and read.counts.tolist() == table.counts.tolist()
    np.testing.assert_array_equal(read.ngram_rows, rows)
    assert not read.word_rows[1:].any()  # floret reads no word row but the first
    theirs = floret.load_model(str(path))
    assert theirs.words == words
    known, unseen = sample_words(words)
    np.testing.assert_allclose(
        floret_vectors(theirs, known + unseen), np.array([table[w] for w in known + unseen]), **SAME
    )
    back = load(path)
    assert back.hash_count == 3 and back.index_to_key == words
    np.testing.assert_allclose(back.vectors, table.vectors, **SAME)


def test_floret_to_embedlab_to_floret_keeps_every_vector(trained, tmp_path):
    model, path = trained
    again = tmp_path / "again.bin"
    load(path).save(again)
    theirs = floret.load_model(str(again))
    known, unseen = sample_words(model.words)
    np.testing.assert_allclose(floret_vectors(theirs, known + unseen), floret_vectors(model, known + unseen), **SAME)
    hashing = ["dim", "bucket", "minn", "maxn", "mode", "hashCount"]
    assert [read_fasttext(again).args[k] for k in hashing] == [read_fasttext(path).args[k] for k in hashing]


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"word_rows": np.ones((2, 4), np.float32)}, "word_rows must be None in floret's mode"),
        ({"hash_count": 5}, "hash_count"),
        ({"hash_count": None}, "a .V, d. matrix otherwise"),
    ],
)
def test_a_floret_table_names_what_is_wrong(given, named):
    args = {"word_rows": None, "hash_count": 2} | given
    with pytest.raises(InvalidValueError, match=named):
        SubwordVectors(["cat", "dog"], args["word_rows"], np.ones((5, 4), np.float32), hash_count=args["hash_count"])


# ----- the two layouts of the Args -----------------------------------------------------------------


def _floret_bin(tmp_path, **args) -> tuple[bytes, dict]:
    """The bytes of a small floret .bin embedlab wrote, with `args` changed in its Args."""
    rows = np.arange(24, dtype=np.float32).reshape(6, 4)
    model = FastTextModel.from_arrays(["cat", "cot", "dög", EOS], rows[:4], rows[4:], min_n=2, max_n=3, hash_count=2)
    model = FastTextModel(model.args | args, model.words, model.counts, model.entry_types, model.input, model.output)
    return write_fasttext(model, tmp_path / "small.bin").read_bytes(), model.args


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("mode", 3, "expected the argument mode 1 (fastText) or 2 (floret); found 3"),
        ("hashCount", 0, "expected the argument hashCount 1..4; found 0"),
        ("hashCount", 5, "expected the argument hashCount 1..4; found 5"),
    ],
)
def test_floret_fields_out_of_range_are_refused_in_floret_terms(tmp_path, field, value, says):
    data, args = _floret_bin(tmp_path)
    at = 8 + 4 * list(args).index(field)
    path = tmp_path / "bad.bin"
    path.write_bytes(data[:at] + struct.pack("<i", value) + data[at + 4 :])
    with pytest.raises(FileFormatError) as info:
        read_fasttext(path)
    assert str(info.value) == f"{path} byte 8: {says}"
    with pytest.raises(InvalidValueError, match=field):  # and embedlab never writes one
        _floret_bin(tmp_path, **{field: value})


def test_a_header_that_reads_both_ways_is_refused(tmp_path):
    # an empty model whose lrUpdateRate (2) and t (its low int32 2) read as floret's mode and hashCount,
    # and whose dictionary sizes (all 0) add up at both places: nothing in the file says which it is
    t = struct.unpack("<d", struct.pack("<ii", 2, 100))[0]
    model = FastTextModel.from_arrays([], np.zeros((0, 4)), np.ones((3, 4)))
    model = FastTextModel(model.args | {"lrUpdateRate": 2, "t": t}, [], [], [], model.input, model.output, 0)
    path = write_fasttext(model, tmp_path / "both.bin")
    with pytest.raises(FileFormatError) as info:
        read_fasttext(path)
    assert str(info.value).startswith(f"{path} byte 8: expected the header of one layout, fastText's or floret's")


# ----- the command line ----------------------------------------------------------------------------


def test_neighbors_of_an_unseen_word_in_a_floret_bin_say_it_came_from_ngrams(trained, run_cli):
    _, path = trained
    status, out, err = run_cli("neighbors", str(path), "anarchismically", "-k", "3", "--json")
    assert status == 0, err
    answer = json.loads(out)
    assert answer["from"] == {"anarchismically": "ngrams"} and len(answer["neighbors"]) == 3
    expected = load(path).most_similar("anarchismically", topn=3)
    assert [n["key"] for n in answer["neighbors"]] == [key for key, _ in expected]


def test_export_of_a_floret_table_writes_floret_bin_and_word2vec_text(trained, tmp_path, run_cli):
    model, path = trained
    status, out, err = run_cli("export", str(path), "--out", str(tmp_path / "a.bin"), "--json")
    assert status == 0, err
    assert json.loads(out)["format"] == "fasttext" and read_fasttext(tmp_path / "a.bin").hash_count == 2
    known, unseen = sample_words(model.words)
    theirs = floret.load_model(str(tmp_path / "a.bin"))
    np.testing.assert_allclose(floret_vectors(theirs, known + unseen), floret_vectors(model, known + unseen), **SAME)
    status, out, err = run_cli("export", str(path), "--out", str(tmp_path / "a.vec"), "--json")
    assert status == 0, err
    vec = read_table(tmp_path / "a.vec")  # word2vec text, what floret's save_vectors writes (to 5 digits)
    assert vec.keys == model.words
    np.testing.assert_allclose(vec.vectors, floret_vectors(model, model.words), **SAME)


def test_export_writes_floret_text_vectors_by_extension_and_refuses_a_plain_table(trained, tmp_path, run_cli):
    model, path = trained
    out = tmp_path / "a.floret"
    status, stdout, err = run_cli("export", str(path), "--out", str(out), "--json")
    assert status == 0, err
    assert json.loads(stdout)["format"] == "floret" and json.loads(stdout)["files"] == [str(out)]
    assert out.read_text().splitlines()[0] == "1000 8 3 5 2 2166136261 < >"  # floret's header, as its tool writes
    status, stdout, err = run_cli("export", str(path), "--out", str(out))
    assert status == 2 and "--force" in err  # an existing file is replaced only with --force
    plain = tmp_path / "plain.vec"
    run_cli("export", str(path), "--out", str(plain))
    status, stdout, err = run_cli("export", str(plain), "--out", str(tmp_path / "plain.floret"))
    assert status == 2 and "cannot write" in err and "floret's text vectors" in err
    assert not (tmp_path / "plain.floret").exists()


def test_a_floret_table_saves_floret_text_vectors_as_floret_does(trained, tmp_path):
    model, path = trained
    theirs, ours = tmp_path / "theirs.floret", tmp_path / "ours.floret"
    model.save_floret_vectors(str(theirs))
    table = load(path)
    assert table.save_format(ours) == "floret" and table.save(ours) == [ours]
    their_lines, our_lines = theirs.read_text().splitlines(), ours.read_text().splitlines()
    assert our_lines[0] == their_lines[0] == "1000 8 3 5 2 2166136261 < >"
    assert len(our_lines) == len(their_lines) == 1001
    rows = [np.array(line.split(), dtype=np.float64) for line in our_lines[1:]]
    np.testing.assert_array_equal(np.array(rows)[:, 1:].astype(np.float32), table.ngram_rows)  # exact decimals
    printed = np.array([line.split() for line in their_lines[1:]], dtype=np.float64)  # 5 significant digits
    np.testing.assert_array_equal(printed[:, 0], np.arange(1000))
    np.testing.assert_allclose(np.array(rows), printed, rtol=5e-5, atol=1e-5)
    # a fastText table has word rows of its own, which floret's text vectors cannot hold
    plain = SubwordVectors(["cat"], np.ones((1, 8), np.float32), np.ones((10, 8), np.float32))
    with pytest.raises(InvalidValueError, match="floret's text vectors"):
        plain.save(tmp_path / "plain.floret")
    assert not (tmp_path / "plain.floret").exists()
