"""The sizes people type: "125M" parameters, "7B", "512MiB" or "2GB" of memory -> whole numbers.

parse_count("125M"), parse_count("7B"), parse_count("1.5e9")     # 125000000, 7000000000, 1500000000
parse_bytes("512MiB"), parse_bytes("2GB"), parse_bytes("1000")   # 536870912, 2000000000, 1000
"""

from __future__ import annotations

import math
import re
import sys

from embedlab.errors import InvalidValueError

COUNT_SUFFIXES = {"": 1, "K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}  # B: billions, as in "Llama 2 7B"
BYTE_SUFFIXES = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
BYTE_SUFFIXES |= {"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}
_NUMBER = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


def parse_count(text: str) -> int:
    """A parameter count: a number with an optional K, M, B (billion) or T: "1.5B" -> 1,500,000,000."""
    return _parse("parameter count", text, COUNT_SUFFIXES, "125M, 7B or 1.5e9")


def parse_bytes(text: str) -> int:
    """A memory size in bytes: a number with an optional KB, MB, GB, TB (powers of 1000) or KiB, MiB,
    GiB, TiB (powers of 1024): "512MiB" -> 536,870,912."""
    return _parse("memory size", text, BYTE_SUFFIXES, "512MiB, 2GB or 1000000")


def _parse(what: str, text: str, suffixes: dict[str, int], examples: str) -> int:
    match = _NUMBER.match(text)
    unit = match.group(2).upper() if match else ""
    if match is None or unit not in suffixes:
        known = ", ".join(s for s in suffixes if s)
        raise InvalidValueError(
            f"{what} must be a number with an optional unit ({known}), e.g. {examples}; got {text!r}"
        )
    value = float(match.group(1)) * suffixes[unit]
    if not math.isfinite(value):  # 1e400, or 1e300 times a unit: past the largest float, 1.8e308
        raise InvalidValueError(
            f"{what} {text.strip()!r} is infinite: it overflows a float (at most {sys.float_info.max:.1e}); "
            f"give a finite size, e.g. {examples}"
        )
    if value < 1:
        raise InvalidValueError(f"{what} must be at least 1; got {text!r}")
    return round(value)
