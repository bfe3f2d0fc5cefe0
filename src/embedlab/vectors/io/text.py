"""Reading and writing numbers as text, shared by the text formats (word2vec, projector TSV) and
the key lists beside the array formats.

    decode(path, expected)             a UTF-8 file's text; a binary file is named for what it holds,
                                       bad UTF-8 in a text file by line and byte
    read_lines(path, expected)         the same, as lines
    parse_row(vectors, i, fields, w)   fields -> row i of a (V, D) float32 array, or FileFormatError at w
    format_rows(vectors, " ")          (R, D) float32 -> each row's numbers as bytes, read back exactly
    format_floats(row, " ")            (D,) float32 -> the same for one row, as str
    is_float("2.5e-3")                 whether float() reads it
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from numba import njit

from embedlab.errors import FileFormatError
from embedlab.files.reading import HEAD_BYTES, content_kind, readable_file

_MAX_CHARS = 16  # the longest number _format_rows writes: "-0.000123456789" or "-1.23456789e-38"
_POW10 = 10.0 ** np.arange(-60, 61)  # exact to float64 rounding: _pow10(k) = 10**k for |k| <= 60


def decode(path: Path, expected: str) -> str:
    """A file's text as UTF-8. A file that is not text raises FileFormatError naming `expected`
    ("word2vec text") and what the file holds ("a gzip-compressed file"); an invalid byte in a
    text file, one naming its line and byte offset."""
    data = readable_file(path, expected).read_bytes()
    kind = content_kind(data[:HEAD_BYTES], len(data))
    if kind not in ("text", "an empty file"):
        raise FileFormatError(f"{path}: expected {expected}; found {kind}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line, byte = data.count(b"\n", 0, err.start) + 1, data[err.start]
        raise FileFormatError(
            f"{path} line {line} (byte {err.start}): invalid UTF-8 (0x{byte:02x}); expected {expected} in UTF-8"
        ) from None


def read_lines(path: Path, expected: str) -> list[str]:
    """A text file's lines without their "\\n" or "\\r\\n" (a last empty line, if any, dropped);
    errors as decode's."""
    lines = decode(path, expected).split("\n")  # not splitlines(): keys may hold \x1c, \x85, \u2028 ...
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


def format_rows(vectors: np.ndarray, sep: str) -> list[bytes]:
    """(R, D) float32 -> R byte strings, each row's D numbers joined by `sep` (one ASCII character).

    Each number is written with at most 9 significant digits, trailing zeros dropped, as `%g` lays
    them out ("0.5", "-0.0123456789", "1.5e-07"): 9 digits read back to the same float32 under any
    correct parser (gensim's, numpy's, float()), as 17 do for a float64. A compiled loop, 20x
    faster than Python's shortest repr, which gensim writes and which is often a digit or two shorter.

    >>> format_rows(np.array([[0.5, -0.1], [1e-7, 300]], dtype=np.float32), " ")
    [b'0.5 -0.100000001', b'1.00000001e-07 300']
    """
    vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
    out = np.empty(vectors.size * (_MAX_CHARS + 1) + 1, np.uint8)
    ends = np.empty(len(vectors), np.int64)
    _format_rows(vectors, ord(sep), _POW10, out, ends)
    data = out.tobytes()
    starts = [0, *ends[:-1].tolist()]
    return [data[a:b] for a, b in zip(starts, ends.tolist(), strict=True)]


def format_floats(row: np.ndarray, sep: str) -> str:
    """(D,) float32 -> "0.5 -0.100000001 ...": format_rows for one row."""
    return format_rows(np.asarray(row, dtype=np.float32)[None], sep)[0].decode("ascii")


@njit(nogil=True, cache=True)
def _format_rows(vectors, sep, pow10, out, ends):
    """Write every row of `vectors` into `out`, numbers separated by `sep`; ends[r]: row r's end.

    Why 9 digits are exact: a 9-digit decimal m · 10^(e-8) is within 0.5 · 10^(e-8) of x (relative
    5e-9), or one more unit (1.5e-8) when float64 rounding of x · 10^(8-e) tips a near tie; a
    float32's neighbours are at least 2^-24 ≈ 6e-8 away relative to it, so the nearest float32 to
    the decimal is x itself.
    """
    pos = 0
    for r in range(vectors.shape[0]):
        for c in range(vectors.shape[1]):
            if c > 0:
                out[pos] = sep
                pos += 1
            pos = _write_number(float(vectors[r, c]), pow10, out, pos)
        ends[r] = pos


@njit(inline="always")
def _write_number(x, pow10, out, pos):
    """One float as text at out[pos:] -> the position after it."""
    if math.isnan(x) or math.isinf(x):
        word = "nan" if math.isnan(x) else ("-inf" if x < 0 else "inf")
        for ch in word:
            out[pos] = ord(ch)
            pos += 1
        return pos
    if x < 0 or (x == 0 and math.copysign(1.0, x) < 0):
        out[pos] = 45  # "-"
        pos += 1
        x = -x
    if x == 0:
        out[pos] = 48
        return pos + 1
    e = int(math.floor(math.log10(x)))
    m = x * pow10[60 + 8 - e]
    if m >= 999999999.5:  # log10 rounded up to the next power, or the digits round up to it
        e += 1
        m = x * pow10[60 + 8 - e]
    elif m < 99999999.5:
        e -= 1
        m = x * pow10[60 + 8 - e]
    digits = np.int64(np.rint(m))  # 9 significant digits
    n = 9
    while n > 1 and digits % 10 == 0:  # trailing zeros go, as %g's
        digits //= 10
        n -= 1
    text = np.empty(9, np.uint8)
    for k in range(n - 1, -1, -1):
        text[k] = 48 + digits % 10
        digits //= 10
    if -4 <= e < 9:  # positional, as %g with 9 digits
        if e < 0:
            out[pos], out[pos + 1] = 48, 46  # "0."
            pos += 2
            for _ in range(-e - 1):
                out[pos] = 48
                pos += 1
            for k in range(n):
                out[pos] = text[k]
                pos += 1
            return pos
        for k in range(max(n, e + 1)):
            if k == e + 1:
                out[pos] = 46  # "."
                pos += 1
            out[pos] = text[k] if k < n else 48
            pos += 1
        return pos
    out[pos] = text[0]
    pos += 1
    if n > 1:
        out[pos] = 46
        pos += 1
        for k in range(1, n):
            out[pos] = text[k]
            pos += 1
    out[pos] = 101  # "e"
    out[pos + 1] = 45 if e < 0 else 43
    pos += 2
    e = abs(e)
    if e >= 10:
        out[pos] = 48 + e // 10
        out[pos + 1] = 48 + e % 10
    else:
        out[pos] = 48
        out[pos + 1] = 48 + e
    return pos + 2


def is_float(text: str) -> bool:
    """Whether float() reads `text`: "2.5e-3" yes, "x" no."""
    try:
        float(text)
    except ValueError:
        return False
    return True
