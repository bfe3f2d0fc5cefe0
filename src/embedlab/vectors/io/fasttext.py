"""Facebook fastText's .bin model, as fastText 0.9 and gensim's save_facebook_model write it, its
quantized .ftz (`fasttext quantize`), and floret's .bin (explosion's fastText fork): read with its
matrices memory-mapped, written atomically.

    read_fasttext("cc.en.300.bin")     -> FastTextModel (fasttext_model.py); the (V+B, D) input matrix is mapped
    read_fasttext("m.ftz")             -> FastTextModel whose input (and output, with -qout) is a QuantizedMatrix
    write_fasttext(model, "m.bin")     the fastText tool and gensim's load_facebook_model read it (the tool a .ftz)
    FastTextModel.from_arrays(words, word_rows, ngram_rows, counts, min_n=3, max_n=6)
    is_fasttext(path)                  the file starts with fastText's magic number
    word_vectors(model)                -> (nwords, D) each word's vector, as fastText composes it
    read_fasttext_table(path)          -> Table of the whole words and those vectors (read_table's reader)

The layout (little-endian: fastText writes its machine's byte order, and every machine it is built
for is little-endian):

    int32 magic 793712314, int32 version 12
    Args      12 int32 (dim ws epoch minCount neg wordNgrams loss model bucket minn maxn lrUpdateRate),
              float64 t
    Dictionary  int32 size, nwords, nlabels; int64 ntokens; int64 pruneidx_size (-1: never pruned)
              then `size` entries: the word's UTF-8 bytes, b"\\0", int64 count, int8 type (0 word, 1 label),
              words before labels; then pruneidx_size pairs of int32 (only `fasttext quantize -cutoff` prunes)
    bool quant_input, int64 rows, int64 cols, rows x cols float32   input: nwords word rows, then bucket n-gram rows
    bool qout,        int64 rows, int64 cols, rows x cols float32   output: nwords rows (nlabels when supervised)

A .ftz differs in three places (ftz.py): pruneidx_size >= 0 when `-cutoff` pruned the dictionary
(its input then holds the kept n-gram rows, not every bucket's), quant_input 1 and the input a
quantized matrix, and with -qout the output one too (the tool reads qout only after a quantized
input; a pruned dictionary before an unquantized input it refuses, and so do we).

floret writes the same magic number and version, but its Args hold two more int32 after maxn: mode
(1 fastText, 2 floret) and hashCount (1..4), 8 bytes that shift everything after them. A file says
nothing else about which layout it has, so the header (Args and the dictionary's sizes) is checked
both ways: the one layout that fits is read; a file that fits both is refused as ambiguous; a file
that fits neither is reported in floret's layout if the two fields after maxn look like floret's,
else in fastText's. In floret's mode (mode 2) the bucket rows hold the words too: see word_vectors.

Every way a file can be damaged (another kind of file, another version, cut short anywhere, sizes that
disagree with each other or with the file's length) raises FileFormatError naming the file, what was
expected and the byte offset, before any matrix is mapped.
"""

from __future__ import annotations

import mmap
import os
import struct
from pathlib import Path

import numpy as np

from embedlab.errors import FileFormatError, InvalidValueError, describe
from embedlab.files import atomic_writer
from embedlab.files.reading import file_kind, readable_file
from embedlab.hashing import compose_rows, vocab_ngram_buckets
from embedlab.vectors.io import ftz
from embedlab.vectors.io.cursor import Reader
from embedlab.vectors.io.fasttext_model import (
    ARGS,
    DICT_FORMAT,
    EXPECTED,
    FLORET_ARGS,
    LAYOUTS,
    MAGIC,
    MAGIC_BYTES,
    MAX_HASH_COUNT,
    MODELS,
    MODES,
    VERSION,
    FastTextModel,
    args_format,
    check_args,
)
from embedlab.vectors.io.table import Table, check_finite, check_finite_to_write, first_duplicate, table_read_from
from embedlab.vectors.io.word2vec import header as word2vec_header

# ----- reading -------------------------------------------------------------------------------------


