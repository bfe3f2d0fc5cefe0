"""fastText's .bin, against the two programs that read and write it: the fastText 0.9.2 tool
(Debian's /usr/bin/fasttext) and gensim (load_facebook_model, save_facebook_model).

Each model's vectors are composed here with embedlab.hashing (the mean of a word's own row and
its n-gram bucket rows) for 50 words of the vocabulary and 50 unseen ones (misspellings,
non-ASCII), and compared with what the tool's print-word-vectors and gensim answer for the same
file: a file the tool wrote, one gensim wrote, and one embedlab wrote. Then every way a file can
be damaged, each an error naming the file, what was expected and where.
"""

from __future__ import annotations

import itertools
import json
import mmap
import shutil
import struct
import subprocess

import numpy as np
import pytest
from gensim.models.fasttext import FastText, load_facebook_model, save_facebook_model
from tests.vectors.tool_models import PRINTED, print_word_vectors, require_tool

from embedlab.data.corpora import open_corpus
from embedlab.errors import FileFormatError, InvalidValueError
from embedlab.hashing import ngram_buckets
from embedlab.vectors import SubwordVectors, load
from embedlab.vectors.io import Table, detect_format, read_table, write_table
from embedlab.vectors.io.fasttext import (
    FastTextModel,
    is_fasttext,
    read_fasttext,
    word_vectors,
    write_fasttext,
)
from embedlab.vectors.io.fasttext_model import MODELS

SUMMED = {"rtol": 0, "atol": 1e-5}  # gensim and embedlab both sum float32 rows: only the order differs
EOS = "</s>"  # gensim gives "</s>" n-grams, fastText does not (its vector is its row): left out against gensim
UNSEEN = [  # misspellings and inflections absent from a 2,000-line corpus, and non-ASCII words
    *["recieve", "occured", "seperate", "goverment", "untill", "wich", "accomodate", "definately", "beleive"],
    *["enviroment", "tommorow", "neccessary", "embarassment", "existance", "publically", "unhappinesses"],
    *["anarchismically", "philosophizers", "reorganisationally", "xylophonists", "quizzically", "thx", "qj", "zz"],
    *["café", "naïveté", "résumé", "Zürich", "señorita", "coöperate", "straße", "Ærø", "ﬁnance", "Ελλάδα"],
    *["привет", "Москва", "日本語", "東京都", "한국어", "مرحبا", "שלום", "हिन्दी", "👍🏽ok", "ǅemal", "İstanbul"],
    *["Ĳssel", "þorn", "ðæt", "œuvre", "øre"],
]


def composed(model: FastTextModel, words: list[str]) -> np.ndarray:
    """(n, D) each word's vector by embedlab.hashing, one word at a time: its own row (if it has
    one) and its n-grams' bucket rows, averaged, as fastText's getWordVector."""
    index = {w: i for i, w in enumerate(model.words[: model.nwords])}
    rows = []
    for word in words:
        ids = ngram_buckets(word, model.min_n, model.max_n, model.buckets) if model.max_n else []
        own = [model.word_rows[index[word]]] if word in index else []
        rows.append(np.mean(np.array([*own, *model.ngram_rows[ids]], dtype=np.float64), axis=0))
    return np.array(rows)


def sample_words(model: FastTextModel) -> tuple[list[str], list[str]]:
    """50 words of the model's vocabulary ("</s>" among them), spread over its counts, and the 50 unseen."""
    vocab = model.words[: model.nwords]
    known = [vocab[i] for i in np.linspace(0, len(vocab) - 1, 49).astype(int)]
    known = list(dict.fromkeys([EOS, *known]))
    unseen = [w for w in UNSEEN if w not in set(vocab)]
    assert len(known) >= 45 and len(unseen) == 50
    return known, unseen


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "wiki-2k.txt"
    path.write_text("".join(f"{line}\n" for line in itertools.islice(open_corpus("enwiki-sample"), 2000)))
    return path


@pytest.fixture(scope="module")
def tool_bin(corpus):
    """A skipgram model the fastText tool trained: M.bin and M.vec."""
    out = corpus.parent / "M"
    command = [require_tool(), "skipgram", "-input", str(corpus), "-output", str(out), "-dim", "16", "-epoch", "1"]
    command += ["-minCount", "2", "-bucket", "10000", "-thread", "1", "-verbose", "0"]
    subprocess.run(command, check=True, capture_output=True)
    return out.with_suffix(".bin")


