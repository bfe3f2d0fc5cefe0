"""Caller mistakes, as exceptions that name the bad value and the allowed range.

Every error a user can cause derives from `EmbedlabError`, so the CLI can turn it into one line
on stderr. Each subclass also derives from the built-in type a Python user would catch
(`ValueError`, `KeyError`, `FileNotFoundError`).

The `check_*` helpers validate at the boundary: call them where user input enters a public
function, not deep inside the math.

Importing this module imports neither NumPy nor torch (the command line imports it to print its
errors, and must start at once): an argument can only be a torch tensor if torch is already loaded,
so the checks look in `sys.modules` rather than importing it.
"""

from __future__ import annotations

import difflib
import math
import numbers
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import torch


class EmbedlabError(Exception):
    """Base class of every error a caller can cause."""


class InvalidValueError(EmbedlabError, ValueError):
    """A value outside its allowed range, or of the wrong kind.

    `param`, when set, is the parameter the message starts with ("topn must be >= 1; got 0"): a
    caller that knows that parameter by another name (the command line's -k/--topn) can say it so.
    """

    def __init__(self, *args: object, param: str | None = None) -> None:
        super().__init__(*args)
        self.param = param  # the library's name of the bad value, or None


class DivergedError(InvalidValueError):
    """A training run whose rows went to NaN or ±inf (its learning rate too high): the run records
    itself as diverged, with this message, and writes no table a reader would refuse."""


class UnknownNameError(EmbedlabError, KeyError):
    """A name (model, preset, recipe, ...) that is not among the known ones."""

    def __str__(self) -> str:
        # KeyError's str() wraps the message in quotes; an error message should read plainly.
        return str(self.args[0]) if self.args else ""


class UnknownKeyError(UnknownNameError):
    """A key that is not in a table of vectors; the message suggests the closest known spellings."""


class MissingDataError(EmbedlabError, FileNotFoundError):
    """A file, folder or built-in data package that is not there."""


class OutputExistsError(EmbedlabError, FileExistsError):
    """An output that was to be created new, found already there at the moment of creation (another
    process wrote it first): what was there is left as it was."""


class FileChangedError(EmbedlabError):
    """A file read in parts (memory-mapped) that changed on disk since it was opened: its rows can no
    longer be trusted, nor safely touched (a mapping of a file cut short kills the process)."""


class BusyError(EmbedlabError):
    """A background job (a training run, a race) was started while another one is running."""


class FileFormatError(InvalidValueError):
    """A file that is corrupt, truncated or not in the format it claims; the message names the
    file and the line (text formats) or byte offset (binary formats) where reading failed, or what
    was expected and what the file holds instead, in plain words (reading.not_readable)."""


