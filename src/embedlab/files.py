"""Writing files so that a crash never leaves a half-written one (temporary name, then rename), the
folder where data built once is kept, and values made fit for strict JSON.

    atomic_write_text(path, text)        readers see the old file or the new one, never a part
    with atomic_writer(path, "wb") as f  the same for a stream
    cache_dir()                          $EMBEDLAB_CACHE, else $XDG_CACHE_HOME/embedlab, else ~/.cache/embedlab
    json_safe(value)                     NumPy scalars -> numbers, arrays and tuples -> lists, NaN/±inf -> None,
                                         a dataclass -> the dict of its fields
    Vector, Matrix, IdVector             how a dataclass declares an array field's JSON form (derived schemas
                                         read it: lab/schemas/derive.py)
"""

from __future__ import annotations

import dataclasses
import math
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Annotated

import numpy as np

from embedlab.errors import InvalidValueError

_UMASK = os.umask(0o022)
os.umask(_UMASK)  # read once: os.umask can only be read by setting it


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write `text` (UTF-8) to `path` atomically: readers see the old file or the new one, never
    a part."""
    with atomic_writer(path, "w") as f:
        f.write(text)
    return Path(path)


@contextmanager
def atomic_writer(path: str | Path, mode: str = "wb") -> Iterator[IO]:
    """Open a temporary file beside `path` for writing ("w" text UTF-8, or "wb"); on a clean exit
    it replaces `path`, on any error it is removed and `path` is untouched.

    The temporary file sits in the same folder, so the rename stays on one filesystem. Use this to
    stream large files (a table of 30,000 rows as text) without holding them in memory.
    """
    path = Path(path)
    if mode not in ("w", "wb"):
        raise InvalidValueError(f"mode must be 'w' or 'wb'; got {mode!r}")
    if path.is_dir():
        raise InvalidValueError(f"{path} is a folder; give a file name to write to")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; the file gets what open() would give it
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as f:
            yield f
        os.replace(tmp, path)
    except BaseException as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):  # name the file the caller asked for, not the temporary one
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise


def cache_dir() -> Path:
    """The folder for data built once and reused (created on first use by whoever writes there)."""
    if os.environ.get("EMBEDLAB_CACHE"):
        return Path(os.environ["EMBEDLAB_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "embedlab"


@dataclasses.dataclass(frozen=True)
class JsonArray:
    """Marks an `np.ndarray` field of an answer dataclass with its JSON form: `ndim` levels of
    lists of `item` (float items may be null: NaN and ±inf become None)."""

    ndim: int
    item: type = float


Vector = Annotated[np.ndarray, JsonArray(1)]  # (n,) floats -> [x, ...]
Matrix = Annotated[np.ndarray, JsonArray(2)]  # (n, m) floats -> [[x, ...], ...]
IdVector = Annotated[np.ndarray, JsonArray(1, int)]  # (n,) integers -> [i, ...]
IdMatrix = Annotated[np.ndarray, JsonArray(2, int)]  # (n, m) integers -> [[i, ...], ...]


def json_safe(value: object) -> object:
    """`value` as strict JSON can hold it, recursively through dataclasses, dicts, lists and tuples:
    a dataclass becomes the dict of its fields, NumPy arrays and tuples become lists, NumPy scalars
    Python numbers, NaN and ±inf None (JSON has no NaN; json.dumps would write a bare `NaN` that
    strict parsers and browsers reject).

    >>> json_safe({"rho": float("nan"), "rows": (np.int64(3), np.float32(0.5)), "norms": np.array([1.0, np.inf])})
    {'rho': None, 'rows': [3, 0.5], 'norms': [1.0, None]}
    """
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: json_safe(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