def read_fasttext(path: str | Path) -> FastTextModel:
    """A fastText .bin or .ftz -> FastTextModel whose input and output matrices (or codes) are
    read-only views of the mapped file: the time and memory of reading are the header's and the
    dictionary's, whatever the matrices' size; their rows are read from disk when first touched.
    Values are not checked (that would read every page): read_fasttext_table checks the vectors it
    composes.
    """
    path = readable_file(path, EXPECTED)
    with open(path, "rb") as f:
        head = f.read(4)
        if head != MAGIC_BYTES:
            if head and MAGIC_BYTES.startswith(head):
                raise FileFormatError(f"{path} byte 0: expected {EXPECTED}, but the file ends after {len(head)} bytes")
            raise FileFormatError(f"{path}: expected {EXPECTED}; found {_what_it_holds(path)}")
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)  # the mapping outlives the file object
    r = Reader(path, data)
    r.pos = 4
    (version,) = r.unpack("<i", "the file format version (int32)")
    if version != VERSION:
        raise r.fail(f"expected fastText's file format version {VERSION} (fastText 0.9); found version {version}", 4)
    args, (size, nwords, nlabels, ntokens, pruned) = _read_header(r)
    at = dictionary = r.pos - struct.calcsize(DICT_FORMAT)
    words, counts, types = _read_entries(r, size)
    if (n := int(np.count_nonzero(types == 0))) != nwords:
        raise r.fail(f"expected {nwords:,} words (entry type 0) in the dictionary, as its header says; found {n:,}", at)
    if len(set(words)) != len(words) and (dup := first_duplicate(words)):  # set(): a third of the time
        raise r.fail(f"expected each word once in the dictionary; {dup[0]!r} is entry {dup[1]:,} and {dup[2]:,}", at)
    if pruned < -1:
        raise r.fail(
            f"expected the pruned n-gram ids' count, -1 (never pruned) or more; found {pruned:,}", dictionary + 20
        )
    pruneidx = ftz.read_pruneidx(r, pruned, args["bucket"]) if pruned >= 0 else None
    quantized = r.flag("the input matrix's quantization flag")
    if pruned >= 0 and not quantized:
        raise r.fail(
            f"expected an unpruned dictionary (pruneidx size -1) before an unquantized input matrix; found {pruned:,} "
            "pruned n-gram ids (fastText refuses such a file too: 'Invalid model file')",
            dictionary + 20,
        )
    rows = nwords + (args["bucket"] if pruneidx is None else pruned)
    input = ftz.read_matrix(r, "input", rows, args["dim"], quantized)
    qout = r.flag("the output matrix's quantization flag")
    if qout and not quantized:
        raise r.fail("expected an unquantized output matrix (flag 0) after an unquantized input; found 1", r.pos - 1)
    rows = nlabels if args["model"] == MODELS["supervised"] else nwords
    output = ftz.read_matrix(r, "output", rows, args["dim"], qout)
    if r.pos != len(data):
        raise r.fail(f"expected the file to end after the output matrix; {len(data) - r.pos:,} more bytes follow")
    try:
        return FastTextModel(args, words, counts, types, input, output, ntokens, pruneidx)
    except InvalidValueError as err:
        raise FileFormatError(f"{path}: {err}") from None


def _read_header(r: Reader) -> tuple[dict, tuple[int, int, int, int, int]]:
    """The Args and the dictionary's sizes after the version, in the one layout (fastText's or
    floret's) they fit -> (args, (size, nwords, nlabels, ntokens, pruneidx_size)), the cursor after them."""
    read, errors = {}, {}
    for whose, fields in LAYOUTS.items():
        r.pos = 8
        try:
            read[whose] = _read_layout(r, whose, fields), r.pos
        except FileFormatError as err:
            errors[whose] = err
    if len(read) == 2:
        raise r.fail(
            "expected the header of one layout, fastText's or floret's (whose Args hold mode and hashCount "
            "after maxn); this one reads both ways and the file does not say which it is",
            8,
        )
    if not read:
        raise errors["floret" if _looks_floret(r.data) else "fastText"]
    ((header, r.pos),) = read.values()
    return header


def _read_layout(r: Reader, whose: str, fields: dict) -> tuple[dict, tuple[int, int, int, int, int]]:
    """The Args in `fields`' layout and the dictionary's sizes at the cursor, checked as far as they
    can be without reading further."""
    at = r.pos
    args = dict(
        zip(
            fields,
            r.unpack(args_format(fields), f"{whose}'s arguments ({len(fields) - 1} int32 and a float64)"),
            strict=True,
        )
    )
    try:
        check_args(args, "the argument")
    except InvalidValueError as err:
        raise r.fail(str(err), at) from None
    at = r.pos
    size, nwords, nlabels, ntokens, pruned = r.unpack(DICT_FORMAT, "the dictionary's sizes (3 int32 and 2 int64)")
    if min(size, nwords, nlabels) < 0 or nwords + nlabels != size:
        raise r.fail(
            f"expected a dictionary of nwords + nlabels entries; found {size:,} entries, nwords {nwords:,}, "
            f"nlabels {nlabels:,}",
            at,
        )
    if 10 * size > len(r.data) - r.pos:  # an entry takes at least 10 bytes: refused before (size,) arrays are made
        raise r.fail(
            f"expected {size:,} dictionary entries of at least 10 bytes each, but the file ends "
            f"{len(r.data) - r.pos:,} bytes later: it is cut short"
        )
    return args, (size, nwords, nlabels, ntokens, pruned)


