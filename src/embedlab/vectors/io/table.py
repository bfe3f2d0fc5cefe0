"""Table: what every reader returns and every writer takes (V keys, their (V, D) vectors, their
counts), and the checks every format shares.

    Table(["king", "queen"], [[1.0, 2.0], [3.0, 4.0]], counts=[7, 5])
    table_read_from(path, keys, vectors)   a Table whose complaints name the file read
    check_finite(path, keys, vectors)      FileFormatError at the first NaN or ±inf: file, key, column
    check_finite_to_write(path, keys, vectors)   the same before a write: InvalidValueError, nothing touched
    check_keys(table, "word2vec")          refuse keys a text format cannot hold, naming key and row
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from embedlab.errors import FileFormatError, InvalidValueError

# What would split a key in a text format. word2vec tools (C, gensim, fastText) split on ASCII whitespace
# only, so keys may hold other spaces (U+00A0, U+3000).
_W2V_SPACE = frozenset(" \t\n\r\v\f"), "ASCII whitespace"
_FORBIDDEN = {
    "word2vec": _W2V_SPACE,
    "word2vec-bin": _W2V_SPACE,
    "projector": (frozenset("\t\n\r"), "tabs or line breaks"),
}


@dataclass(frozen=True, eq=False)  # eq=False: comparing arrays elementwise has no single truth value
class Table:
    """V keys, their vectors and optionally their corpus counts, row i belonging to keys[i].

    >>> t = Table(["king", "queen"], [[1.0, 2.0], [3.0, 4.0]], counts=[7, 5])
    >>> t.vectors.dtype, t.vectors.shape
    (dtype('float32'), (2, 2))
    """

    keys: list[str]  # (V,) unique
    vectors: np.ndarray  # (V, D) float32, C-contiguous
    counts: list[int] | None = None  # (V,) non-negative, or None when unknown

    def __post_init__(self) -> None:
        vectors = np.asarray(self.vectors)
        if vectors.ndim != 2 or vectors.dtype.kind != "f":
            raise InvalidValueError(f"vectors must be a 2-D float array (V, D); got {vectors.dtype} {vectors.shape}")
        keys = list(self.keys)
        if len(keys) != len(vectors):
            raise InvalidValueError(f"{len(keys)} keys for {len(vectors)} rows of vectors; need one key per row")
        bad = next((i for i, key in enumerate(keys) if not isinstance(key, str)), None)
        if bad is not None:
            raise InvalidValueError(f"key at row {bad} must be a str; got {keys[bad]!r}")
        if dup := first_duplicate(keys):
            raise InvalidValueError(f"duplicate key {dup[0]!r} at rows {dup[1]} and {dup[2]}; keys must be unique")
        counts = self.counts
        if counts is not None:
            counts = list(counts)
            if len(counts) != len(keys):
                raise InvalidValueError(f"{len(counts)} counts for {len(keys)} keys; need one count per key")
            for i, c in enumerate(counts):
                if isinstance(c, bool) or not isinstance(c, numbers.Integral) or c < 0:
                    raise InvalidValueError(f"count at row {i} ({keys[i]!r}) must be an integer >= 0; got {c!r}")
            counts = [int(c) for c in counts]
        object.__setattr__(self, "keys", keys)
        object.__setattr__(self, "vectors", np.ascontiguousarray(vectors, dtype=np.float32))
        object.__setattr__(self, "counts", counts)


def first_duplicate(keys: list[str]) -> tuple[str, int, int] | None:
    """['a', 'b', 'a'] -> ('a', 0, 2): the first repeated key and the rows of its first two uses."""
    seen: dict[str, int] = {}
    for row, key in enumerate(keys):
        if seen.setdefault(key, row) != row:
            return key, seen[key], row
    return None


def table_read_from(path: Path, keys: list, vectors: np.ndarray, counts: list | None = None) -> Table:
    """A Table from what was read at `path`, its complaints (duplicates, bad counts) naming the file."""
    try:
        return Table(keys, vectors, counts)
    except InvalidValueError as err:
        raise FileFormatError(f"{path}: {err}") from None


ROWS_PER_CHECK = 65536  # rows checked at once: a mapped (B, D) bucket matrix is never copied whole


def check_finite(
    path: Path,
    keys: list[str] | None,
    vectors: np.ndarray,
    first_line: int | None = None,
    error: type = FileFormatError,
    why: str = "vectors must be finite numbers",
) -> None:
    """Raise FileFormatError (or `error`) at the first NaN or ±inf of `vectors` (V, D) read from
    `path`, naming its row's key and its column (and its line, given `first_line`, the line of row 0
    in a text file); `keys` None: rows without keys (a bucket matrix), named by number alone. `why`
    ends the message (what is wrong, and what to do: a training run says it diverged).

    A NaN row would score nan against everything and poison every mean (the centroid, PCA), so a
    table holding one is refused where it enters, not found later in a strange answer.
    """
    for start in range(0, len(vectors), ROWS_PER_CHECK):
        block = np.asarray(vectors[start : start + ROWS_PER_CHECK])
        finite = np.isfinite(block)
        if finite.all():
            continue
        row, column = (int(i) for i in np.argwhere(~finite)[0])  # the first in file order
        value, row = block[row, column], start + row
        where = f"{path} line {first_line + row}" if first_line is not None else str(path)
        key = "" if keys is None else f" ({keys[row]!r})" if row < len(keys) else " (no key)"
        raise error(f"{where}: row {row}{key} column {column} holds {value}; {why}")


def check_finite_to_write(
    path: Path, keys: list[str] | None, vectors: np.ndarray, why: str = "vectors must be finite numbers"
) -> None:
    """check_finite before writing `vectors` to `path`: InvalidValueError, before any file is touched,
    so no file is written that a reader (ours, gensim's, fastText's) would refuse or misread."""
    check_finite(Path(f"cannot write {path}"), keys, vectors, error=InvalidValueError, why=why)


def check_keys(table: Table, format: str) -> None:
    """Refuse, before any file is touched, a key the text `format` cannot hold (empty, or holding
    one of its separators), naming the key and its row."""
    forbidden, what = _FORBIDDEN[format]
    for row, key in enumerate(table.keys):
        if not key or not forbidden.isdisjoint(key):
            raise InvalidValueError(
                f"key {key!r} at row {row} cannot be stored in the {format} format: its keys must be non-empty "
                f"and hold no {what}"
            )
