"""Reading and writing numbers as text, shared by the text formats (word2vec, projector TSV) and
the key lists beside the array formats.

    read_lines(path)                   a UTF-8 file's lines; bad UTF-8 is named by line and byte
    parse_row(vectors, i, fields, w)   fields -> row i of a (V, D) float32 array, or FileFormatError at w
    format_floats(row, " ")            (D,) float32 -> the shortest decimals that read back exactly
    is_float("2.5e-3")                 whether float() reads it
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from embedlab.errors import FileFormatError


def decode(path: Path) -> str:
    """A file's text as UTF-8; invalid bytes raise FileFormatError naming the line and the byte."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise FileFormatError(
            f"{path} line {line} (byte {err.start}): invalid UTF-8 {data[err.start : err.end]!r}"
        ) from None


def read_lines(path: Path) -> list[str]:
    """A text file's lines without their "\\n" or "\\r\\n" (a last empty line, if any, dropped)."""
    lines = decode(path).split("\n")  # not splitlines(): keys may hold \x1c, \x85, \u2028 ...
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def parse_row(vectors: np.ndarray, i: int, fields: list[str], where: str) -> None:
    """Parse `fields` (D strings) into row i of `vectors` (V, D); a field that is no number raises
    FileFormatError naming it and `where` ("t.txt line 3")."""
    try:
        with np.errstate(over="ignore"):  # beyond float32's range becomes ±inf, which check_finite names
            vectors[i] = fields  # numpy parses the strings: ~3x faster than float() one by one
    except ValueError:
        bad = next((x for x in fields if not is_float(x)), " ".join(fields))
        raise FileFormatError(f"{where}: {bad!r} is not a number") from None


def format_floats(row: np.ndarray, sep: str) -> str:
    """(D,) float32 -> "0.1 -2.5e-05 ...": str() of a float32 scalar is the shortest decimal that reads
    back to the same float32 (what gensim writes); str() of a Python float would spell out the float64."""
    return sep.join(map(str, row))


def is_float(text: str) -> bool:
    """Whether float() reads `text`: "2.5e-3" yes, "x" no."""
    try:
        float(text)
    except ValueError:
        return False
    return True