def _looks_floret(data: mmap.mmap) -> bool:
    """Whether a header that fits neither layout is more likely floret's: the two int32 after maxn
    (bytes 52..60) are a floret mode and hashCount, or the dictionary's sizes add up where floret's
    layout puts them (byte 72)."""
    if len(data) >= 60:
        mode, hash_count = struct.unpack_from("<ii", data, 52)
        if mode in MODES.values() and 1 <= hash_count <= MAX_HASH_COUNT:
            return True
    if len(data) >= 84:
        size, nwords, nlabels = struct.unpack_from("<iii", data, 72)
        return min(size, nwords, nlabels) >= 0 and nwords + nlabels == size
    return False


def _read_entries(r: Reader, size: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The dictionary's `size` entries at the cursor -> words, (size,) int64 counts, (size,) int8 types.

    Only the words need a Python loop (each ends at the first NUL after it); the counts and types
    are gathered from the NUL positions afterwards, so 2.5M entries read in about a second.
    """
    data, pos, end = r.data, r.pos, len(r.data)
    words, nuls = [], []
    find, add_word, add_nul = data.find, words.append, nuls.append
    for i in range(size):
        nul = find(b"\0", pos)
        if nul < 0 or nul + 10 > end:
            r.pos = pos
            raise r.fail(
                f"expected dictionary entry {i:,} of {size:,} (a word ending in a NUL byte, an int64 count and an "
                f"int8 type), but the file ends first: it is cut short"
            )
        try:
            add_word(data[pos:nul].decode("utf-8"))
        except UnicodeDecodeError as err:
            raise r.fail(
                f"expected UTF-8 text in word {i:,}; found the byte 0x{data[pos + err.start]:02x}", pos
            ) from None
        add_nul(nul)
        pos = nul + 10
    r.pos = pos
    raw = np.frombuffer(data, np.uint8)
    after = np.array(nuls, dtype=np.int64) + 1  # (size,) where each count starts
    counts = np.zeros(size, np.uint64)
    for byte in range(8):  # little-endian int64 at an arbitrary offset, a byte at a time
        counts |= raw[after + byte].astype(np.uint64) << np.uint64(8 * byte)
    types = raw[after + 8].view(np.int8)
    if len(bad := np.flatnonzero((types != 0) & (types != 1))):
        i = int(bad[0])
        raise r.fail(f"expected entry type 0 (word) or 1 (label) for {words[i]!r}; found {types[i]}", nuls[i] + 9)
    return words, counts.view(np.int64), types


def _what_it_holds(path: Path) -> str:
    """How a file without fastText's magic number is named: word2vec's formats by their header."""
    with open(path, "rb") as f:
        first = f.readline(200).decode("utf-8", "replace")
    if word2vec_header(first):
        return "a word2vec file (its first line is 'rows dim'): read it as word2vec text or binary"
    return file_kind(path)


def is_fasttext(path: str | Path) -> bool:
    """Whether `path` is a file starting with fastText's magic number (its version is not checked)."""
    if not os.path.isfile(path):  # never open a FIFO (it waits for a writer) or a device
        return False
    try:
        with open(path, "rb") as f:
            return f.read(4) == MAGIC_BYTES
    except (FileNotFoundError, PermissionError):
        return False


# ----- composing and writing -----------------------------------------------------------------------


def word_vectors(model: FastTextModel) -> np.ndarray:
    """(nwords, D) float32: each word's vector as fastText's getWordVector makes it, the mean of its
    own row and the rows of its n-grams' buckets (repeats counted; "</s>" and maxn 0: its row alone).

    In floret's mode a word's vector is the mean of the `hash_count` rows of "<word>" and of each
    n-gram, with no row of its own (so "</s>" gets zeros), except the word at index 0, which keeps
    its row: floret's initNgrams drops every word's own row but the first, meant for "</s>" (the
    most frequent token of a corpus of many lines); whatever word is first keeps it. That quirk is
    part of what a floret .bin means, so it is kept here and in SubwordVectors.from_fasttext.

    A quantized model's rows are decoded (fastText's addRowToVector); a pruned one averages a word's
    own row and only the n-gram rows its pruning kept (fastText's pushHash drops the others).
    """
    words, rows = model.words[: model.nwords], model.word_rows
    if model.max_n == 0:
        return np.array(rows, dtype=np.float32)
    floret = model.hash_count
    offsets, ids = vocab_ngram_buckets(words, model.min_n, model.max_n, model.buckets, hash_count=floret)
    offsets, ids, grams = ftz.kept_ngrams(model, offsets, ids)
    if floret is None:
        return compose_rows(rows, grams, offsets, ids)
    composed = compose_rows(None, grams, offsets, ids)
    if len(words):  # subtle: floret's first word keeps its own row (see above)
        composed[:1] = compose_rows(rows[:1], grams, offsets[:2], ids)
    return composed


def read_fasttext_table(path: str | Path) -> Table:
    """A fastText .bin or .ftz -> Table of its whole words (labels left out), each with its composed
    vector (word_vectors, decoded for a .ftz) and count: what the tool's .vec holds, to full precision."""
    path = Path(path)
    model = read_fasttext(path)
    keys = model.words[: model.nwords]
    vectors = word_vectors(model)
    check_finite(path, keys, vectors)
    return table_read_from(path, keys, vectors, model.counts[: model.nwords].tolist())


def refuse_plain_table(table: Table, path: Path, format: str = "fasttext") -> list[Path]:
    """What writing a plain Table in a subword format ("fasttext" .bin, "floret" text) does: refuse,
    before touching `path`."""
    what = "a fastText .bin" if format == "fasttext" else "floret's text vectors"
    raise InvalidValueError(
        f"cannot write {path} as {what}: that format holds n-gram rows, and this table has only "
        "whole-word rows (write word2vec-bin, or train the table with --subwords)"
    )


def header_bytes(
    args: dict, words: list[str], counts: np.ndarray, entry_types: np.ndarray, ntokens: int, pruneidx: np.ndarray | None
) -> bytes:
    """A .bin's bytes before its matrices: magic, version, Args, the dictionary and its pruned ids."""
    fields = FLORET_ARGS if "mode" in args else ARGS
    nwords = int(np.count_nonzero(np.asarray(entry_types) == 0))
    pruned = -1 if pruneidx is None else len(pruneidx)
    entry = struct.Struct("<qb").pack
    return b"".join(
        [
            struct.pack("<ii", MAGIC, VERSION) + struct.pack(args_format(fields), *args.values()),
            struct.pack(DICT_FORMAT, len(words), nwords, len(words) - nwords, ntokens, pruned),
            *(
                w.encode("utf-8") + b"\0" + entry(int(c), int(t))
                for w, c, t in zip(words, counts, entry_types, strict=True)
            ),
            b"" if pruneidx is None else np.ascontiguousarray(pruneidx, dtype="<i4").tobytes(),
        ]
    )


def write_fasttext(model: FastTextModel, path: str | Path, replace: bool = True) -> Path:
    """Write `model` as a fastText .bin (a .ftz when quantized) at `path`, atomically (replace False:
    only if `path` is new) -> path. Words that fastText could not read back (empty, holding
    whitespace or NUL), counted 0 (gensim's load_facebook_model drops them), NaN or ±inf in any word,
    bucket or output row or codebook, and a pruned dictionary before an unquantized input (fastText's
    "Invalid model file") are refused before the file is touched."""
    if not isinstance(model, FastTextModel):
        raise InvalidValueError(f"model must be a FastTextModel; got {describe(model)}")
    for i, word in enumerate(model.words):
        if not word or any(c in word for c in " \t\n\r\v\f\0"):
            raise InvalidValueError(
                f"word {word!r} at row {i} cannot be stored in a fastText model: words must be non-empty and hold "
                f"no ASCII whitespace or NUL (fastText splits text on them)"
            )
    if len(model.counts) and model.counts[low := int(model.counts.argmin())] < 1:
        raise InvalidValueError(
            f"word {model.words[low]!r} at row {low} has count {model.counts[low]}: counts must be >= 1 "
            f"(gensim's load_facebook_model drops words counted 0)"
        )
    path = Path(path)
    nwords = model.nwords
    ftz.check_to_write(model, path)
    if not model.quantized:
        check_finite_to_write(path, model.words[:nwords], model.input[:nwords])
        check_finite_to_write(Path(f"{path} (n-gram bucket rows)"), None, model.input[nwords:])
    if isinstance(model.output, np.ndarray):
        check_finite_to_write(Path(f"{path} (output rows)"), None, model.output)
    with atomic_writer(path, "wb", replace) as f:
        f.write(header_bytes(model.args, model.words, model.counts, model.entry_types, model.ntokens, model.pruneidx))
        for matrix in (model.input, model.output):
            f.write(b"\0" if isinstance(matrix, np.ndarray) else b"\1")  # quant_input, then qout
            ftz.write_matrix(f, matrix)
    return path
