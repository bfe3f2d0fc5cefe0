"""Table files: exact round trips in every format, gensim as the oracle for word2vec, one clear error
naming the file and the line or byte for every corrupt file (and the key and column of a NaN), the
format of a write following the extension, and atomic writes."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest
from gensim.models import KeyedVectors
from hypothesis import given, settings
from hypothesis import strategies as st
from safetensors import safe_open
from safetensors.numpy import save_file

from embedlab.errors import EmbedlabError, FileFormatError, InvalidValueError, MissingDataError
from embedlab.models.pretrained import load_tokenizer
from embedlab.vectors.io import (
    FORMATS,
    Table,
    detect_format,
    format_for,
    output_files,
    read_hf_table,
    read_table,
    write_table,
)
from embedlab.vectors.io import word2vec as word2vec_io
from embedlab.vectors.io.text import format_rows

KEEPS_COUNTS = {"word2vec": False, "word2vec-bin": False, "safetensors": True, "npy": True, "projector": True}
NAMES = {
    "word2vec": "table.txt",
    "word2vec-bin": "table.bin",
    "safetensors": "table.safetensors",
    "npy": "table.npy",
    "projector": "proj",
}


def small_table(counts: bool = True) -> Table:
    rng = np.random.default_rng(0)
    keys = ["café", "naïve", "日本", "king", "a\u00a0b", "🙂"]  # \u00a0: a space word2vec tools do not split on
    vectors = rng.standard_normal((len(keys), 5)).astype(np.float32)
    vectors[0, :3] = [1e-30, -3.4e38, 0.1]  # tiny, huge and inexact decimals must survive the text formats
    return Table(keys, vectors, [10, 0, 3, 7, 1, 2] if counts else None)


def assert_same(got: Table, want: Table, counts: bool) -> None:
    assert got.keys == want.keys
    assert got.vectors.dtype == np.float32 and got.vectors.flags.c_contiguous
    np.testing.assert_array_equal(got.vectors, want.vectors)  # exact: every format keeps float32 bits
    assert got.counts == (want.counts if counts else None)


# --- round trips -------------------------------------------------------------------------------


@pytest.mark.parametrize("format", FORMATS)
def test_round_trip(tmp_path, format):
    table = small_table()
    files = write_table(table, tmp_path / NAMES[format], format)
    assert all(f.is_file() for f in files)
    assert detect_format(tmp_path / NAMES[format]) == format
    assert_same(read_table(tmp_path / NAMES[format]), table, KEEPS_COUNTS[format])


def test_sidecar_and_projector_file_names(tmp_path):
    table = small_table()
    assert write_table(table, tmp_path / "t.safetensors", "safetensors") == [
        tmp_path / "t.safetensors",
        tmp_path / "t.vocab.json",
    ]
    assert write_table(table, tmp_path / "t.npy", "npy") == [tmp_path / "t.npy", tmp_path / "t.vocab.json"]
    files = write_table(table, tmp_path / "new" / "proj", "projector")
    assert files == [tmp_path / "new" / "proj" / "vectors.tsv", tmp_path / "new" / "proj" / "metadata.tsv"]
    assert files[1].read_text(encoding="utf-8").splitlines()[:2] == ["word\tcount", "café\t10"]


def test_projector_without_counts_has_one_column_and_no_header(tmp_path):
    table = small_table(counts=False)
    write_table(table, tmp_path, "projector")
    assert (tmp_path / "metadata.tsv").read_text(encoding="utf-8").split("\n")[:-1] == table.keys
    assert_same(read_table(tmp_path / "vectors.tsv"), table, counts=False)


def test_projector_takes_the_word_and_count_columns_by_name(tmp_path):
    (tmp_path / "vectors.tsv").write_text("1\t2\n3\t4\n")
    (tmp_path / "metadata.tsv").write_text("pos\tword\tcount\nNN\tcat\t5\nVB\trun\t2\n")
    table = read_table(tmp_path)
    assert table.keys == ["cat", "run"] and table.counts == [5, 2]


def test_npy_reads_a_tokens_txt_when_there_is_no_vocab_json(tmp_path):
    np.save(tmp_path / "t.npy", np.eye(3, dtype=np.float32))
    (tmp_path / "t.tokens.txt").write_text("a\nb b\nc\n", encoding="utf-8")
    table = read_table(tmp_path / "t.npy")
    assert table.keys == ["a", "b b", "c"] and table.counts is None


# Keys any writable format can hold: no separators (Z*) and no control characters (C*).
KEYS = st.text(st.characters(blacklist_categories=("Z", "C")), min_size=1, max_size=8)
FLOAT32 = st.floats(width=32, allow_nan=False, allow_infinity=False)  # a file holding NaN or ±inf is refused


@st.composite
def tables(draw) -> Table:
    keys = draw(st.lists(KEYS, min_size=1, max_size=5, unique=True))
    dim = draw(st.integers(1, 4))
    values = draw(st.lists(FLOAT32, min_size=len(keys) * dim, max_size=len(keys) * dim))
    counts = draw(st.none() | st.lists(st.integers(0, 10**12), min_size=len(keys), max_size=len(keys)))
    return Table(keys, np.array(values, dtype=np.float32).reshape(len(keys), dim), counts)


@settings(max_examples=25, deadline=None)
@given(table=tables())
def test_round_trip_property(tmp_path_factory, table):
    folder = tmp_path_factory.mktemp("prop")
    for format in FORMATS:
        write_table(table, folder / NAMES[format], format)
        assert_same(read_table(folder / NAMES[format]), table, KEEPS_COUNTS[format])


# --- gensim as the oracle for both word2vec formats ----------------------------------------------


@pytest.mark.parametrize("binary", [False, True])
def test_gensim_reads_what_we_write(tmp_path, binary):
    table = small_table()
    path = tmp_path / ("t.bin" if binary else "t.txt")
    write_table(table, path, "word2vec-bin" if binary else "word2vec")
    kv = KeyedVectors.load_word2vec_format(path, binary=binary)
    assert kv.index_to_key == table.keys
    np.testing.assert_array_equal(kv.vectors, table.vectors)


@pytest.mark.parametrize("binary", [False, True])
def test_we_read_what_gensim_writes_and_gensim_reads_ours_exactly(tmp_path, binary):
    table = small_table()
    kv = KeyedVectors(table.vectors.shape[1])
    kv.add_vectors(table.keys, table.vectors)
    theirs = tmp_path / "gensim.data"  # no extension: detected by content
    kv.save_word2vec_format(theirs, binary=binary)
    assert detect_format(theirs) == ("word2vec-bin" if binary else "word2vec")
    assert_same(read_table(theirs), table, counts=False)
    ours = write_table(table, tmp_path / "ours.data", "word2vec-bin" if binary else "word2vec")[0]
    back = KeyedVectors.load_word2vec_format(ours, binary=binary)
    assert back.index_to_key == table.keys
    np.testing.assert_array_equal(back.vectors.view(np.uint32), table.vectors.astype(np.float32).view(np.uint32))
    if binary:  # the same bytes; text digits differ (gensim writes the shortest decimal, we 9 digits)
        assert ours.read_bytes() == theirs.read_bytes()


def test_nine_digits_read_back_to_every_float32_bit_for_bit():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**32, 400_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.concatenate([[0.0, -0.0, 1e-45, 3.4028235e38, 16777217.0, 8388608.5, 0.1, 1e-5], x[np.isfinite(x)]])
    x = x[: len(x) // 100 * 100].astype(np.float32).reshape(-1, 100)  # subnormals, extremes, ties included
    rows = format_rows(x, " ")
    back = np.array([np.array(row.split(), dtype=np.float32) for row in rows])
    np.testing.assert_array_equal(back.view(np.uint32), x.view(np.uint32))
    assert all(float(np.float32(float(t))) == float(v) for t, v in zip(rows[0].split(), x[0], strict=True))  # float()
    digits = [len(t.lstrip(b"-").split(b"e")[0].replace(b".", b"").lstrip(b"0")) for row in rows for t in row.split()]
    assert max(digits) == 9
    assert format_rows(np.array([[0.5, 300.0, 1e-7, -0.0]], dtype=np.float32), "\t") == [
        b"0.5\t300\t1.00000001e-07\t-0"
    ]


def test_binary_written_by_the_c_tool_with_a_newline_after_each_vector(tmp_path):
    table = small_table()
    records = [
        key.encode() + b" " + row.astype("<f4").tobytes() + b"\n"
        for key, row in zip(table.keys, table.vectors, strict=True)
    ]
    path = tmp_path / "c_tool.bin"
    path.write_bytes(b"6 5\n" + b"".join(records))
    assert_same(read_table(path), table, counts=False)
    kv = KeyedVectors.load_word2vec_format(path, binary=True)  # gensim agrees
    assert kv.index_to_key == table.keys


# --- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["word2vec", "word2vec-bin", "safetensors", "npy"])
def test_detection_by_content_without_an_extension(tmp_path, format):
    table = small_table()
    write_table(table, tmp_path / NAMES[format], format)
    shutil.move(tmp_path / NAMES[format], tmp_path / "table.data")  # the sidecar table.vocab.json still fits
    assert detect_format(tmp_path / "table.data") == format
    assert_same(read_table(tmp_path / "table.data"), table, KEEPS_COUNTS[format])


def test_detection_of_folders_and_unknown_files(tmp_path, minilm_dir):
    assert detect_format(minilm_dir) == "hf"
    write_table(small_table(), tmp_path / "proj", "projector")
    assert detect_format(tmp_path / "proj") == "projector"
    (tmp_path / "proj" / "vectors.tsv").rename(tmp_path / "proj" / "v.data")
    assert detect_format(tmp_path / "proj" / "v.data") == "projector"
    (tmp_path / "notes.data").write_text("hello world\n")
    with pytest.raises(FileFormatError, match=r"notes\.data: not a table format"):
        detect_format(tmp_path / "notes.data")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidValueError, match="none of config.json .*, vectors.tsv .*, vectors.safetensors"):
        read_table(tmp_path / "empty")
    with pytest.raises(MissingDataError, match="no table at"):
        read_table(tmp_path / "absent.txt")


# --- HuggingFace folders -------------------------------------------------------------------------


def test_read_hf_table_on_minilm(minilm_dir):
    table = read_hf_table(minilm_dir)
    assert table.vectors.shape == (30522, 384)
    assert table.keys[0] == "[PAD]" and table.counts is None
    with safe_open(minilm_dir / "model.safetensors", framework="np") as f:
        weight = f.get_tensor("embeddings.word_embeddings.weight")
    king = load_tokenizer(minilm_dir).token_to_id("king")
    assert table.keys.index("king") == king
    np.testing.assert_array_equal(table.vectors[king], weight[king])
    np.testing.assert_array_equal(read_table(minilm_dir).vectors, weight)


def test_hf_folder_whose_tokenizer_does_not_fit_the_table(tmp_path, minilm_dir):
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(minilm_dir / name, tmp_path / name)
    save_file({"embeddings.word_embeddings.weight": np.zeros((10, 4), np.float32)}, tmp_path / "model.safetensors")
    with pytest.raises(FileFormatError, match=r"tokenizer\.json: token ids must be exactly 0\.\.9"):
        read_hf_table(tmp_path)


# --- corrupt files: one error naming the file and where ----------------------------------------

FLOATS = np.arange(6, dtype="<f4").tobytes()  # two rows of 3

CORRUPT = {
    "bad header": (
        "t.txt",
        b"hello world\ncat 1 2\n",
        "t.txt line 1: expected a header 'rows dim'.*; found 'hello world'",
    ),
    "short line": (
        "t.txt",
        b"2 3\ncat 1 2 3\ndog 1 2\n",
        "t.txt line 3: expected 1 key and 3 numbers, found 1 key and 2",
    ),
    "no key": ("t.txt", b"1 2\n 1 2\n", "t.txt line 2: expected 1 key and 2 numbers, found no key"),
    "not a number": ("t.txt", b"1 3\ncat 1 x 3\n", "t.txt line 2: 'x' is not a number"),
    "fewer rows": (
        "t.txt",
        b"3 2\ncat 1 2\ndog 3 4\n",
        "t.txt line 4: the file ends after 2 rows; its header promises 3",
    ),
    "more rows": ("t.txt", b"1 2\ncat 1 2\ndog 3 4\n", "t.txt line 3: more rows than the 1 its header promises"),
    "duplicate": ("t.txt", b"2 1\ncat 1\ncat 2\n", "t.txt lines 2 and 3: duplicate key 'cat'"),
    "bad utf-8 text": (
        "t.txt",
        b"1 2\nca\xfft 1 2\n",
        r"t.txt line 2 \(byte 6\): invalid UTF-8 \(0xff\); expected word2vec text",
    ),
    "truncated binary": (
        "t.bin",
        b"2 3\ncat " + FLOATS[:12] + b"dog " + FLOATS[12:17],
        r"t.bin: truncated at byte 24: row 1 \('dog'\) needs 12 bytes of floats, 5 remain",
    ),
    "binary ends early": (
        "t.bin",
        b"2 3\ncat " + FLOATS[:12],
        "t.bin: truncated at byte 20: it holds 1 of the 2 rows its header promises",
    ),
    "bad utf-8 key": (
        "t.bin",
        b"1 2\nc\xffat " + FLOATS[:8],
        r"t.bin byte 5: the key of row 0 is not valid UTF-8 \(0xff\)",
    ),
    "binary header": (
        "t.bin",
        b"\x00\x01\x02 x\n",
        r"t.bin: expected a fastText model \(.bin, starting with the magic number 793712314\) or word2vec binary "
        r".*damaged \(its first 4 bytes are 00 01 02 20\)",
    ),
    "truncated npy": ("t.npy", b"\x93NUMPY\x01\x00", r"t.npy: expected a NumPy \.npy array .* cut short or damaged"),
    "bad safetensors": (
        "t.safetensors",
        b"\x01" + bytes(7) + b"{",
        "t.safetensors: expected a safetensors file .* damaged",
    ),
    "unknown content": ("t.data", b"\x00\x01\x02\x03", "t.data: not a table format.*; found binary data"),
}


@pytest.mark.parametrize("case", CORRUPT)
def test_corrupt_file_gives_one_clear_error(tmp_path, case):
    name, content, message = CORRUPT[case]
    (tmp_path / name).write_bytes(content)
    (tmp_path / "t.vocab.json").write_text('{"keys": ["a"], "counts": null}')
    with pytest.raises(FileFormatError, match=message) as info:
        read_table(tmp_path / name)
    assert str(tmp_path / name) in str(info.value)


SENTINEL = np.float32(1234.5)  # a value each format spells once (float32 bytes or "1234.5"), replaced by NaN or ±inf


def _poke(files: list, value: float) -> None:
    """Replace SENTINEL by `value` in the one of `files` that holds it, as that file spells numbers:
    little-endian float32 bytes (binary formats) or text ("nan", "inf", "-inf")."""
    binary, text = SENTINEL.astype("<f4").tobytes(), b"1234.5"
    for path in files:
        data = path.read_bytes()
        if data.count(binary) == 1:
            path.write_bytes(data.replace(binary, np.float32(value).astype("<f4").tobytes()))
            return
        if data.count(text) == 1:
            path.write_bytes(data.replace(text, str(value).encode()))
            return
    raise AssertionError(f"no file of {files} holds {SENTINEL} once")


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("format", FORMATS)
def test_a_file_holding_nan_or_inf_names_the_file_key_and_column(tmp_path, format, value):
    """Every format of the registry, text or binary: a NaN or ±inf in a file is refused on read."""
    table = small_table()
    table.vectors[3, 2] = SENTINEL  # row 3 is "king"
    written = write_table(table, tmp_path / NAMES[format], format)
    _poke(written, value)
    with pytest.raises(FileFormatError, match=r"row 3 \('king'\) column 2 holds -?(nan|inf)") as info:
        read_table(tmp_path / NAMES[format])
    vectors_file = tmp_path / NAMES[format] / "vectors.tsv" if format == "projector" else tmp_path / NAMES[format]
    assert str(info.value).startswith(str(vectors_file))


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("format", FORMATS)
def test_a_table_holding_nan_or_inf_is_never_written(tmp_path, format, value):
    """Every format of the registry: the write is refused before any file is touched, naming the
    path, the key and the column, so no file is made that a reader (ours or a peer's) refuses."""
    table = small_table()
    table.vectors[3, 2] = value
    with pytest.raises(InvalidValueError, match=r"row 3 \('king'\) column 2 holds -?(nan|inf)") as info:
        write_table(table, tmp_path / NAMES[format], format)
    assert str(tmp_path / NAMES[format]) in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_text_formats_name_the_line_of_a_nan(tmp_path):
    (tmp_path / "t.txt").write_bytes(b"2 2\ncat 1 2\ndog 3 nan\n")
    with pytest.raises(FileFormatError, match=r"t.txt line 3: row 1 \('dog'\) column 1 holds nan"):
        read_table(tmp_path / "t.txt")
    (tmp_path / "vectors.tsv").write_text("1\t2\n3e39\t4\n")  # 3e39 overflows float32: inf
    (tmp_path / "metadata.tsv").write_text("cat\ndog\n")
    with pytest.raises(FileFormatError, match=r"vectors.tsv line 2: row 1 \('dog'\) column 0 holds inf"):
        read_table(tmp_path)


def test_a_hf_folder_holding_nan_names_the_token(tmp_path, minilm_dir):
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(minilm_dir / name, tmp_path / name)
    king = load_tokenizer(minilm_dir).token_to_id("king")
    weight = np.zeros((30522, 4), np.float32)
    weight[king, 1] = np.nan
    save_file({"embeddings.word_embeddings.weight": weight}, tmp_path / "model.safetensors")
    with pytest.raises(FileFormatError, match=rf"model.safetensors: row {king} \('king'\) column 1 holds nan"):
        read_hf_table(tmp_path)


@pytest.mark.parametrize(
    ("vocab", "message"),
    [
        ('{"keys": ["a", "b"], "counts": null}', r"t.vocab.json: 2 keys, but t.npy has 3 rows"),
        ('{"keys": ["a", "b", "a"], "counts": null}', r"t.vocab.json: duplicate key 'a' at rows 0 and 2"),
        ('{"keys": ["a", "b", "c"], "counts": [1, -2, 3]}', r"t.vocab.json: count at row 1 \('b'\) must be"),
        (
            '{"keys": ["a", "b", "c"],\n "counts": nul}',
            r"t.vocab.json: .*not valid JSON: expecting value at line 2 column 12",
        ),
        (
            '{"keys": ["a", "b", "c"], "cou',
            r"t.vocab.json: not a readable table key list \(cut short: unterminated string starting at line 1",
        ),
        ('["a", "b", "c"]', r"t.vocab.json: .*expected an object; found a list"),
        ('{"keys": "abc", "counts": null}', r't.vocab.json: expected \{"keys"'),
    ],
)
def test_corrupt_sidecar(tmp_path, vocab, message):
    np.save(tmp_path / "t.npy", np.zeros((3, 2), np.float32))
    (tmp_path / "t.vocab.json").write_text(vocab)
    with pytest.raises(FileFormatError, match=message):
        read_table(tmp_path / "t.npy")


def test_missing_sidecars(tmp_path):
    np.save(tmp_path / "t.npy", np.zeros((3, 2), np.float32))
    with pytest.raises(MissingDataError, match=r"t.npy has no key list beside it: expected t.vocab.json"):
        read_table(tmp_path / "t.npy")
    (tmp_path / "vectors.tsv").write_text("1\t2\n")
    with pytest.raises(MissingDataError, match="no metadata.tsv beside"):
        read_table(tmp_path)


def test_safetensors_without_a_vectors_tensor(tmp_path):
    save_file({"weight": np.zeros((2, 2), np.float32)}, tmp_path / "t.safetensors")
    with pytest.raises(FileFormatError, match="t.safetensors: no tensor named 'vectors'; found weight"):
        read_table(tmp_path / "t.safetensors")


@pytest.mark.parametrize(
    ("vectors", "metadata", "message"),
    [
        ("1\t2\n3\n", "a\nb\n", r"vectors.tsv line 2: expected 2 tab-separated numbers, found 1"),
        ("1\t2\n3\tz\n", "a\nb\n", r"vectors.tsv line 2: 'z' is not a number"),
        ("1\t2\n3\t4\n", "a\n", r"metadata.tsv: 1 keys, but vectors.tsv has 2 rows"),
        ("1\t2\n3\t4\n", "word\tcount\na\t1\nb\tmany\n", r"metadata.tsv line 3: count 'many' is not an integer"),
        ("1\t2\n3\t4\n", "word\tcount\na\t1\nb\n", r"metadata.tsv line 3: expected 2 columns as in the header"),
    ],
)
def test_corrupt_projector(tmp_path, vectors, metadata, message):
    (tmp_path / "vectors.tsv").write_text(vectors)
    (tmp_path / "metadata.tsv").write_text(metadata)
    with pytest.raises(FileFormatError, match=message):
        read_table(tmp_path)


@pytest.mark.filterwarnings("ignore:Reading `.npy`")  # numpy's note on a damaged header that parses as Python 2's
@settings(max_examples=60, deadline=None)
@given(format=st.sampled_from(FORMATS), data=st.data())
def test_a_damaged_file_raises_only_our_errors(tmp_path_factory, format, data):
    folder = tmp_path_factory.mktemp("damaged")
    files = write_table(small_table(), folder / NAMES[format], format)
    target = data.draw(st.sampled_from(files))
    content = bytearray(target.read_bytes())
    for i, byte in data.draw(st.lists(st.tuples(st.integers(0, len(content) - 1), st.integers(0, 255)), max_size=3)):
        content[i] = byte
    target.write_bytes(bytes(content[: data.draw(st.integers(0, len(content)))]))
    try:
        read_table(folder / NAMES[format])
    except EmbedlabError:
        pass  # any other exception type fails the test: never a bare traceback from numpy, struct or json


# --- bad arguments -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((["a", "b", "a"], np.zeros((3, 2))), "duplicate key 'a' at rows 0 and 2"),
        ((["a"], np.zeros((2, 2))), "1 keys for 2 rows"),
        ((["a"], np.zeros(2)), "must be a 2-D float array"),
        ((["a"], np.zeros((1, 2), np.int64)), "must be a 2-D float array"),
        ((["a"], np.zeros((1, 2)), [-1]), r"count at row 0 \('a'\) must be an integer >= 0"),
        ((["a"], np.zeros((1, 2)), [1, 2]), "2 counts for 1 keys"),
        (([1], np.zeros((1, 2))), "key at row 0 must be a str"),
    ],
)
def test_table_validation(args, message):
    with pytest.raises(InvalidValueError, match=message):
        Table(*args)


