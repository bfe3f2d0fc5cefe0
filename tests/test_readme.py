"""The README's Python example runs as written and does what its comments say."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "the README should show the library in use"
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["x"].shape == (1, 3, 768)
    assert namespace["logits"].shape == (1, 6, 30522)
    assert namespace["head"].weight is namespace["bert"].token.weight
    assert namespace["tokens"].shape == (2, 197, 768)


def test_readme_shows_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert "make demo" in text and "make test" in text