@pytest.fixture(scope="module")
def gensim_model(corpus):
    """(gensim's FastText trained on the corpus, the .bin save_facebook_model wrote of it)."""
    sentences = [line.split() for line in corpus.read_text().splitlines()]
    model = FastText(sentences, vector_size=16, min_count=2, epochs=1, bucket=10000, min_n=2, max_n=5, workers=1)
    path = corpus.parent / "G.bin"
    save_facebook_model(model, str(path))
    return model, path


# ----- reading what the tool and gensim wrote ------------------------------------------------------


def test_a_model_the_tool_wrote_reads_as_the_tool_and_gensim_answer(tool_bin):
    model = read_fasttext(tool_bin)
    assert model.args | {"t": 0} == {
        **{"dim": 16, "ws": 5, "epoch": 1, "minCount": 2, "neg": 5, "wordNgrams": 1, "loss": 2, "model": 2},
        **{"bucket": 10000, "minn": 3, "maxn": 6, "lrUpdateRate": 100, "t": 0},
    }
    assert model.input.shape == (model.nwords + 10000, 16) and model.output.shape == (model.nwords, 16)
    assert (model.entry_types == 0).all() and model.words[0] == "the" and EOS in model.words
    known, unseen = sample_words(model)
    ours = composed(model, known + unseen)
    np.testing.assert_allclose(ours, print_word_vectors(tool_bin, known + unseen), **PRINTED)
    gensim = load_facebook_model(str(tool_bin)).wv
    both = [w for w in known + unseen if w != EOS]
    np.testing.assert_allclose(composed(model, both), np.array([gensim[w] for w in both]), **SUMMED)
    # the whole vocabulary at once (read_table's path) equals word by word
    np.testing.assert_allclose(word_vectors(model)[: len(known)], composed(model, model.words[: len(known)]), **SUMMED)


def test_the_matrices_are_mapped_read_only_not_copied(tool_bin):
    model = read_fasttext(tool_bin)
    for matrix in (model.input, model.output, model.word_rows, model.ngram_rows):
        base = matrix
        while isinstance(base, np.ndarray):
            base = base.base
        assert isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)
        assert not matrix.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            matrix[0, 0] = 1.0


def test_a_model_gensim_wrote_reads_as_gensim_and_the_tool_answer(gensim_model):
    trained, path = gensim_model
    model = read_fasttext(path)
    assert (model.min_n, model.max_n, model.buckets, model.dim) == (2, 5, 10000, 16)
    assert model.words == trained.wv.index_to_key
    np.testing.assert_array_equal(model.ngram_rows, trained.wv.vectors_ngrams)
    known, unseen = sample_words(model)
    known = [w for w in known if w != EOS]  # gensim's corpus has no "</s>"
    ours = composed(model, known + unseen)
    np.testing.assert_allclose(ours, np.array([trained.wv[w] for w in known + unseen]), **SUMMED)
    np.testing.assert_allclose(ours, print_word_vectors(path, known + unseen), **PRINTED)


def test_a_supervised_model_reads_with_its_labels(corpus):
    labelled = corpus.parent / "labelled.txt"
    lines = corpus.read_text().splitlines()[:300]
    labelled.write_text("".join(f"__label__{i % 3} {line}\n" for i, line in enumerate(lines)))
    out = corpus.parent / "S"
    command = [require_tool(), "supervised", "-input", str(labelled), "-output", str(out), "-dim", "8"]
    subprocess.run(
        [*command, "-bucket", "1000", "-minn", "2", "-maxn", "4", "-thread", "1"], check=True, capture_output=True
    )
    model = read_fasttext(out.with_suffix(".bin"))
    assert model.args["model"] == MODELS["supervised"] and model.output.shape == (3, 8)
    assert sorted(model.words[model.nwords :]) == ["__label__0", "__label__1", "__label__2"]
    assert model.entry_types.tolist() == [0] * model.nwords + [1] * 3
    words = model.words[:20] + ["unseenword", "naïve"]
    np.testing.assert_allclose(composed(model, words), print_word_vectors(out.with_suffix(".bin"), words), **PRINTED)


# ----- writing: the tool and gensim read what embedlab wrote ---------------------------------------