@pytest.mark.parametrize(
    ("format", "key"), [("word2vec", "new york"), ("word2vec-bin", "tab\there"), ("projector", "a\tb")]
)
def test_keys_a_text_format_cannot_hold(tmp_path, format, key):
    table = Table(["ok", key], np.zeros((2, 3)))
    with pytest.raises(
        InvalidValueError, match=f"key {re.escape(repr(key))} at row 1 cannot be stored in the {format}"
    ):
        write_table(table, tmp_path / NAMES[format], format)


def test_unknown_format_name(tmp_path):
    with pytest.raises(InvalidValueError, match="format must be one of word2vec, .*; got 'hf'"):
        write_table(small_table(), tmp_path / "t", "hf")


# --- the format of a write follows the extension, as on read --------------------------------------


@pytest.mark.parametrize("format", FORMATS)
def test_write_without_a_format_follows_the_extension(tmp_path, format):
    path = tmp_path / NAMES[format]
    assert format_for(path) == format
    assert write_table(small_table(), path) == output_files(path) == output_files(path, format)
    assert detect_format(path) == format


def test_an_explicit_format_wins_and_an_unknown_extension_is_named(tmp_path):
    write_table(small_table(), tmp_path / "t.bin", "word2vec")
    assert (tmp_path / "t.bin").read_bytes().startswith("6 5\ncafé 1e-30 ".encode())  # text, not binary records
    assert format_for(tmp_path / "t.VEC") == "word2vec"
    with pytest.raises(InvalidValueError, match=r"extension '\.pkl'; known: \.txt \(word2vec\), \.vec .*\.npy \(npy\)"):
        write_table(small_table(), tmp_path / "t.pkl")
    assert list(tmp_path.iterdir()) == [tmp_path / "t.bin"]


