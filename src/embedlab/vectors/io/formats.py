"""Which format a path holds or asks for, and one reader and one writer over all of them.

    read_table(path)                    any format, found by extension, else by content
    write_table(table, "t.bin")         the format follows the extension, as on read
    write_table(table, "out", "projector")   an explicit format wins
    write_table(table, "t.ftz", dsub=4)  product-quantized as fastText's .ftz (quantized.py; dsub, qnorm: its options)
    detect_format(path)                 "word2vec" | "word2vec-bin" | "fasttext" | "safetensors" | "npy" | "projector"
                                        | "hf"
    output_files("t.npy")               what a write would create: [t.npy, t.vocab.json]

Reading looks at the extension first (.txt .vec .bin .safetensors .npy .tsv) and at the bytes of a
file without one; writing goes by the extension alone, or by the format named. A .bin is told by its
first bytes: fastText's magic number makes it a fastText model (read as its whole words, each with the
vector fastText composes for it), anything else is word2vec binary, which has no magic number. A .ftz
is written as "ftz" (quantized.py) and read as what it is, a fastText model, its rows decoded.
"""

from __future__ import annotations

from pathlib import Path

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_choice, describe
from embedlab.files import check_path
from embedlab.files.reading import file_exists, file_kind, not_readable, readable_file
from embedlab.vectors.io import arrays, fasttext, hf, projector, quantized, word2vec
from embedlab.vectors.io.quantized import QUANTIZED_FORMATS
from embedlab.vectors.io.run import RUN_TABLE  # the table inside an `embedlab train` output folder
from embedlab.vectors.io.table import Table

FORMATS = ("word2vec", "word2vec-bin", "safetensors", "npy", "projector")  # a Table writes these; "hf" is read-only
SUBWORD_FORMATS = ("fasttext", "floret")  # written by SubwordVectors.save: a plain Table has no n-grams
WRITE_ONLY_EXTENSIONS = {".floret": "floret"}  # floret's text vectors: written for spaCy, not read back
QUANTIZED_EXTENSIONS = {".ftz": "ftz"}  # written product-quantized; read by content, as a fastText model
# file extension -> format, for reading and writing; a path without one is a projector folder on write
EXTENSIONS = {
    ".txt": "word2vec",
    ".vec": "word2vec",
    ".bin": "word2vec-bin",
    ".safetensors": "safetensors",
    ".npy": "npy",
}

_READERS = {
    "word2vec": word2vec.read_word2vec,
    "word2vec-bin": word2vec.read_word2vec_binary,
    "safetensors": arrays.read_safetensors,
    "npy": arrays.read_npy,
    "projector": projector.read_projector,
    "hf": hf.read_hf_table,
    "fasttext": fasttext.read_fasttext_table,
}
_WRITERS = {
    "word2vec": word2vec.write_word2vec,
    "word2vec-bin": word2vec.write_word2vec_binary,
    "safetensors": arrays.write_safetensors,
    "npy": arrays.write_npy,
    "projector": projector.write_projector,
}
WRITABLE = FORMATS + SUBWORD_FORMATS + QUANTIZED_FORMATS  # every format a write may name


def read_table(path: str | Path) -> Table:
    """A table file or folder in any format of this package -> Table with (V, D) float32 vectors.

    A file holding NaN or ±inf raises FileFormatError naming the file, the row's key and the column.
    """
    path = Path(check_path(path, "a table's path"))
    if path.is_dir() and file_exists(path / RUN_TABLE, "a run's table"):  # an `embedlab train` output folder
        path = path / RUN_TABLE
    return _READERS[detect_format(path)](path)


def write_table(
    table: Table,
    path: str | Path,
    format: str | None = None,
    replace: bool = True,
    *,
    dsub: int | None = None,
    qnorm: bool = False,
) -> list[Path]:
    """Write `table` in `format` (one of FORMATS, or "ftz"; None: from the extension, see `format_for`)
    -> the files written, those of `output_files`. `dsub` (None: fastText's 2) and `qnorm` set the
    product quantization of "ftz" and are refused for any other format.

    Each file is written atomically; keys a text format cannot hold, and NaN or ±inf values, are
    refused before any file is touched, naming the key and its row. replace False: each file is
    created only if nothing is there at that moment (files.atomic_writer), else OutputExistsError.
    """
    check_path(path, "the path to write a table to")
    if not isinstance(table, Table):
        raise InvalidValueError(f"table must be a Table; got {describe(table)}")
    format = format_for(path) if format is None else check_choice("format", format, WRITABLE)
    quantized.check_quantizer(format, dsub, qnorm)
    if format in SUBWORD_FORMATS:
        fasttext.refuse_plain_table(table, Path(path), format)
    if format in QUANTIZED_FORMATS:
        return quantized.write_ftz(table, Path(path), replace, dsub=dsub, qnorm=qnorm)
    return _WRITERS[format](table, Path(path), replace)