def plain(text: object, limit: int = 200) -> str:
    """`text` (another library's message, a line read from a file) as one printable line for an
    error message: runs of whitespace and line breaks become one space, other unprintable
    characters "?", and a text longer than `limit` is cut, ending in "...".

    >>> plain("EOF while parsing\\n  at line 1\\x00")
    'EOF while parsing at line 1?'
    """
    text = "".join(c if c.isprintable() else "?" for c in " ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def unknown_name(kind: str, name: str, known: list[str] | tuple[str, ...]) -> UnknownNameError:
    """The error for `name` not among `known`, listing them: 'unknown preset 'x'; known: a, b'."""
    return UnknownNameError(f"unknown {kind} {name!r}; known: {', '.join(sorted(known))}")


def check_int(name: str, value: object, *, low: int | None = None, high: int | None = None) -> int:
    """Return `value` as int if it is an integer in [low, high]; else raise InvalidValueError.

    >>> check_int("dim", 8, low=1)
    8
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidValueError(f"{name} must be an integer; got {value!r}", param=name)
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise InvalidValueError(f"{name} must be {_range(low, high)}; got {value}", param=name)
    return value


def check_float(name: str, value: object, *, low: float | None = None, high: float | None = None) -> float:
    """Return `value` as float if it is a finite real number in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise InvalidValueError(f"{name} must be a finite number; got {value!r}", param=name)
    value = float(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise InvalidValueError(f"{name} must be {_range(low, high)}; got {value}", param=name)
    return value


def check_choice(name: str, value: object, choices: tuple[str, ...] | list[str]) -> str:
    """Return `value` if it is one of `choices`."""
    if value not in choices:
        raise InvalidValueError(f"{name} must be one of {', '.join(map(str, choices))}; got {value!r}", param=name)
    return value  # type: ignore[return-value]


def check_ids(ids: torch.Tensor | np.ndarray, size: int, what: str = "token id", size_name: str = "vocab_size") -> None:
    """Raise InvalidValueError unless every id is an integer in [0, size).

    Works on torch tensors (any device) and NumPy arrays, of any shape. The message names the
    first bad id in row-major order and the table size, e.g.
    "token id 50257 is out of range: vocab_size is 50257 (allowed 0..50256)".
    The check costs one reduction over the ids, tiny next to the lookup itself.
    """
    import numpy as np

    tensor = is_tensor(ids)
    if not tensor:
        ids = np.asarray(ids)
    check_integer_dtype(ids, what)
    if tensor and str(ids.dtype) not in ("torch.int32", "torch.int64"):
        ids = ids.long()  # narrow dtypes (uint8, int16) would wrap when compared with `size`
    elif not tensor and ids.dtype.itemsize < 8:
        ids = ids.astype(np.int64)
    bad = (ids < 0) | (ids >= size)
    if bool(bad.any()):
        first = int(ids[bad].reshape(-1)[0])
        raise InvalidValueError(f"{what} {first} is out of range: {size_name} is {size} (allowed 0..{size - 1})")


def check_integer_dtype(ids: torch.Tensor | np.ndarray, what: str = "token id") -> None:
    """Raise InvalidValueError unless `ids` holds integers (bool, float and complex are refused)."""
    import numpy as np

    if is_tensor(ids):
        ok = not (ids.dtype.is_floating_point or ids.dtype.is_complex or str(ids.dtype) == "torch.bool")
    else:
        ok = np.issubdtype(ids.dtype, np.integer)
    if not ok:
        raise InvalidValueError(f"{what}s must have an integer dtype; got {ids.dtype}")


def describe(x: object) -> str:
    """How an unexpected argument is named in a message: its shape and dtype, or its type."""
    if is_tensor(x):
        return f"a tensor of shape {tuple(x.shape)} and dtype {x.dtype}"
    return type(x).__name__


def is_tensor(x: object) -> bool:
    """Whether `x` is a torch tensor, without importing torch: a tensor exists only once torch is
    imported, and the command line and vector queries must start without it (about a second)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"between {low} and {high}"
    if low is not None:
        return f">= {low}"
    return f"<= {high}"


def closest_names(key: str, known: Sequence[str], n: int = 3) -> list[str]:
    """Up to n of `known` spelled most like `key`: other casings first, then by edit distance
    (a swap of neighbours counts as one edit), preferring the same first letter and length (typos
    rarely hit the first letter: "kign" -> "king" before "sign"), then by difflib's ratio.

    >>> closest_names("kign", ["kin", "king", "ign", "queen"])
    ['king', 'kin', 'ign']
    """
    known_set = set(known)
    cased = [k for k in (key.lower(), key.upper(), key.capitalize()) if k != key and k in known_set]
    candidates = difflib.get_close_matches(key, known, n=20, cutoff=0.6)
    ranked = sorted(
        candidates,
        key=lambda k: (
            _edit_distance(key, k),
            k[:1] != key[:1],
            abs(len(k) - len(key)),
            -difflib.SequenceMatcher(None, key, k).ratio(),
        ),
    )
    return list(dict.fromkeys(cased + ranked))[:n]


def _edit_distance(a: str, b: str) -> int:
    """Levenshtein distance with adjacent transpositions (optimal string alignment)."""
    previous2, previous = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[-1]
