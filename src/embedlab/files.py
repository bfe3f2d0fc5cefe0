"""Writing files so that a crash never leaves a half-written one: temporary name, then rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from embedlab.errors import InvalidValueError


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write `text` (UTF-8) to `path` atomically: readers see the old file or the new one, never
    a part. The temporary file sits in the same folder, so the rename stays on one filesystem."""
    path = Path(path)
    if path.is_dir():
        raise InvalidValueError(f"{path} is a folder; give a file name to write to")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):  # name the file the caller asked for, not the temporary one
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise
    return path