def format_for(path: str | Path) -> str:
    """The format a write to `path` makes, by its extension: "t.txt" -> "word2vec", "t.bin" ->
    "word2vec-bin", "out" (no extension: a folder) -> "projector".

    >>> format_for("minilm.vec"), format_for("runs/minilm")
    ('word2vec', 'projector')
    """
    suffix = Path(path).suffix.lower()
    if not suffix:
        return "projector"
    if suffix in WRITE_ONLY_EXTENSIONS or suffix in QUANTIZED_EXTENSIONS:
        return {**WRITE_ONLY_EXTENSIONS, **QUANTIZED_EXTENSIONS}[suffix]
    if suffix not in EXTENSIONS:
        written = {**EXTENSIONS, **WRITE_ONLY_EXTENSIONS, **QUANTIZED_EXTENSIONS}
        known = ", ".join(f"{ext} ({name})" for ext, name in written.items())
        raise InvalidValueError(
            f"cannot tell the format of {path} from its extension {suffix!r}; known: {known}, or no extension "
            f"for a projector folder; or name the format ({', '.join(FORMATS + QUANTIZED_FORMATS)})"
        )
    return EXTENSIONS[suffix]


def output_files(path: str | Path, format: str | None = None) -> list[Path]:
    """The files `write_table(table, path, format)` creates or replaces, without writing anything.

    >>> [p.name for p in output_files("t.npy")]
    ['t.npy', 't.vocab.json']
    """
    path = Path(path)
    format = format_for(path) if format is None else check_choice("format", format, WRITABLE)
    if format == "projector":
        return projector.projector_files(path)
    if format in ("safetensors", "npy"):
        return [path, arrays.sidecar(path)]
    return [path]


def detect_format(path: str | Path) -> str:
    """The format of a table file or folder: one of FORMATS, "hf" or "fasttext", by extension, else by
    content (a .bin by its first bytes: fastText's magic number, else word2vec binary)."""
    path = Path(path)
    if path.is_dir():
        if file_exists(path / "config.json", "a model config"):
            return "hf"
        if file_exists(path / "vectors.tsv", "projector vectors"):
            return "projector"
        if file_exists(path / RUN_TABLE, "a run's table"):
            return "safetensors"
        raise InvalidValueError(
            f"{path} is a folder holding none of config.json (a HuggingFace model), vectors.tsv (a projector), "
            f"{RUN_TABLE} (an embedlab training run)"
        )
    if not path.exists():
        raise MissingDataError(f"no table at {path}: no such file or folder")
    readable_file(path, "a table file or folder")
    suffix = path.suffix.lower()
    if suffix == ".tsv":
        return "projector"
    # a .bin is fastText's or word2vec's: only fastText's has a magic number (and so has its .ftz)
    if (suffix == ".bin" or suffix not in EXTENSIONS) and fasttext.is_fasttext(path):
        return "fasttext"
    if suffix == ".bin":
        _check_bin(path)
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix]
    with open(path, "rb") as f:
        head = f.read(9)
        f.seek(0)
        first = f.readline(4096)
        header = word2vec.header(first.decode("utf-8", "replace"))
        # A text record holds ~20 bytes a number; read enough for one whole line and a long key.
        record = f.readline(32 * (header[1] + 1) + 65536) if header else b""
    if head.startswith(b"\x93NUMPY"):
        return "npy"
    if len(head) == 9 and head[8:9] == b"{" and 0 < int.from_bytes(head[:8], "little") <= path.stat().st_size - 8:
        return "safetensors"
    if header:
        return "word2vec" if not record or word2vec.is_text_row(record, header[1]) else "word2vec-bin"
    if projector.is_tsv_row(first):
        return "projector"
    raise FileFormatError(
        f"{path}: not a table format this library reads: expected word2vec text or binary, a fastText model, "
        f"safetensors, .npy or projector TSV; found {file_kind(path)}"
    )


def _check_bin(path: Path) -> None:
    """A .bin that is not fastText's starts with word2vec's "rows dim" line; a file with neither is named
    for both, since a .bin whose magic number was damaged is as likely fastText's as word2vec's."""
    with open(path, "rb") as f:
        first = f.readline(4096)
    if not word2vec.header(first.decode("utf-8", "replace")):
        expected = f"{fasttext.EXPECTED} or {word2vec.BINARY}"
        raise not_readable(path, expected, "binary data", f"its first 4 bytes are {first[:4].hex(' ')}")
