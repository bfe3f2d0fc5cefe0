"""TensorFlow's Embedding Projector format: a folder of two TSV files.

    projector     FOLDER/vectors.tsv     V lines of D tab-separated floats, no header
                  FOLDER/metadata.tsv    V keys, one a line; with counts a header "word\\tcount" and two
                                         columns (the layout of TensorFlow's Embedding Projector)

On read, metadata with several columns is matched by header name ("word", else the first; "count").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError
from embedlab.files import atomic_writer
from embedlab.files.reading import file_exists
from embedlab.vectors.io.table import Table, check_finite, check_finite_to_write, check_keys, table_read_from
from embedlab.vectors.io.text import format_floats, is_float, parse_row, read_lines


def read_projector(path: Path) -> Table:
    """A projector folder, or the vectors .tsv inside one -> Table (counts when metadata has them)."""
    vectors_tsv = path / "vectors.tsv" if path.is_dir() else path
    metadata = vectors_tsv.parent / "metadata.tsv"
    if not file_exists(metadata, "projector keys (metadata.tsv)"):
        raise MissingDataError(f"no metadata.tsv beside {vectors_tsv}: the projector format keeps its keys there")
    lines = read_lines(vectors_tsv, "projector vectors: tab-separated numbers, one row a line")
    dim = len(lines[0].split("\t")) if lines else 0
    vectors = np.empty((len(lines), dim), dtype=np.float32)  # (V, D)
    for i, line in enumerate(lines):
        fields = line.split("\t")
        if len(fields) != dim:
            raise FileFormatError(
                f"{vectors_tsv} line {i + 1}: expected {dim} tab-separated numbers, found {len(fields)}"
            )
        parse_row(vectors, i, fields, f"{vectors_tsv} line {i + 1}")
    keys, counts = _read_metadata(metadata)
    if len(keys) != len(vectors):
        raise FileFormatError(f"{metadata}: {len(keys)} keys, but {vectors_tsv.name} has {len(vectors)} rows")
    check_finite(vectors_tsv, keys, vectors, first_line=1)
    return table_read_from(metadata, keys, vectors, counts)


def write_projector(table: Table, folder: Path, replace: bool = True) -> list[Path]:
    """Table -> FOLDER/vectors.tsv and FOLDER/metadata.tsv (the folder made if needed; replace False:
    only if both files are new) -> both paths."""
    check_keys(table, "projector")
    check_finite_to_write(folder, table.keys, table.vectors)
    if folder.is_file():
        raise InvalidValueError(f"{folder} is a file; the projector format writes a folder (vectors.tsv, metadata.tsv)")
    if table.counts is None:  # one column, so no header
        metadata = "".join(f"{key}\n" for key in table.keys)
    else:
        metadata = "word\tcount\n" + "".join(f"{k}\t{c}\n" for k, c in zip(table.keys, table.counts, strict=True))
    metadata = metadata.encode("utf-8")  # before any file is touched: a key UTF-8 cannot hold changes nothing
    folder.mkdir(parents=True, exist_ok=True)
    vectors_tsv, metadata_tsv = projector_files(folder)
    with atomic_writer(vectors_tsv, "w", replace) as f:  # the first file decides which of two writers goes on
        for row in table.vectors:
            f.write(format_floats(row, "\t") + "\n")
    with atomic_writer(metadata_tsv, "wb", replace) as f:
        f.write(metadata)
    return [vectors_tsv, metadata_tsv]


def projector_files(folder: Path) -> list[Path]:
    """The two files of a projector folder: [FOLDER/vectors.tsv, FOLDER/metadata.tsv]."""
    return [folder / "vectors.tsv", folder / "metadata.tsv"]


def is_tsv_row(line: bytes) -> bool:
    """Whether a first line reads as b"f1\\tf2\\t...": a projector vectors.tsv."""
    try:
        return all(map(is_float, line.decode("utf-8").rstrip("\r\n").split("\t")))
    except UnicodeDecodeError:
        return False


def _read_metadata(metadata: Path) -> tuple[list[str], list[int] | None]:
    """metadata.tsv -> keys and counts: one column has no header; more have one ("word", "count")."""
    lines = read_lines(metadata, "projector metadata: one key a line, or tab-separated columns under a header")
    if not lines or "\t" not in lines[0]:
        return lines, None
    header, rows = lines[0].split("\t"), [line.split("\t") for line in lines[1:]]
    for i, fields in enumerate(rows):
        if len(fields) != len(header):
            raise FileFormatError(
                f"{metadata} line {i + 2}: expected {len(header)} columns as in the header, found {len(fields)}"
            )
    keys = [fields[header.index("word") if "word" in header else 0] for fields in rows]
    if "count" not in header:
        return keys, None
    column = header.index("count")
    for i, fields in enumerate(rows):
        if not (fields[column].isascii() and fields[column].isdigit()):
            raise FileFormatError(f"{metadata} line {i + 2}: count {fields[column]!r} is not an integer >= 0")
    return keys, [int(fields[column]) for fields in rows]
