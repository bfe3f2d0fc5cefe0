"""Rows that take minutes to compute, kept on disk chunk by chunk as they are made, so that a run cut short
resumes where it stopped and a second run with the same inputs reads them back: distillation's pass of
every token through the encoder, and the teacher's sentence vectors that `distill --train` fits to.

    rows = kept_rows(folder, count=30522, width=384, make=lambda start, stop: ..., chunk=4096)
    folder = cache_dir() / "distill" / f"outputs-{model_key(encoder)}-..."

A chunk is one .npy file, written atomically (a temporary file renamed), named by its index; one that is
missing, cut short, of the wrong shape or not finite is made again. What the rows depend on goes into
the folder's name (model_key: every weight of the model), never into the files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from embedlab.files import atomic_writer


def kept_rows(
    folder: Path | None,
    count: int,
    width: int,
    make: Callable[[int, int], np.ndarray],
    chunk: int,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """(count, width) float32: rows [start, stop) from `make(start, stop)`, `chunk` at a time, each chunk
    read from `folder` when kept there and written there when made (`folder` None: nothing kept).
    `progress(n)` is told each chunk's rows."""
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    out = np.empty((count, width), dtype=np.float32)
    for start in range(0, count, chunk):
        stop = min(start + chunk, count)
        path = None if folder is None else folder / f"{start // chunk:06d}.npy"
        rows = _read(path, stop - start, width)
        if rows is None:
            rows = np.asarray(make(start, stop), dtype=np.float32)
            if path is not None:
                with atomic_writer(path, "wb") as f:
                    np.save(f, rows)
        out[start:stop] = rows
        if progress:
            progress(stop - start)
    return out


def model_key(module: torch.nn.Module) -> str:
    """16 hex digits of the md5 of every parameter and buffer of `module`, by name."""
    digest = hashlib.md5()
    for name, tensor in sorted(module.state_dict().items()):
        digest.update(name.encode() + tensor.detach().contiguous().cpu().numpy().tobytes())
    return digest.hexdigest()[:16]


def _read(path: Path | None, rows: int, width: int) -> np.ndarray | None:
    """A kept chunk, or None if there is none whole (it is made again)."""
    if path is None:
        return None
    try:
        kept = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    ok = kept.shape == (rows, width) and kept.dtype == np.float32 and np.isfinite(kept).all()
    return kept if ok else None
