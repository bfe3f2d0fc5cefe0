"""Any table written product-quantized as a .ftz (io/quantized.py), held to the fastText 0.9.2 tool:
a plain table (maxn 0) and a subword table (its word and bucket rows quantized together), with and
without qnorm, read by `fasttext print-word-vectors` and `fasttext nn` as we read them back."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from tests.vectors.tool_models import PRINTED, print_word_vectors, require_tool

from embedlab.errors import InvalidValueError
from embedlab.vectors import SubwordVectors, Vectors, load
from embedlab.vectors.io import detect_format, read_table, write_table
from embedlab.vectors.io.fasttext import read_fasttext
from embedlab.vectors.io.quantized import DSUB, plain_model, quantize_word_model, write_ftz, zero_output
from embedlab.vectors.io.table import Table
from embedlab.vectors.quantize import QuantizedMatrix

ROWS, DIM = 600, 16  # enough rows for 256 centroids a sub-space, small enough to quantize in a blink


@pytest.fixture(scope="module")
def plain():
    """600 words × 16 of clustered rows (60 centres plus noise, so neighbours mean something), counted."""
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(60, DIM))
    vectors = (centres[np.arange(ROWS) % 60] + 0.3 * rng.normal(size=(ROWS, DIM))).astype(np.float32)
    return Table([f"w{i}" for i in range(ROWS)], vectors, counts=list(range(ROWS, 0, -1)))


@pytest.fixture(scope="module")
def subword():
    """A fastText-style table: 300 words' own rows and 1,000 bucket rows, n-grams of 3..5 characters."""
    rng = np.random.default_rng(1)
    words = [f"word{i}x" for i in range(300)]
    rows, grams = (rng.normal(size=(n, DIM)).astype(np.float32) for n in (300, 1000))
    return SubwordVectors(words, rows, grams, counts=[5] * 300, min_n=3, max_n=5, name="subwords")


@pytest.mark.parametrize("qnorm", [False, True])
def test_a_plain_ftz_reads_in_the_tool_as_we_read_it(tmp_path, plain, qnorm):
    path = tmp_path / "plain.ftz"
    assert write_table(plain, path, dsub=4, qnorm=qnorm) == [path]
    model = read_fasttext(path)
    assert isinstance(model.input, QuantizedMatrix) and model.input.pq.dsub == 4 and model.input.qnorm == qnorm
    assert (model.max_n, model.buckets, model.args["model"]) == (0, 0, 2)  # skipgram without n-grams
    back = read_table(path)  # the decoded rows, by content: no extension is needed to tell a .ftz
    assert detect_format(path) == "fasttext" and back.keys == plain.keys and back.counts == plain.counts
    np.testing.assert_array_equal(back.vectors, model.input.decode())  # each word is its own row alone
    words = plain.keys[::37] + ["unseen"]  # a word without a row: zeros, in the tool (maxn 0: no n-grams)
    printed = print_word_vectors(path, words)
    np.testing.assert_allclose(printed[:-1], back.vectors[::37], **PRINTED)
    assert not printed[-1].any()
    # the quantization cost something, but kept most of each row
    error = np.linalg.norm(back.vectors - plain.vectors) / np.linalg.norm(plain.vectors)
    assert 0 < error < 0.5


def test_the_tools_nearest_neighbours_are_ours(tmp_path, plain):
    path = write_ftz(plain, tmp_path / "plain.ftz", dsub=2)[0]
    ours = Vectors.load(path)
    queries = ["w0", "w7", "w123"]
    done = subprocess.run(
        [require_tool(), "nn", str(path), "5"],
        input="".join(f"{q}\n" for q in queries),
        capture_output=True,
        text=True,
        check=True,
    )
    # the tool prints "Query word? " before each query, then 5 lines "word cosine"
    lines = done.stdout.replace("Query word? ", "\n").split("\n")
    answers = [line.split(" ") for line in lines if line.strip()]
    assert len(answers) == 5 * len(queries)
    for i, query in enumerate(queries):
        tool = answers[5 * i : 5 * i + 5]
        expected = ours.most_similar(query, topn=5)
        assert [w for w, _ in tool] == list(expected.keys)
        np.testing.assert_allclose([float(s) for _, s in tool], [s for _, s in expected], **PRINTED)


