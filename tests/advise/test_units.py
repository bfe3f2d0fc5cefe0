from __future__ import annotations

import pytest

from embedlab.advise import parse_bytes, parse_count
from embedlab.errors import InvalidValueError


@pytest.mark.parametrize(
    ("text", "n"), [("125M", 125_000_000), ("7B", 7_000_000_000), ("1.5e9", 1_500_000_000), ("70b", 70 * 10**9)]
)
def test_counts(text, n):
    assert parse_count(text) == n


@pytest.mark.parametrize(
    ("text", "n"), [("512MiB", 512 * 2**20), ("2GB", 2 * 10**9), ("1000", 1000), ("1.5 GiB", 3 * 2**29)]
)
def test_bytes(text, n):
    assert parse_bytes(text) == n


@pytest.mark.parametrize("text", ["", "seven", "7X", "-5M", "0", "1e-400"])
def test_refused_with_the_text(text):
    with pytest.raises(InvalidValueError, match="must be"):
        parse_count(text)


@pytest.mark.parametrize(
    ("parse", "text"), [(parse_count, "1e999"), (parse_count, "1e400B"), (parse_bytes, "1e300TiB")]
)
def test_an_overflowing_size_is_called_infinite(parse, text):
    # 1e400 is no number below 1: it is past the largest float, and the message says so
    with pytest.raises(InvalidValueError, match=f"'{text}' is infinite: it overflows a float"):
        parse(text)
