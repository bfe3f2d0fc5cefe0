"""A table's map, built once and kept: every stage from the table file to the tiles a page draws.

    folder = build_map("big.npy", "pca", progress=report)   # -> big.npy.tiles/pca, complete
    maps = MapFiles.open("big.npy")                          # what a server reads (no key parsed, no row copied)
    maps.layout("pca").tile("0/0/0")                         # the root tile's rows and points

The stages, each written atomically and skipped when a rerun finds it done (so a killed build
resumes where it stopped):

    keys     every key once, as keystore.py's blob, offsets and sorted hashes (a server never parses them)
    rows     each row's norm and colour codes (row_codes.py), the table streamed chunk by chunk
    layout   the (V, 2) points of one method (tiles.py), then the quadtree, the overlays, the manifest

The cache folder (map_source.tiles_root) holds `source.json`, the fingerprint of the table it was
built from. A table that changed since (another size, time or shape) finds a stale fingerprint and
its old files are removed before anything is built again. One builder at a time per folder: a
second one (another lab, the CLI) is refused with BusyError rather than writing the same files.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from embedlab.errors import BusyError, check_choice
from embedlab.files import atomic_write_text
from embedlab.vectors.keystore import KeyStore
from embedlab.vectors.map_source import MapSource, open_map_source, tiles_root
from embedlab.vectors.projection import PROJECTIONS
from embedlab.vectors.row_codes import write_row_attributes
from embedlab.vectors.tiles import TileTree, build_tiles, is_complete

Progress = Callable[[str, int, int], None]  # (stage, done, total)
KEY_CHUNK = 1_000_000  # keys read from the source at a time while the key store is written
SOURCE = "source.json"  # the fingerprint of the table the folder's files were built from


def build_map(
    table: str | Path | MapSource, method: str = "pca", *, seed: int = 0, progress: Progress | None = None
) -> Path:
    """Build (or finish) `table`'s map by `method` (pca | umap) -> the layout's folder.

    `table` is a built-in name, a path in any format vectors.load reads, or an open MapSource.
    """
    check_choice("method", method, PROJECTIONS)
    source = table if isinstance(table, MapSource) else open_map_source(table)
    root = tiles_root(source)
    root.mkdir(parents=True, exist_ok=True)
    report = progress or (lambda stage, done, total: None)
    with _builder(root):
        _forget_if_stale(root, source)
        keys = _keys(source, root, report)
        write_row_attributes(source, keys, root, progress=report)
        source.forget_labels()  # a sidecar's keys and counts (0.9 GB at 10M keys) are in the files now
        folder = root / method
        if not is_complete(folder):
            folder.mkdir(exist_ok=True)
            build_tiles(source.rows, keys.blob, keys.offsets, source.counts, folder, method, seed=seed,
                        progress=report)  # fmt: skip
    return folder


def is_built(source: MapSource, method: str) -> bool:
    """Whether `source`'s `method` map is complete and of the table as it is now."""
    root = tiles_root(source)
    return is_complete(root / method) and _fingerprint(root) == source.fingerprint


@dataclass(frozen=True, eq=False)
class MapFiles:
    """A built map's files opened for serving: keys, and each complete layout (read on first use)."""

    root: Path
    fingerprint: str  # the table's, as when the files were built
    keys: KeyStore

    @classmethod
    def open(cls, source: MapSource) -> MapFiles:
        root = tiles_root(source)
        return cls(root, _fingerprint(root) or "", KeyStore.open(root))

    def layout(self, method: str) -> TileTree:
        return TileTree.open(self.root / check_choice("method", method, PROJECTIONS))


class ProgressFile:
    """A progress callback that writes the latest (stage, done, total) to a JSON file at most
    every `every` seconds (and at each new stage), for another process to read."""

    def __init__(self, path: Path, every: float = 0.25) -> None:
        self.path, self.every, self._last, self._stage = path, every, 0.0, ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage == self._stage and now - self._last < self.every and done < total:
            return
        self._last, self._stage = now, stage
        atomic_write_text(self.path, json.dumps({"stage": stage, "done": int(done), "total": int(total)}))

    @staticmethod
    def read(path: Path) -> dict:
        """The last progress written ({"stage": "starting", ...} before the first)."""
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return {"stage": "starting", "done": 0, "total": 0}


def _keys(source: MapSource, root: Path, report: Progress) -> KeyStore:
    if (root / "keys.hash.npy").exists():
        return KeyStore.open(root)
    rows = len(source.rows)

    def chunks() -> Iterator[list[str]]:
        for start in range(0, rows, KEY_CHUNK):
            report("keys", start, rows)
            yield source.keys(start, min(start + KEY_CHUNK, rows))
        report("keys", rows, rows)

    return KeyStore.write(root, chunks())


def _fingerprint(root: Path) -> str | None:
    try:
        return json.loads((root / SOURCE).read_text())["fingerprint"]
    except (OSError, ValueError, KeyError):
        return None


def _forget_if_stale(root: Path, source: MapSource) -> None:
    """Remove what `root` holds of another version of the table; record the current one."""
    if _fingerprint(root) == source.fingerprint:
        return
    for entry in root.iterdir():
        if entry.name == ".lock":
            continue
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    atomic_write_text(root / SOURCE, json.dumps({"fingerprint": source.fingerprint, "name": source.name}))


@contextmanager
def _builder(root: Path) -> Iterator[None]:
    """Hold `root`'s build lock (an advisory lock the kernel drops when the holder dies, so a killed
    build leaves no stale lock behind)."""
    with open(root / ".lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BusyError(f"the map of {root} is being built by another process; wait for it") from None
        try:
            os.utime(root / ".lock")
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