def test_a_model_embedlab_wrote_reads_in_the_tool_and_gensim(tool_bin, tmp_path):
    tool = read_fasttext(tool_bin)
    rng = np.random.default_rng(0)
    # another model from plain arrays: the words in another order, other rows, fewer buckets, n-grams 2-4
    order = rng.permutation(tool.nwords)
    words = [tool.words[i] for i in order]
    word_rows = tool.word_rows[order] * 0.5 + rng.normal(0, 0.05, (tool.nwords, 16)).astype(np.float32)
    ngram_rows = tool.ngram_rows[:5000] + rng.normal(0, 0.05, (5000, 16)).astype(np.float32)
    ours = FastTextModel.from_arrays(words, word_rows, ngram_rows, tool.counts[order], min_n=2, max_n=4, model="cbow")
    path = write_fasttext(ours, tmp_path / "ours.bin")
    back = read_fasttext(path)
    assert back.args == ours.args and back.words == words and back.ntokens == int(tool.counts.sum())
    np.testing.assert_array_equal(back.counts, tool.counts[order])
    np.testing.assert_array_equal(back.input, np.concatenate([word_rows, ngram_rows]))
    np.testing.assert_array_equal(back.output, np.zeros((tool.nwords, 16), np.float32))

    known, unseen = sample_words(back)
    ours_vectors = composed(back, known + unseen)
    np.testing.assert_allclose(ours_vectors, print_word_vectors(path, known + unseen), **PRINTED)
    gensim = load_facebook_model(str(path))
    assert gensim.wv.index_to_key == words and (gensim.wv.min_n, gensim.wv.max_n, gensim.sg) == (2, 4, 0)
    both = [w for w in known + unseen if w != EOS]
    np.testing.assert_allclose(composed(back, both), np.array([gensim.wv[w] for w in both]), **SUMMED)


def test_a_model_without_ngrams_round_trips(tmp_path):
    rows = np.arange(12, dtype=np.float32).reshape(3, 4)
    model = FastTextModel.from_arrays(["cat", "dog", EOS], rows, np.zeros((0, 4)), [5, 3, 9], max_n=0)
    back = read_fasttext(write_fasttext(model, tmp_path / "plain.bin"))
    assert (back.buckets, back.max_n) == (0, 0)
    np.testing.assert_array_equal(word_vectors(back), rows)
    np.testing.assert_allclose(print_word_vectors(tmp_path / "plain.bin", ["dog", "unseen"]), [rows[1], np.zeros(4)])


def test_a_refused_write_leaves_the_file_as_it_was(tmp_path):
    path = tmp_path / "m.bin"
    path.write_bytes(b"old")
    rows = np.ones((2, 4), np.float32)
    for words, counts, named in [(["cat", "two words"], [1, 1], "'two words'"), (["cat", "dog"], [1, 0], "count 0")]:
        model = FastTextModel.from_arrays(words, rows, np.zeros((5, 4)), counts)
        with pytest.raises(InvalidValueError, match=named):
            write_fasttext(model, path)
        assert path.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"min_n": 5, "max_n": 4}, "minn 1..maxn"),
        ({"counts": [1, 2, 3]}, "one count"),
        ({"word_rows": np.ones((2, 3))}, "same D"),
        ({"words": ["cat"]}, "1 words for 2 word rows"),
        ({"model": "supervised"}, "model must be one of"),
        ({"ngram_rows": np.zeros((0, 4))}, "bucket >= 1 when maxn > 0"),
    ],
)
def test_from_arrays_names_what_is_wrong(change, named):
    given = {"words": ["cat", "dog"], "word_rows": np.ones((2, 4)), "ngram_rows": np.zeros((5, 4))} | change
    with pytest.raises(InvalidValueError, match=named):
        FastTextModel.from_arrays(**given)


# ----- .vec files, read_table and detection --------------------------------------------------------


def test_the_tools_vec_file_and_read_table_give_the_composed_vectors(tool_bin, tmp_path):
    model = read_fasttext(tool_bin)
    vec = read_table(tool_bin.with_suffix(".vec"))  # word2vec text, written by the tool beside M.bin
    table = read_table(tool_bin)
    assert vec.keys == table.keys == model.words[: model.nwords]
    assert table.counts == model.counts.tolist()
    np.testing.assert_allclose(vec.vectors, table.vectors, **PRINTED)
    np.testing.assert_allclose(table.vectors, composed(model, table.keys), **SUMMED)
    # without an extension, the magic number tells it
    shutil.copy(tool_bin, tmp_path / "model")
    assert detect_format(tmp_path / "model") == "fasttext"
    np.testing.assert_array_equal(read_table(tmp_path / "model").vectors, table.vectors)