# --- atomic writes -------------------------------------------------------------------------------


def test_a_write_failing_midway_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "t.txt"
    write_table(small_table(), path, "word2vec")
    before = path.read_bytes()
    calls = []

    def fail_on_third_row(rows, sep):
        calls.append(rows)
        if len(calls) == 3:
            raise RuntimeError("fails halfway")
        return format_rows(rows, sep)

    monkeypatch.setattr(word2vec_io, "ROWS_PER_WRITE", 1)  # a block per row: the third row fails
    monkeypatch.setattr(word2vec_io, "format_rows", fail_on_third_row)
    with pytest.raises(RuntimeError, match="fails halfway"):
        write_table(small_table(), path, "word2vec")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["t.txt"]


@pytest.mark.parametrize("format", FORMATS)
def test_a_key_utf8_cannot_hold_leaves_every_old_file(tmp_path, format):
    files = write_table(small_table(), tmp_path / NAMES[format], format)
    before = {f: f.read_bytes() for f in files}
    bad = Table(["ok", "fine", "\ud800"], np.ones((3, 2)))  # a lone surrogate fails to encode at row 2
    with pytest.raises(UnicodeEncodeError):
        write_table(bad, tmp_path / NAMES[format], format)
    assert {f: f.read_bytes() for f in files} == before
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


def test_a_refused_key_touches_nothing(tmp_path):
    path = tmp_path / "t.bin"
    write_table(small_table(), path, "word2vec-bin")
    before = path.read_bytes()
    with pytest.raises(InvalidValueError):
        write_table(Table(["a", "b c"], np.zeros((2, 2))), path, "word2vec-bin")
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["t.bin"]


def test_vocab_json_layout(tmp_path):
    write_table(small_table(), tmp_path / "t.npy", "npy")
    vocab = json.loads((tmp_path / "t.vocab.json").read_text(encoding="utf-8"))
    assert vocab == {"keys": small_table().keys, "counts": small_table().counts}