@pytest.mark.parametrize("qnorm", [False, True])
def test_a_subword_ftz_answers_unseen_words_as_the_tool(tmp_path, subword, qnorm):
    path = subword.save(tmp_path / "sub.ftz", dsub=2, qnorm=qnorm)[0]
    model = read_fasttext(path)
    assert model.input.shape == (300 + 1000, DIM) and (model.min_n, model.max_n, model.buckets) == (3, 5, 1000)
    back = load(path)
    assert isinstance(back, SubwordVectors) and back.index_to_key == subword.index_to_key
    words = ["word0x", "word42x", "wordless", "swordfish"]  # two with rows, two from n-grams alone
    assert [back.source(w) for w in words] == ["word", "word", "ngrams", "ngrams"]
    ours = np.stack([back.get_vector(w) for w in words])
    np.testing.assert_allclose(print_word_vectors(path, words), ours, **PRINTED)
    # the rows decoded are the quantized rows of the table's own, row for row
    np.testing.assert_array_equal(back.word_rows, model.input.rows(np.arange(300)))


def test_a_floret_table_reads_back_from_its_ftz(tmp_path):
    rng = np.random.default_rng(2)
    table = SubwordVectors([f"w{i}" for i in range(50)], None, rng.normal(size=(400, 8)).astype(np.float32),
                           min_n=3, max_n=4, hash_count=2)  # fmt: skip
    back = load(table.save(tmp_path / "floret.ftz", dsub=2)[0])
    assert back.hash_count == 2 and back.index_to_key == table.index_to_key
    error = np.linalg.norm(back.vectors - table.vectors) / np.linalg.norm(table.vectors)
    assert 0 < error < 0.5  # floret's word 0 keeps its (quantized) own row: every word still near its own


def test_the_output_is_one_byte_a_row_of_zeros(plain):
    model = quantize_word_model(plain_model(plain), dsub=4)
    assert model.output.codes.shape == (ROWS, 1) and not model.output.decode().any()
    assert model.output.nbytes == ROWS + 256 * DIM * 4  # beside ROWS * DIM * 4 as float32 zeros
    assert zero_output(3, 5).shape == (3, 5)


@pytest.mark.parametrize(
    ("rows", "dsub", "message"),
    [
        (255, DSUB, "the table has 255 rows; product quantization needs at least 256"),
        (ROWS, 5, "dsub 5 must divide the table's width 16"),
        (ROWS, 0, "dsub must be >= 1; got 0"),
    ],
)
def test_what_cannot_be_quantized_is_refused_before_the_file_is_touched(tmp_path, plain, rows, dsub, message):
    path = tmp_path / "t.ftz"
    table = Table(plain.keys[:rows], plain.vectors[:rows])
    with pytest.raises(InvalidValueError, match=message):
        write_table(table, path, dsub=dsub)
    assert not path.exists()


def test_quantizer_options_are_refused_for_a_format_that_keeps_every_number(tmp_path, plain, subword):
    with pytest.raises(InvalidValueError, match="dsub set product quantization, which only the ftz format"):
        write_table(plain, tmp_path / "t.txt", dsub=2)
    with pytest.raises(InvalidValueError, match="qnorm set product quantization"):
        subword.save(tmp_path / "t.bin", qnorm=True)
    with pytest.raises(InvalidValueError, match="dsub and qnorm set"):
        Vectors(plain.keys, plain.vectors).save(tmp_path / "t.npy", dsub=2, qnorm=True)
    assert list(tmp_path.iterdir()) == []


def test_a_classifier_is_left_to_fasttexts_own_quantize(plain):
    import dataclasses

    model = plain_model(plain)
    classifier = dataclasses.replace(model, args=model.args | {"model": 3}, output=np.zeros((0, DIM), np.float32))
    with pytest.raises(InvalidValueError, match="classifier .model code 3.: quantize it as fastText does"):
        quantize_word_model(classifier)