def test_a_bin_is_told_from_word2vec_binary_by_the_magic_number(tool_bin, tmp_path):
    w2v = tmp_path / "w2v.bin"
    write_table(Table(["cat", "dog"], np.ones((2, 4))), w2v)
    assert detect_format(tool_bin) == "fasttext" and detect_format(w2v) == "word2vec-bin"
    assert is_fasttext(tool_bin) and not is_fasttext(w2v)
    assert not is_fasttext(tmp_path) and not is_fasttext(tmp_path / "missing.bin")
    with pytest.raises(FileFormatError, match=r"w2v.bin: expected a fastText model .*; found a word2vec file"):
        read_fasttext(w2v)


# ----- damaged files -------------------------------------------------------------------------------


def assert_plain(message: str, path, *words: str) -> None:
    """The message names the file, says what was expected, in printable words, and holds `words`."""
    assert str(path) in message and "expected" in message, message
    assert message.isprintable() and "\\x" not in message and "b'" not in message, message
    for word in words:
        assert word in message, message


@pytest.fixture(scope="module", params=[None, 2], ids=["fastText", "floret"])
def small_bin(tmp_path_factory, request):
    """A small model embedlab wrote (4 words, 2 buckets, D = 4), in fastText's layout and in floret's
    (hash_count 2: two more int32 in its Args): bytes to damage, and where its parts start."""
    rows = np.arange(24, dtype=np.float32).reshape(6, 4)
    words = ["cat", "cot", "dög", EOS]
    model = FastTextModel.from_arrays(
        words, rows[:4], rows[4:], [5, 3, 2, 9], min_n=2, max_n=3, hash_count=request.param
    )
    path = write_fasttext(model, tmp_path_factory.mktemp("small") / "small.bin")
    data = path.read_bytes()
    dictionary = 64 if request.param is None else 72  # magic, version, 12 int32 (floret: 14) and a float64
    entries = dictionary + 28
    quant = entries + len("".join(f"{w}\0" for w in words).encode()) + 4 * 9
    output = quant + 1 + 16 + 6 * 4 * 4
    assert len(data) == output + 1 + 16 + 4 * 4 * 4
    return data, {"dictionary": dictionary, "entries": entries, "quant": quant, "output": output}


def damaged(tmp_path, data: bytes, at: int = 0, new: bytes = b"", cut: int | None = None):
    """`data` with `new` written over it at byte `at`, cut to `cut` bytes, saved as tmp_path/bad.bin."""
    data = data[:at] + new + data[at + len(new) :]
    path = tmp_path / "bad.bin"
    path.write_bytes(data[:cut])
    return path


def test_a_file_cut_anywhere_says_it_is_cut_short(small_bin, tmp_path):
    data, _ = small_bin
    assert read_fasttext(damaged(tmp_path, data)).nwords == 4
    for cut in range(len(data)):
        path = damaged(tmp_path, data, cut=cut)
        with pytest.raises(FileFormatError) as info:
            read_fasttext(path)
        message = str(info.value)
        if cut == 0:
            assert_plain(message, path, "found an empty file")
        elif cut < 4:
            assert_plain(message, path, f"ends after {cut} bytes")
        else:
            assert_plain(message, path, "cut short", "byte ")


