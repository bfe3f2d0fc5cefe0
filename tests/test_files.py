"""Atomic writes: the old file survives a failed write, no temporary file is left behind."""

from __future__ import annotations

import pytest

from embedlab.errors import InvalidValueError
from embedlab.files import atomic_write_text


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("fails halfway")


def test_atomic_write_replaces_and_cleans_up(tmp_path):
    path = tmp_path / "table.json"
    atomic_write_text(path, "old")
    atomic_write_text(path, "new ✓")
    assert path.read_text(encoding="utf-8") == "new ✓"
    assert [p.name for p in tmp_path.iterdir()] == ["table.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "table.json"
    atomic_write_text(path, "old")
    with pytest.raises(TypeError):
        atomic_write_text(path, Unprintable())  # type: ignore[arg-type]
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["table.json"]


def test_a_folder_is_not_a_file_name(tmp_path):
    with pytest.raises(InvalidValueError, match="is a folder; give a file name"):
        atomic_write_text(tmp_path, "x")
    assert list(tmp_path.iterdir()) == []
