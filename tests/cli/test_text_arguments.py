"""Arguments are text: bytes that are not UTF-8 are refused in one line before any command runs.

The commands run as a user runs them, in a subprocess whose argv holds the raw bytes (Python
decodes such bytes to lone surrogates, which used to reach the tokenizer as a TypeError).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.timeouts import COMMAND_S

BAD = b"caf\xff"  # "caf" and a byte no UTF-8 text holds


@pytest.mark.parametrize(
    "args",
    [
        [b"context", BAD, b"the bank", b"--word", b"bank"],
        [b"context", b"a bank", b"the bank", b"--word", BAD],
        [b"tokenize", BAD],
        [b"embed", BAD],
        [b"embed", b"the cat", b"--pair", BAD],
        [b"neighbors", b"minilm", BAD],
    ],
    ids=["context-text", "context-word", "tokenize", "embed", "embed-pair", "neighbors"],
)
def test_undecodable_bytes_are_one_line(args):
    done = subprocess.run([sys.executable, "-m", "embedlab", *args], capture_output=True, timeout=COMMAND_S)
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2 and done.stdout == b"", err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    position = args.index(BAD) + 1
    assert err == (
        f"error: argument {position} is not UTF-8 text: b'caf\\xff' cannot be decoded at byte 3; "
        "embedlab reads its arguments, file names included, as UTF-8\n"
    )


def test_text_that_is_utf8_passes():
    done = subprocess.run(
        [sys.executable, "-m", "embedlab", "tokenize", "café ☕".encode(), "--json"],
        capture_output=True,
        timeout=COMMAND_S,
    )
    assert done.returncode == 0, done.stderr.decode()
    answer = json.loads(done.stdout)
    assert answer["text"] == "café ☕"  # decoded once, as given
    assert [p["piece"] for p in answer["pieces"]] == ["cafe", "[UNK]"]  # MiniLM strips accents; no row for ☕