def test_a_big_model_cut_in_its_matrix_is_refused_before_mapping(tool_bin, tmp_path):
    data = tool_bin.read_bytes()
    for cut in (len(data) // 2, len(data) - 1):
        with pytest.raises(FileFormatError) as info:
            read_fasttext(damaged(tmp_path, data, cut=cut))
        assert_plain(str(info.value), tmp_path / "bad.bin", "matrix", "float32", "cut short")


def _arg(name: str) -> int:
    return 8 + 4 * [
        "dim",
        "ws",
        "epoch",
        "minCount",
        "neg",
        "wordNgrams",
        "loss",
        "model",
        "bucket",
        "minn",
        "maxn",
    ].index(name)


DAMAGE = {  # name -> (offset, or a part of small_bin; bytes written there; what the message says)
    "magic": (0, b"\x00\x00\x00\x00", "expected a fastText model (.bin, starting with the magic number 793712314)"),
    "version 11": (4, struct.pack("<i", 11), "byte 4: expected fastText's file format version 12"),
    "version 13": (4, struct.pack("<i", 13), "found version 13"),
    "dim 0": (_arg("dim"), struct.pack("<i", 0), "expected the argument dim >= 1; found 0"),
    "dim 5": (_arg("dim"), struct.pack("<i", 5), "expected the input matrix of shape (6, 5); found (6, 4)"),
    "minn > maxn": (_arg("minn"), struct.pack("<i", 4), "expected the argument minn 1..maxn (3); found 4"),
    "negative bucket": (_arg("bucket"), struct.pack("<i", -1), "bucket 0..2147483647; found -1"),
    "bucket disagrees with rows": (_arg("bucket"), struct.pack("<i", 3), "input matrix of shape (7, 4); found (6, 4)"),
    "entries": ("dictionary", struct.pack("<i", 5), "nwords + nlabels entries; found 5 entries, nwords 4"),
    "entries beyond the file": (
        "dictionary",
        struct.pack("<ii", 2**31 - 1, 2**31 - 1),
        "expected 2,147,483,647 dictionary entries of at least 10 bytes each",
    ),
    "nwords": ("dictionary", struct.pack("<iii", 4, 3, 1), "expected 3 words (entry type 0)"),
    "entry type": ("entries", b"cat\0" + bytes(8) + b"\x07", "entry type 0 (word) or 1 (label) for 'cat'; found 7"),
    "pruned": ("dictionary", struct.pack("<iiiqq", 4, 4, 0, 19, 0), "expected an unpruned dictionary"),
    # a .bin whose flag says quantized: the dense shape's first byte (rows, 6) is read as the qnorm flag
    "quantized": ("quant", b"\x01", "expected the input matrix's qnorm flag (a byte 0 or 1); found 6"),
    "flag": ("quant", b"\x02", "quantization flag (a byte 0 or 1); found 2"),
    "output quantized": ("output", b"\x01", "expected an unquantized output matrix"),
    "not UTF-8": ("entries", b"\xff", "expected UTF-8 text in word 0; found the byte 0xff"),
    "duplicate": ("entries", b"cat\0" + struct.pack("<qb", 5, 0) + b"cat", "'cat' is entry 0 and 1"),
}


@pytest.mark.parametrize("name", DAMAGE)
def test_each_damage_names_the_file_what_was_expected_and_where(small_bin, tmp_path, name):
    data, parts = small_bin
    at, new, says = DAMAGE[name]
    at = parts.get(at, at)
    path = damaged(tmp_path, data, at, new)
    with pytest.raises(FileFormatError) as info:
        read_fasttext(path)
    assert_plain(str(info.value), path, says)
    if name not in ("magic",):
        assert "byte " in str(info.value)
    with pytest.raises(FileFormatError) as info:  # read_table finds it by its magic number, or names both
        read_table(path)
    if name == "magic":  # no magic number: the .bin is named as fastText's or word2vec's, not as word2vec's alone
        assert "expected a fastText model" in str(info.value) and "or word2vec binary" in str(info.value), info.value
        assert "first 4 bytes are 00 00 00 00" in str(info.value)


def test_sizes_beyond_the_file_are_refused_before_mapping(small_bin, tmp_path):
    data, parts = small_bin
    # 2**31 - 1 buckets, and an input matrix that says so: 34 GB of float32 the file does not hold
    path = damaged(tmp_path, data, _arg("bucket"), struct.pack("<i", 2**31 - 1))
    path = damaged(tmp_path, path.read_bytes(), parts["quant"] + 1, struct.pack("<q", 4 + 2**31 - 1))
    with pytest.raises(FileFormatError) as info:
        read_fasttext(path)
    assert_plain(str(info.value), path, "expected the input matrix's 2,147,483,651 x 4 float32 (34,359,738,416 bytes)")
    assert "cut short" in str(info.value)


def test_trailing_bytes_and_the_tools_quantized_file_is_read(small_bin, tool_bin, tmp_path):
    data, _ = small_bin
    path = damaged(tmp_path, data + b"\x00" * 7)
    with pytest.raises(FileFormatError) as info:
        read_fasttext(path)
    assert_plain(str(info.value), path, "expected the file to end after the output matrix; 7 more bytes follow")
    # a real .ftz: `fasttext quantize` only quantizes supervised models
    labelled = tmp_path / "labelled.txt"
    labelled.write_text("".join(f"__label__{i % 2} word{i % 7} other{i % 5}\n" for i in range(200)))
    out = tmp_path / "q"
    supervised = ["supervised", "-dim", "4", "-bucket", "300", "-minn", "2", "-maxn", "3", "-thread", "1"]
    for command in (supervised, ["quantize", "-dsub", "2"]):  # quantizing needs >= 256 rows: words and buckets
        subprocess.run(
            [require_tool(), *command, "-input", str(labelled), "-output", str(out)], check=True, capture_output=True
        )
    model = read_fasttext(out.with_suffix(".ftz"))  # tests/vectors/test_ftz.py checks its rows against the tool
    assert model.quantized and model.input.shape == (model.nwords + 300, 4) and model.pruneidx is None
    table = read_table(out.with_suffix(".ftz"))  # told by its magic number; its words' vectors decoded
    assert table.keys == model.words[: model.nwords] and table.vectors.shape == (model.nwords, 4)
    with pytest.raises(FileFormatError) as info:
        read_fasttext(damaged(tmp_path, out.with_suffix(".ftz").read_bytes() + b"\x00"))
    assert_plain(str(info.value), tmp_path / "bad.bin", "expected the file to end after the output matrix; 1 more")


# ----- as a table that answers any word: embedlab.vectors.load and SubwordVectors.save ---------------


def test_load_gives_a_table_that_answers_unseen_words_as_the_tool_does(tool_bin):
    table = load(tool_bin)
    assert isinstance(table, SubwordVectors) and (table.min_n, table.max_n, table.buckets) == (3, 6, 10000)
    known, unseen = sample_words(read_fasttext(tool_bin))
    assert all(table.source(w) == "word" for w in known) and all(table.source(w) == "ngrams" for w in unseen)
    ours = np.array([table[w] for w in known + unseen])
    np.testing.assert_allclose(ours, print_word_vectors(tool_bin, known + unseen), **PRINTED)
    assert load(tool_bin).most_similar("recieve", topn=3).keys  # whole words rank for an unseen one


def test_a_table_saved_as_bin_reads_the_same_in_gensim_the_tool_and_embedlab(tool_bin, tmp_path):
    table = load(tool_bin)
    path = tmp_path / "again.bin"
    assert table.save(path) == [path] and is_fasttext(path)  # a .bin of a subword table is fastText's
    known, unseen = sample_words(read_fasttext(tool_bin))
    ours = np.array([table[w] for w in known + unseen])
    np.testing.assert_allclose(ours, print_word_vectors(path, known + unseen), **PRINTED)
    wv = load_facebook_model(str(path)).wv
    np.testing.assert_allclose([wv[w] for w in known + unseen if w != EOS], ours[[w != EOS for w in known + unseen]],
                               **SUMMED)  # fmt: skip
    back = load(path)
    np.testing.assert_array_equal(back.ngram_rows, table.ngram_rows)
    np.testing.assert_array_equal(back.vectors, table.vectors)
    assert back.index_to_key == table.index_to_key and back.counts.tolist() == table.counts.tolist()


def test_export_writes_fasttext_for_a_subword_bin_unless_the_format_says_otherwise(tool_bin, tmp_path, run_cli):
    status, out, err = run_cli("export", str(tool_bin), "--out", str(tmp_path / "a.bin"), "--json")
    assert status == 0, err
    assert json.loads(out)["format"] == "fasttext" and is_fasttext(tmp_path / "a.bin")
    status, out, err = run_cli("export", str(tool_bin), "--out", str(tmp_path / "b.bin"), "--format", "word2vec-bin")
    assert status == 0, err
    assert detect_format(tmp_path / "b.bin") == "word2vec-bin"
    assert read_table(tmp_path / "b.bin").keys == load(tool_bin).index_to_key
    # a whole-word table has no n-gram rows to write: refused in one line, nothing written
    status, out, err = run_cli(
        "export", str(tmp_path / "b.bin"), "--out", str(tmp_path / "c.bin"), "--format", "fasttext"
    )
    assert status == 2 and out == "" and err.count("\n") == 1 and "n-gram rows" in err
    assert not (tmp_path / "c.bin").exists()


def tool_args(path) -> dict[str, str]:
    """The Args of a .bin as the tool reads them: `fasttext dump path args`, one "name value" a line."""
    done = subprocess.run([require_tool(), "dump", str(path), "args"], capture_output=True, text=True, check=True)
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())


