"""Writing files so that a crash never leaves a half-written one (temporary name, then rename), the
folder where data built once is kept, values made fit for strict JSON, and files mapped for reading
that must not change underneath. Reading files that may not be what they claim: files/reading.py.

    check_path(path, what)               refuse an empty path ("" is Path("."), the current folder)
    atomic_write_text(path, text)        readers see the old file or the new one, never a part (replace=False: new only)
    with atomic_writer(path, "wb") as f  the same for a stream
    atomic_writer(path, replace=False)   ... and created exclusively: if `path` appeared meanwhile, OutputExistsError
    make_new_folder(path, claim)         a new folder, claimed by creating its first file exclusively
    FileStamp.of(path).check()           a file mapped for reading has not changed (a cut one would kill the reader)
    cache_dir()                          $EMBEDLAB_CACHE, else $XDG_CACHE_HOME/embedlab, else ~/.cache/embedlab
    json_safe(value)                     NumPy scalars -> numbers, arrays and tuples -> lists, NaN/±inf -> None,
                                         a dataclass -> the dict of its fields
    Vector, Matrix, IdVector             how a dataclass declares an array field's JSON form (derived schemas
                                         read it: lab/schemas/derive.py)
"""

from __future__ import annotations

import dataclasses
import errno
import math
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Annotated

import numpy as np

from embedlab.errors import (
    EmbedlabError,
    FileChangedError,
    InvalidValueError,
    OutputExistsError,
)

_UMASK = os.umask(0o022)
os.umask(_UMASK)  # read once: os.umask can only be read by setting it


def check_path(path: str | Path, what: str = "a path") -> str | Path:
    """`path` unless it is empty: Path("") is Path("."), so an empty string (a variable that was
    never set, a quoted nothing) would read or write the current folder.

    >>> check_path("t.txt")
    't.txt'
    """
    if isinstance(path, str) and not path.strip():
        raise InvalidValueError(f"{what} is empty ({path!r}); give a file or folder name ('.' for the current folder)")
    return path


def atomic_write_text(path: str | Path, text: str, replace: bool = True) -> Path:
    """Write `text` (UTF-8) to `path` atomically: readers see the old file or the new one, never
    a part. replace False: `path` must be new when it is created (atomic_writer)."""
    with atomic_writer(path, "w", replace=replace) as f:
        f.write(text)
    return Path(path)


@contextmanager
def atomic_writer(path: str | Path, mode: str = "wb", replace: bool = True) -> Iterator[IO]:
    """Open a temporary file beside `path` for writing ("w" text UTF-8, or "wb"); on a clean exit
    it replaces `path`, on any error it is removed and `path` is untouched.

    replace False: `path` must be new at the moment it is created, not only when the caller looked:
    the finished file is hard-linked into place, which fails if anything is there by then (another
    process writing the same new output), and OutputExistsError names `path`, left as it was.
    Of two writers of one new path, exactly one wins.

    The temporary file sits in the same folder, so the rename stays on one filesystem. Use this to
    stream large files (a table of 30,000 rows as text) without holding them in memory.
    """
    path = Path(check_path(path, "an output path"))
    if mode not in ("w", "wb"):
        raise InvalidValueError(f"mode must be 'w' or 'wb'; got {mode!r}")
    if path.is_dir():
        raise InvalidValueError(f"{path} is a folder; give a file name to write to")
    if not replace and os.path.lexists(path):  # fail before the work; the link below decides
        raise _exists(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; the file gets what open() would give it
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if mode == "w" else {})) as f:
            yield f
        if replace:
            os.replace(tmp, path)
        else:
            _link_new(tmp, path)
    except BaseException as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError) and not isinstance(
            err, EmbedlabError
        ):  # name the caller's file, not the temporary one
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise


def _link_new(tmp: str, path: Path) -> None:
    """Put the finished temporary file `tmp` at `path` only if nothing is there: os.link is atomic
    and fails with EEXIST, so of two writers exactly one gets the name."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise _exists(path) from None
    except OSError as err:  # a filesystem without hard links (EPERM, ENOTSUP): claim the name, then rename
        if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
            raise
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666 & ~_UMASK))
        except FileExistsError:
            raise _exists(path) from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


def _exists(path: Path) -> OutputExistsError:
    return OutputExistsError(f"{path} already exists (another writer created it first); it was left as it was")


def make_new_folder(path: str | Path, claim: str) -> Path:
    """Take the folder `path` (made with its parents if missing; else it must be empty) for one
    writer, by creating its first file `claim` (empty, for the writer to write over) exclusively:
    of two writers of one new folder, exactly one gets it, and the other gets OutputExistsError
    naming it, before either writes anything else. -> path"""
    path = Path(check_path(path, "an output folder"))
    path.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(path / claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666 & ~_UMASK))
    except FileExistsError:
        raise OutputExistsError(
            f"{path} was taken by another writer ({claim} appeared); choose another folder"
        ) from None
    if any(p.name != claim for p in path.iterdir()):
        (path / claim).unlink()
        raise OutputExistsError(f"{path} is not empty; choose another folder")
    return path


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


# ----- files read in parts: memory-mapped, so they must not change underneath ----------------------


@dataclasses.dataclass(frozen=True)
class FileStamp:
    """What a file was when it was opened to be read in parts (memory-mapped): its identity, size
    and modification time. A mapped file that another process cuts short kills the reader with
    SIGBUS the moment a page past the new end is touched, so every read through a mapping checks
    the stamp first (`check`): a file changed in any way is an error, never a dead process.

    >>> stamp = FileStamp.of(__file__); stamp.check()
    """

    path: Path
    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str | Path) -> FileStamp:
        st = os.stat(path)
        return cls(Path(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def changed(self) -> str | None:
        """How the file differs from the stamp, in words, or None if it does not."""
        try:
            now = FileStamp.of(self.path)
        except OSError:
            return "it was removed"
        if (now.device, now.inode) != (self.device, self.inode):
            return "another file was put in its place"
        if now.size != self.size:
            return f"its size went from {self.size:,} to {now.size:,} bytes"
        if now.mtime_ns != self.mtime_ns:
            return "it was written again"
        return None

    def check(self, name: str | None = None) -> None:
        """Raise FileChangedError, naming `name` (default: the file) and how it changed, unless the
        file is as stamped."""
        how = self.changed()
        if how is not None:
            raise FileChangedError(
                f"{name or self.path}: the file it reads in parts changed on disk since it was loaded ({how}); "
                "its rows are no longer read: load it again"
            )
