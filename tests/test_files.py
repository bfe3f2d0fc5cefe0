"""Atomic writes: the old file survives a failed write, no temporary file is left behind; values made
fit for strict JSON."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from embedlab.errors import InvalidValueError
from embedlab.files import atomic_write_text, cache_dir, json_safe


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


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("EMBEDLAB_CACHE", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("EMBEDLAB_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "embedlab"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "embedlab"


def test_json_safe_gives_strict_json():
    value = {
        "rho": float("nan"),
        "bands": [{"mean": np.float64(2.5), "rows": np.int64(3), "empty": math.inf}],
        "xy": np.array([[1.0, -np.inf], [np.nan, 0.5]], dtype=np.float32),
        "pair": (np.float32(0.25), True, None, "text"),
    }
    safe = json_safe(value)
    assert safe == {
        "rho": None,
        "bands": [{"mean": 2.5, "rows": 3, "empty": None}],
        "xy": [[1.0, None], [None, 0.5]],
        "pair": [0.25, True, None, "text"],
    }
    assert type(safe["bands"][0]["rows"]) is int and type(safe["pair"][0]) is float
    assert json.loads(json.dumps(safe, allow_nan=False)) == safe  # allow_nan=False: strict JSON or an error
