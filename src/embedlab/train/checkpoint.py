"""Checkpoints: a training run's arrays and its cursor in one file, written atomically.

    save_checkpoint(out / "checkpoint.pt", {"w_in": w_in, ...}, {"epoch": 2, "step": 41, ...})
    arrays, meta = load_checkpoint(out / "checkpoint.pt")

The file is `torch.save` of {"arrays": {name: tensor}, "meta": {...}} and is read back with
`torch.load(weights_only=True)`, which refuses anything but tensors and plain containers, so a
checkpoint from elsewhere cannot run code. NumPy arrays go in as tensors sharing their memory and
come out as NumPy arrays again. The write goes to a temporary file renamed over the old
checkpoint: a run killed while saving keeps the previous checkpoint whole.
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

import numpy as np
import torch

from embedlab.errors import FileFormatError, MissingDataError
from embedlab.files import atomic_writer
from embedlab.files.reading import KIND_ZIP, file_exists, file_kind, not_readable
from embedlab.vectors.io.run import DAMAGED_RUN

FORMAT = 1  # bumped when the layout of "arrays"/"meta" changes


def save_checkpoint(path: str | Path, arrays: dict[str, np.ndarray | torch.Tensor], meta: dict) -> Path:
    """Write `arrays` (NumPy or torch, any shape) and `meta` (JSON-like values) to `path` atomically."""
    tensors = {name: _tensor(a) for name, a in arrays.items()}
    with atomic_writer(path, "wb") as f:
        torch.save({"format": FORMAT, "arrays": tensors, "meta": _plain(meta)}, f)
    return Path(path)


def load_checkpoint(path: str | Path) -> tuple[dict[str, np.ndarray], dict]:
    """-> (arrays as NumPy, meta) from a file written by save_checkpoint."""
    path = Path(path)
    if not file_exists(path, "an embedlab checkpoint"):
        raise MissingDataError(f"no checkpoint at {path}")
    expected = f"an embedlab checkpoint of format {FORMAT} (a torch zip file)"
    if file_kind(path) != KIND_ZIP:  # named for what it holds, not by torch's many-line message
        raise not_readable(path, expected, KIND_ZIP)
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except (RuntimeError, pickle.UnpicklingError, zipfile.BadZipFile, EOFError, OSError):
        # torch's own message runs over many lines; a zip that torch cannot read is damaged or cut short
        raise FileFormatError(f"{path}: expected {expected}, but it is cut short or damaged; {DAMAGED_RUN}") from None
    if not (isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("arrays"), dict)):
        raise FileFormatError(f"{path}: expected {expected}; found another torch file; {DAMAGED_RUN}")
    return {name: _array(t) for name, t in data["arrays"].items()}, data.get("meta", {})


def _plain(value):
    """NumPy scalars in `value` as Python numbers: weights_only loading refuses NumPy objects."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        raise TypeError("checkpoint meta holds plain values; put arrays in `arrays`")
    return value


def _tensor(a: np.ndarray | torch.Tensor) -> torch.Tensor:
    if torch.is_tensor(a):
        return a.detach().cpu()
    a = np.ascontiguousarray(a)
    if a.dtype == np.uint64:  # torch stores uint64 but few of its ops take it: keep the bits as int64
        return torch.from_numpy(a.view(np.int64)).clone().view(torch.uint64)
    return torch.from_numpy(a)


def _array(t: torch.Tensor) -> np.ndarray:
    if t.dtype == torch.uint64:
        return t.view(torch.int64).numpy().view(np.uint64)
    return t.numpy()
