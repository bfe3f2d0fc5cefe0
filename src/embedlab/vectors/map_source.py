"""Any table's rows for a map, opened without copying them: what a tiled projector reads.

    source = open_map_source("big.npy")     # rows: np.load(mmap_mode="r"), nothing read yet
    source = open_map_source("model.bin")   # a fastText .bin: EVERY input row, its words then its n-gram buckets
    source = open_map_source("minilm")      # any other table (built-in, run folder, word2vec ...): vectors.load's rows
    source.rows                             # (V, D) float32, read-only
    source.keys(0, 5), source.counts        # keys of rows [0, 5); (V,) counts or None, read on first use
    source.fingerprint                      # of the table's files: size, mtime_ns, shape, dtype
    tiles_root(source)                      # where its map's files go: "big.npy.tiles/" beside it, else the cache

Which rows each kind of table gives:

    .npy (+ NAME.vocab.json)   the array memory-mapped (float32, C order; any other .npy is loaded);
                               its keys and counts parsed from the sidecar the first time they are asked
                               for and kept until forget_labels(): JSON of ten million keys took 5.7 s,
                               a peak of 1.6 GB and 0.9 GB held, so a server reads its keys from the
                               map's key store instead
    fastText .bin              the mapped input matrix (V = nwords + bucket): row i < nwords is word i,
                               row nwords + b is n-gram bucket b, keyed "bucket b" (a space, so no word
                               is spelled so). Its counts are None: bucket rows have none
    anything else              vectors.load(name_or_path)'s rows (small tables: they are read whole)

Nothing here checks the values of a mapped table (that would read every page).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_int
from embedlab.files import cache_dir, check_path
from embedlab.files.reading import KIND_NPY, file_exists, not_readable, read_json, readable_file
from embedlab.vectors.io.arrays import NPY, sidecar
from embedlab.vectors.io.fasttext import is_fasttext, read_fasttext
from embedlab.vectors.io.text import read_lines

TILES = ".tiles"  # the map folder beside a table file: "big.npy" -> "big.npy.tiles"
BUCKET = "bucket {}"  # the key of a fastText .bin's n-gram bucket row


class Labels:
    """Where a source's keys and counts come from (each kind of table has its own)."""

    def keys(self, start: int, stop: int) -> list[str]:
        raise NotImplementedError

    @property
    def counts(self) -> np.ndarray | None:
        raise NotImplementedError

    def forget(self) -> None:
        """Let go of what was parsed to answer (read again if asked for again)."""


class ListLabels(Labels):
    """Keys and counts already in memory (a table read whole)."""

    def __init__(self, keys: Sequence[str], counts: np.ndarray | None) -> None:
        self._keys, self._counts = keys, counts  # (V,) str; (V,) int64 or None

    def keys(self, start: int, stop: int) -> list[str]:
        return list(self._keys[start:stop])

    @property
    def counts(self) -> np.ndarray | None:
        return self._counts


class SidecarLabels(Labels):
    """A .npy's keys and counts from NAME.vocab.json (or NAME.tokens.txt), parsed the first time asked."""

    def __init__(self, path: Path, rows: int) -> None:
        self.path, self.rows = path, rows

    @cached_property
    def _parsed(self) -> tuple[list[str], np.ndarray | None]:
        vocab, tokens = sidecar(self.path), sidecar(self.path, ".tokens.txt")
        if file_exists(vocab, "a table's key list"):
            source = vocab
            obj = read_json(vocab, "table key list", "write the table again, which writes both files")
            keys, counts = obj.get("keys"), obj.get("counts")
            if not (isinstance(keys, list) and isinstance(counts, list | None)):
                raise FileFormatError(f'{vocab}: expected {{"keys": [strings], "counts": [integers] or null}}')
        elif file_exists(tokens, "a table's key list"):
            source, keys, counts = tokens, read_lines(tokens, "a key list: one key a line"), None
        else:
            raise MissingDataError(f"{self.path} has no key list beside it: expected {vocab.name} (or {tokens.name})")
        if len(keys) != self.rows or (counts is not None and len(counts) != self.rows):
            what = f"{len(keys):,} keys" + ("" if counts is None else f" and {len(counts):,} counts")
            raise FileFormatError(f"{source}: {what}, but {self.path.name} has {self.rows:,} rows")
        return keys, None if counts is None else np.asarray(counts, dtype=np.int64)

    def keys(self, start: int, stop: int) -> list[str]:
        return self._parsed[0][start:stop]

    @property
    def counts(self) -> np.ndarray | None:
        return self._parsed[1]

    def forget(self) -> None:
        self.__dict__.pop("_parsed", None)  # cached_property keeps its value in the instance's __dict__


class FastTextLabels(Labels):
    """A fastText .bin's input rows: its words, then its n-gram buckets ("bucket b")."""

    def __init__(self, words: list[str], rows: int) -> None:
        self.words, self.rows = words, rows  # the nwords words (labels have no input row)

    def keys(self, start: int, stop: int) -> list[str]:
        nwords = len(self.words)
        words = self.words[start:stop] if start < nwords else []
        return words + [BUCKET.format(b) for b in range(max(start, nwords) - nwords, stop - nwords)]

    @property
    def counts(self) -> None:
        return None


