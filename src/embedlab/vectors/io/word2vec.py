"""word2vec's two formats, as the C tool, gensim and fastText write them.

    word2vec      NAME.txt | NAME.vec    "V D\\n", then V lines "key f1 ... fD\\n"
    word2vec-bin  NAME.bin               "V D\\n", then V records: UTF-8 key, b" ", D little-endian float32
                                         (gensim writes nothing after a record, the original C tool b"\\n")

Keys end at the first " " (gensim splits on " " alone), so they may hold other spaces (U+00A0);
writing refuses keys with ASCII whitespace. Floats are written with at most 9 significant digits
(text.format_rows), which read back to the same float32, so text round trips are exact; gensim
writes the shortest such decimal, often a digit or two shorter, at a twentieth of the speed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from embedlab.errors import FileFormatError
from embedlab.files import atomic_writer
from embedlab.files.reading import file_kind
from embedlab.vectors.io.table import (
    Table,
    check_finite,
    check_finite_to_write,
    check_keys,
    first_duplicate,
    table_read_from,
)
from embedlab.vectors.io.text import format_rows, is_float, parse_row, read_lines

ROWS_PER_WRITE = 4096  # rows formatted and written at once: the export never holds the whole text
TEXT = "word2vec text (a line 'rows dim', then one key and dim numbers a line)"
BINARY = "word2vec binary (a line 'rows dim', then rows of a key, a space and dim float32)"


def read_word2vec(path: Path) -> Table:
    """word2vec text -> Table (counts None); the whole file is decoded at once, then parsed a row at a time.

    The header is checked against the file before the (rows, dim) array is made, so a damaged one
    ("99999999999 300") is an error naming the rows the file holds, not a request for terabytes.
    """
    lines = read_lines(path, TEXT)
    rows, dim = _parse_header(path, lines[0] if lines else "", TEXT)
    if rows > len(lines) - 1:
        n = len(lines) - 1
        raise FileFormatError(f"{path} line {n + 2}: the file ends after {n} rows; its header promises {rows:,}")
    # a row takes at least a key's byte and " x" for each number, all but the last ending in "\n"
    body = path.stat().st_size - len(lines[0].encode("utf-8")) - 1
    if rows * (2 * dim + 2) - 1 > body:
        raise FileFormatError(
            f"{path} line 1: the header promises {rows:,} rows of {dim:,} numbers, but the {body:,} bytes after it "
            f"cannot hold them (a row takes at least {2 * dim + 2:,})"
        )
    vectors = np.empty((rows, dim), dtype=np.float32)  # (V, D)
    keys = []
    for i in range(rows):
        key, _, rest = lines[i + 1].partition(" ")  # gensim splits on " " alone, so keys may hold other spaces
        fields = rest.split()
        if not key or len(fields) != dim:
            found = f"1 key and {len(fields)}" if key else "no key" if rest else "an empty line"
            raise FileFormatError(f"{path} line {i + 2}: expected 1 key and {dim} numbers, found {found}")
        parse_row(vectors, i, fields, f"{path} line {i + 2}")
        keys.append(key)
    extra = next((n for n in range(rows + 1, len(lines)) if lines[n].strip()), None)
    if extra is not None:
        raise FileFormatError(f"{path} line {extra + 1}: more rows than the {rows} its header promises")
    if dup := first_duplicate(keys):
        raise FileFormatError(f"{path} lines {dup[1] + 2} and {dup[2] + 2}: duplicate key {dup[0]!r}")
    check_finite(path, keys, vectors, first_line=2)
    return table_read_from(path, keys, vectors)


def read_word2vec_binary(path: Path) -> Table:
    """word2vec binary (gensim's or the C tool's) -> Table (counts None).

    Every record is found before the (rows, dim) array is made, so a header promising more rows
    than the file holds is an error naming how many it does hold, not a request for terabytes.
    """
    data = path.read_bytes()
    end = data.find(b"\n")
    end = len(data) if end < 0 else end
    rows, dim = _parse_header(path, data[: min(end, 200)].decode("utf-8", "replace"), BINARY)
    keys, starts, pos, size = [], [], end + 1, 4 * dim  # starts[i]: the byte where row i's floats begin
    for i in range(rows):
        while data[pos : pos + 1] == b"\n":  # the C tool ends each record with b"\n"; gensim does not
            pos += 1
        if pos >= len(data):
            raise FileFormatError(
                f"{path}: truncated at byte {pos}: it holds {i} of the {rows:,} rows its header promises"
            )
        space = data.find(b" ", pos)
        if space <= pos:
            what = "an empty key" if space == pos else "no key ending in b' '"
            raise FileFormatError(f"{path}: truncated at byte {pos}: row {i} has {what}; the header promises {rows:,}")
        try:
            key = data[pos:space].decode("utf-8")
        except UnicodeDecodeError as err:
            byte = data[pos + err.start]
            raise FileFormatError(
                f"{path} byte {pos + err.start}: the key of row {i} is not valid UTF-8 (0x{byte:02x})"
            ) from None
        if len(data) - space - 1 < size:
            raise FileFormatError(
                f"{path}: truncated at byte {space + 1}: row {i} ({key!r}) needs {size:,} bytes of floats, "
                f"{len(data) - space - 1:,} remain"
            )
        keys.append(key)
        starts.append(space + 1)
        pos = space + 1 + size
    if data[pos:].strip():
        raise FileFormatError(f"{path} byte {pos}: {len(data) - pos} more bytes after the {rows} rows of the header")
    vectors = np.empty((rows, dim), dtype=np.float32)  # (V, D)
    for i, start in enumerate(starts):
        vectors[i] = np.frombuffer(data, dtype="<f4", count=dim, offset=start)
    check_finite(path, keys, vectors)
    return table_read_from(path, keys, vectors)


def write_word2vec(table: Table, path: Path, replace: bool = True) -> list[Path]:
    """Table -> word2vec text at `path`, atomically (replace False: only if `path` is new) -> [path]."""
    check_keys(table, "word2vec")
    check_finite_to_write(path, table.keys, table.vectors)
    with atomic_writer(path, "wb", replace) as f:
        f.write(f"{len(table.keys)} {table.vectors.shape[1]}\n".encode())
        for start in range(0, len(table.keys), ROWS_PER_WRITE):  # one block in memory at a time
            keys = table.keys[start : start + ROWS_PER_WRITE]
            rows = format_rows(table.vectors[start : start + ROWS_PER_WRITE], " ")
            f.write(b"".join(key.encode("utf-8") + b" " + row + b"\n" for key, row in zip(keys, rows, strict=True)))
    return [path]


def write_word2vec_binary(table: Table, path: Path, replace: bool = True) -> list[Path]:
    """Table -> word2vec binary at `path` (gensim's layout: no b"\\n" after a record), atomically -> [path]."""
    check_keys(table, "word2vec-bin")
    check_finite_to_write(path, table.keys, table.vectors)
    with atomic_writer(path, "wb", replace) as f:
        f.write(f"{len(table.keys)} {table.vectors.shape[1]}\n".encode())
        for key, row in zip(table.keys, table.vectors.astype("<f4", copy=False), strict=True):
            f.write(key.encode("utf-8") + b" " + row.tobytes())
    return [path]


def header(line: str) -> tuple[int, int] | None:
    """'30522 384' -> (30522, 384); anything else -> None."""
    parts = line.strip().split(" ")
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts) or int(parts[1]) < 1:
        return None
    return int(parts[0]), int(parts[1])


def is_text_row(record: bytes, dim: int) -> bool:
    """Whether the first record after a "V D" header reads as b"key f1 ... fD" (else the file is binary)."""
    try:
        fields = record.decode("utf-8").partition(" ")[2].split()
    except UnicodeDecodeError:
        return False
    return len(fields) == dim and all(map(is_float, fields))


def _parse_header(path: Path, line: str, expected: str) -> tuple[int, int]:
    """The 'rows dim' first line -> (rows, dim); anything else is named in plain words, never as raw bytes."""
    parsed = header(line)
    if parsed is not None:
        return parsed
    if not line.isprintable():  # a file of another kind: say which, not its bytes
        kind = file_kind(path)
        found = f"{kind} whose first line is not 'rows dim'" if kind in ("text", "binary data") else kind
        raise FileFormatError(f"{path}: expected {expected}; found {found}")
    shown = repr(line if len(line) <= 60 else line[:57] + "...") if line else "an empty line"
    raise FileFormatError(f"{path} line 1: expected a header 'rows dim' (two integers, dim >= 1); found {shown}")