# none of these is fastText's default (epoch 5, ws 5, neg 5, minCount 5, t 1e-4, skipgram)
RUN_SETTINGS = {"method": "cbow", "epochs": 2, "window": 3, "negative": 7, "min_count": 3, "sample": 0.01}


def test_a_run_exported_as_bin_says_its_own_settings(corpus, tmp_path, run_cli):
    from embedlab.train import RunConfig, train

    config = RunConfig(corpus=str(corpus), dim=8, threads=1, subwords=True, buckets=1000, **RUN_SETTINGS)
    run = train(config, tmp_path / "run", evaluate=False).path  # 2,000 lines, 2 epochs: about a second
    status, _, err = run_cli("export", str(run), "--out", str(tmp_path / "run.bin"))
    assert status == 0, err
    args = read_fasttext(tmp_path / "run.bin").args
    assert (args["epoch"], args["ws"], args["neg"], args["minCount"], args["t"]) == (2, 3, 7, 3, 0.01)
    assert (args["model"], args["loss"], args["dim"], args["bucket"]) == (MODELS["cbow"], 2, 8, 1000)
    shown = tool_args(tmp_path / "run.bin")  # the tool reads the same header
    assert {name: shown[name] for name in ("epoch", "ws", "neg", "minCount", "t", "model", "loss")} == {
        "epoch": "2", "ws": "3", "neg": "7", "minCount": "3", "t": "0.01", "model": "cbow", "loss": "ns"}  # fmt: skip
    table = load(run)
    words = [*table.index_to_key[:20], "unhappinesses"]  # and its vectors, a word without a row among them
    np.testing.assert_allclose(print_word_vectors(tmp_path / "run.bin", words), [table[w] for w in words], **PRINTED)
    # a .bin read back keeps its settings: written again, the header is the same
    load(tmp_path / "run.bin").save(tmp_path / "again.bin")
    assert read_fasttext(tmp_path / "again.bin").args == args
    record = json.loads((run / "run.json").read_text(encoding="utf-8"))
    record["config"]["epochs"] = -1
    (run / "run.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(FileFormatError, match=r"run.json: not the settings of a word2vec run \(epochs must be"):
        load(run)  # a damaged record is named, not written into a header


def test_damaged_run_settings_are_named():
    from embedlab.vectors.io.fasttext_model import training_of_run

    with pytest.raises(FileFormatError, match=r"r/run.json: not the settings of a word2vec run \(epochs must be"):
        training_of_run({**RUN_SETTINGS, "epochs": "2"}, "r/run.json")
    with pytest.raises(FileFormatError, match=r"\(method must be one of sgns, cbow; got 'lm'\)"):
        training_of_run({**RUN_SETTINGS, "method": "lm"}, "r/run.json")
    with pytest.raises(FileFormatError, match=r"\(its config must be an object; got"):
        training_of_run([1], "r/run.json")


def test_neighbors_of_an_unseen_word_say_it_came_from_ngrams(tool_bin, run_cli):
    status, out, err = run_cli("neighbors", str(tool_bin), "unhappinesses", "-k", "3", "--json")
    assert status == 0, err
    answer = json.loads(out)
    assert answer["from"] == {"unhappinesses": "ngrams"} and len(answer["neighbors"]) == 3
    status, out, err = run_cli("neighbors", str(tool_bin), "unhappinesses", "-k", "3")
    assert status == 0 and "n-grams" in out


def test_an_unseen_word_is_answered_without_composing_every_word(tool_bin):
    """What keeps loading a 2,000,000-bucket .bin light (bench/fasttext_load.py): the first answer for
    an unseen word reads its own n-gram rows only; a whole-word query composes every word first."""
    table = load(tool_bin)
    expected = read_fasttext(tool_bin).ngram_rows[ngram_buckets("recieve", 3, 6, 10000)].mean(axis=0)
    np.testing.assert_allclose(table["recieve"], expected, rtol=0, atol=1e-6)
    assert table._composed is None and table.vector_size == 16 and len(table) > 0
    table.most_similar("recieve", topn=3)
    assert table._composed is not None and table._composed.shape == (len(table), 16)
