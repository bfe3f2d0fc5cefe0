"""This machine's memory, set against a size before it is allocated.

`check_memory` is called by the trainers and the tokenizer command with a lower bound of what their
settings are about to allocate, so "dim 10,000,000" is one line naming both figures, not numpy's
traceback a minute later. `sizing` counts what a layout needs; this module says whether it fits here.
"""

from __future__ import annotations

import os

from embedlab.errors import InvalidValueError


def available_memory() -> int | None:
    """Bytes of memory this machine can hand out now, without swapping: Linux's MemAvailable (free
    memory plus the caches it can drop), else the free pages os.sysconf reports; None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024  # the file counts in kB
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # a name this system's sysconf does not know
        return None


def check_memory(what: str, n_bytes: int) -> None:
    """Raise InvalidValueError if `n_bytes`, what `what` needs, is more memory than is available now.

    Call it with a lower bound of what is about to be allocated, before allocating it: a
    refusal then means the work could not have run here.

    >>> check_memory("a 30,522 × 384 float32 table", 30_522 * 384 * 4)   # 45 MiB fits
    >>> check_memory("a 10¹² × 10⁴ float32 table", 10**12 * 10**4 * 4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    embedlab.errors.InvalidValueError: a 10¹² × 10⁴ float32 table: needs at least 35.5 PiB of memory, ...
    """
    available = available_memory()
    if available is not None and n_bytes > available:
        raise InvalidValueError(
            f"{what}: needs at least {format_bytes(n_bytes)} of memory, "
            f"{format_bytes(available)} available on this machine"
        )


def format_bytes(n: int) -> str:
    """A byte count in binary units, 3 significant digits: 368_000_000_000 -> '343 GiB'.

    >>> format_bytes(95_342_592), format_bytes(1023), format_bytes(2**61)
    ('90.9 MiB', '1023 B', '2048 PiB')
    """
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
    scale = min(max((n.bit_length() - 1) // 10, 0), len(units) - 1)  # 1024**scale <= n, within the units
    value = n / 1024**scale
    if scale == 0:
        return f"{n} B"
    return f"{value:.3g} {units[scale]}" if value < 1000 else f"{value:.0f} {units[scale]}"
