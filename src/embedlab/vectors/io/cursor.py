"""A cursor over a mapped binary file (fastText's .bin and .ftz: fasttext.py, ftz.py) whose every
complaint is a FileFormatError naming the file and the byte offset, and which checks that the bytes
it is asked for are there before anything is made of them.

    r = Reader(path, mapped)      r.pos: the cursor, from 0
    r.need(size, what)            -> where `size` bytes for `what` start; moves past them
    r.unpack(fmt, what), r.flag(what), r.matrix(name, rows, cols)
    raise r.fail(what, at=None)   FileFormatError "PATH byte N: what"
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

import numpy as np

from embedlab.errors import FileFormatError
from embedlab.vectors.io.fasttext_model import MATRIX_FORMAT


class Reader:
    """A cursor over a mapped file whose every complaint names the file and the byte offset."""

    def __init__(self, path: Path, data: mmap.mmap) -> None:
        self.path, self.data, self.pos = path, data, 0

    def fail(self, what: str, at: int | None = None) -> FileFormatError:
        return FileFormatError(f"{self.path} byte {self.pos if at is None else at:,}: {what}")

    def need(self, size: int, what: str) -> int:
        """Check `size` bytes remain at the cursor for `what`, move past them -> where they start."""
        start, left = self.pos, len(self.data) - self.pos
        if size > left:
            raise self.fail(
                f"expected {what} ({size:,} bytes), but the file ends {left:,} bytes later: it is cut short"
            )
        self.pos += size
        return start

    def unpack(self, fmt: str, what: str) -> tuple:
        return struct.unpack_from(fmt, self.data, self.need(struct.calcsize(fmt), what))

    def flag(self, what: str) -> bool:
        (value,) = self.unpack("<B", what)
        if value > 1:
            raise self.fail(f"expected {what} (a byte 0 or 1); found {value}", self.pos - 1)
        return bool(value)

    def matrix(self, name: str, rows: int, cols: int) -> np.ndarray:
        """The (rows, cols) float32 matrix at the cursor, mapped: its shape is checked against the
        model and against the bytes left before anything is mapped."""
        at = self.pos
        m, n = self.unpack(MATRIX_FORMAT, f"the {name} matrix's shape (2 int64)")
        if (m, n) != (rows, cols):
            raise self.fail(f"expected the {name} matrix of shape ({rows:,}, {cols:,}); found ({m:,}, {n:,})", at)
        start = self.need(4 * m * n, f"the {name} matrix's {m:,} x {n:,} float32")
        return np.frombuffer(self.data, dtype="<f4", count=m * n, offset=start).reshape(m, n)
