"""This machine's memory against a size (embedlab.sizing.memory): MemAvailable, and refusals in one line."""

from __future__ import annotations

import pytest

from embedlab.errors import InvalidValueError
from embedlab.sizing.memory import available_memory, check_memory, format_bytes


def _meminfo(field: str) -> int:
    """A /proc/meminfo field in bytes, read here as the oracle."""
    for line in open("/proc/meminfo", encoding="ascii"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} in /proc/meminfo")


def test_available_memory_is_linuxs_memavailable():
    available = available_memory()
    assert 0 < available <= _meminfo("MemTotal")
    # other processes move it between the two reads: within 5% of MemTotal
    assert abs(available - _meminfo("MemAvailable")) < 0.05 * _meminfo("MemTotal")


def test_check_memory_names_the_size_the_need_and_what_is_there():
    check_memory("one MiniLM table", 30_522 * 384 * 4)  # 45 MiB: fits anywhere this runs
    with pytest.raises(InvalidValueError) as info:
        check_memory("dim 10,000,000 on 9,206 words", 2 * 4 * 9_206 * 10_000_000)
    message = str(info.value)
    assert message.startswith("dim 10,000,000 on 9,206 words: needs at least 686 GiB of memory, ")
    assert message.endswith(" available on this machine") and "\n" not in message


@pytest.mark.parametrize(
    ("n", "shown"),
    [
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1 KiB"),
        (95_342_592, "90.9 MiB"),
        (368_000_000_000, "343 GiB"),
        (4 * 10**16, "35.5 PiB"),
        (2**61, "2048 PiB"),
    ],
)
def test_format_bytes(n, shown):
    assert format_bytes(n) == shown