@dataclass(frozen=True, eq=False)  # eq=False: rows are arrays
class MapSource:
    """A table opened for a map: its rows, never copied where the file can be mapped."""

    name: str  # the table's built-in name, or its file's or folder's name
    rows: np.ndarray  # (V, D) float32, read-only (a memory map for .npy and fastText .bin)
    fingerprint: str  # of the table's files (size, mtime_ns), shape and dtype: changes when the table does
    path: Path | None  # the table's file or folder (absolute); None for a built-in table
    files: tuple[Path, ...]  # the files the fingerprint is of
    labels: Labels = field(repr=False)  # its keys and counts

    def __repr__(self) -> str:
        V, D = self.rows.shape
        return f"MapSource({self.name!r}, {V:,} rows x {D}, {type(self.labels).__name__}, {self.fingerprint[:12]})"

    def keys(self, start: int, stop: int) -> list[str]:
        """The keys of rows [start, stop), 0 <= start <= stop <= V."""
        V = len(self.rows)
        stop = check_int("stop", stop, low=0, high=V)
        start = check_int("start", start, low=0, high=stop)
        return self.labels.keys(start, stop)

    @property
    def counts(self) -> np.ndarray | None:
        """(V,) int64 corpus counts, or None when the table has none (read on first use: see the module)."""
        return self.labels.counts

    def forget_labels(self) -> None:
        """Let go of the keys and counts parsed from a .npy's sidecar (ten million keys hold about 0.9
        GB): a build calls it once its key store and codes are written."""
        self.labels.forget()

    def current_fingerprint(self) -> str:
        """The fingerprint of the table's files as they are now (another than `fingerprint`: it changed)."""
        return fingerprint(self.files, self.rows.shape, self.rows.dtype)


def open_map_source(name_or_path: str | Path) -> MapSource:
    """A built-in table's name or a table's path (any format vectors.load reads) -> MapSource.

    A name that is neither raises MissingDataError, as vectors.load does; a damaged file its reader's
    FileFormatError."""
    from embedlab.data.models import MODELS, model_dir
    from embedlab.vectors.subword import load
    from embedlab.vectors.table import Vectors

    text = str(check_path(name_or_path, "a table's name or path"))
    if text in MODELS:
        path, folder = None, model_dir(text)
        files, name = _files_of(folder), text
    elif os.path.exists(text):
        path = Path(text).absolute()
        files, name = _files_of(path), path.name
        if path.is_file() and path.suffix.lower() == ".npy":
            if not (sidecar(path).is_file() or sidecar(path, ".tokens.txt").is_file()):
                raise MissingDataError(f"{path} has no key list beside it: expected {sidecar(path).name} "
                                       f"(or {sidecar(path, '.tokens.txt').name})")  # fmt: skip
            rows = _map_npy(path)
            if rows is not None:
                return MapSource(name, rows, fingerprint(files, rows.shape, rows.dtype), path, files,
                                 SidecarLabels(path, len(rows)))  # fmt: skip
        if is_fasttext(path):
            model = read_fasttext(path)
            if isinstance(model.input, np.ndarray):  # not a .ftz's quantized rows
                rows = model.input
                labels = FastTextLabels(model.words[: model.nwords], len(rows))
                return MapSource(name, rows, fingerprint(files, rows.shape, rows.dtype), path, files, labels)
    else:
        raise MissingDataError(f"table {text!r} is neither a built-in table ({', '.join(MODELS)}) nor a path")
    vectors: Vectors = load(text)
    rows = vectors.vectors
    labels = ListLabels(vectors.index_to_key, vectors.counts)
    return MapSource(name, rows, fingerprint(files, rows.shape, rows.dtype), path, files, labels)


def tiles_root(source: MapSource) -> Path:
    """The folder of `source`'s map: "<table file>.tiles/" beside the table (a run folder's: beside the
    folder) when that can be written, else embedlab.files.cache_dir()/tiles/<name>-<fingerprint[:12]>/
    (always so for a built-in table)."""
    if source.path is not None:
        beside = source.path.with_name(source.path.name + TILES)
        if _writable(beside):
            return beside
    return cache_dir() / "tiles" / f"{source.name}-{source.fingerprint[:12]}"


def fingerprint(files: Sequence[Path], shape: tuple[int, ...], dtype: np.dtype) -> str:
    """32 hex digits from each file's name, size and mtime_ns, and the rows' shape and dtype.

    >>> len(fingerprint([Path(__file__)], (3, 2), np.dtype(np.float32)))
    32
    """
    parts = []
    for f in files:
        try:
            st = os.stat(f)
            parts.append(f"{f.name}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{f.name}:gone")  # removed since it was opened: a fingerprint no build has
    parts.append(f"{tuple(shape)}:{np.dtype(dtype).str}")
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=16).hexdigest()


def _map_npy(path: Path) -> np.ndarray | None:
    """A .npy's (V, D) float32 C-order array, memory-mapped read-only; None for an array of another
    dtype or order (read whole instead, by vectors.load). A file that is no .npy raises FileFormatError."""
    readable_file(path, NPY)
    try:
        rows = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as err:  # not a .npy, a damaged header, cut short, objects
        raise not_readable(path, NPY, KIND_NPY, err) from None
    if rows.ndim != 2:
        raise InvalidValueError(f"{path}: expected a 2-D array (V, D) of floats; found shape {rows.shape}")
    if rows.dtype != np.dtype("<f4") or not rows.flags.c_contiguous:
        return None
    return rows


def _files_of(path: Path) -> tuple[Path, ...]:
    """The files a table is read from: a file and its sidecars, or a folder's files (not its subfolders')."""
    if path.is_dir():
        return tuple(sorted(p for p in path.iterdir() if p.is_file()))
    return (path, *(p for p in (sidecar(path), sidecar(path, ".tokens.txt")) if p.is_file()))


def _writable(folder: Path) -> bool:
    """Whether `folder` can hold new files: it is a writable folder, or it can be made in a writable one."""
    if folder.is_dir():
        return os.access(folder, os.W_OK | os.X_OK)
    return not folder.exists() and os.access(folder.parent, os.W_OK | os.X_OK)
