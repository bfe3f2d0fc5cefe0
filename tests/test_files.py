"""Atomic writes: the old file survives a failed write, no temporary file is left behind; values made
fit for strict JSON; a file's kind told from its first bytes; embedlab's own JSON files read back,
a damaged one named with how to recover."""

from __future__ import annotations

import gzip
import io
import json
import math
import time

import numpy as np
import pytest
import torch
from safetensors.numpy import save as safetensors_bytes

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, OutputExistsError
from embedlab.files import atomic_write_text, atomic_writer, cache_dir, json_safe, make_new_folder
from embedlab.files.reading import (
    HEAD_BYTES,
    KIND_NPY,
    KIND_SAFETENSORS,
    KIND_ZIP,
    NOT_UTF8,
    content_kind,
    not_readable,
    read_json,
)


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


WRITERS = 8  # threads racing for one new path: more than the cores, so they interleave


def test_of_writers_racing_for_one_new_file_exactly_one_wins(tmp_path, at_once):
    """Each writer passed the "is it there?" check before any finished: the link at the moment of
    creation decides, the others get OutputExistsError naming the path, and the file is one
    writer's whole text."""
    path = tmp_path / "out.txt"

    def write(i):
        with atomic_writer(path, "w", replace=False) as f:
            time.sleep(0.05)  # every writer is inside, past the early check, before any links
            f.write(f"writer {i}\n" * 1000)

    outcome = at_once(WRITERS, write)
    winners = [i for i, err in enumerate(outcome) if err is None]
    assert len(winners) == 1, outcome
    for err in outcome:
        assert err is None or (isinstance(err, OutputExistsError) and str(path) in str(err)), err
    assert path.read_text() == f"writer {winners[0]}\n" * 1000
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temporary file left by the losers
    with pytest.raises(OutputExistsError, match="already exists"):  # and a later one is refused at once
        with atomic_writer(path, "w", replace=False):
            pass
    with atomic_writer(path, "w") as f:  # replace (the default, and --force) still replaces
        f.write("forced")
    assert path.read_text() == "forced"


def test_of_writers_racing_for_one_new_folder_exactly_one_wins(tmp_path, at_once):
    folder = tmp_path / "run"
    outcome = at_once(WRITERS, lambda i: make_new_folder(folder, "run.json"))
    assert sum(err is None for err in outcome) == 1, outcome
    assert all(err is None or (isinstance(err, OutputExistsError) and str(folder) in str(err)) for err in outcome)
    assert [p.name for p in folder.iterdir()] == ["run.json"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(OutputExistsError, match="is not empty"):
        make_new_folder(other, "run.json")
    assert [p.name for p in other.iterdir()] == ["notes.txt"]  # the claim is taken back


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


def _npy() -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(3))
    return buffer.getvalue()


def _torch() -> bytes:
    buffer = io.BytesIO()
    torch.save({"w": torch.zeros(2)}, buffer)
    return buffer.getvalue()


KINDS = {  # what content_kind must call each start of a file
    "text": b"2 3\ncat 1 2 3\n",
    "an empty file": b"",
    "a gzip-compressed file": gzip.compress(b"text"),
    "a bzip2-compressed file": b"BZh91AY&SY" + bytes(20),
    KIND_ZIP: _torch(),
    "a PNG image": b"\x89PNG\r\n\x1a\n" + bytes(20),
    "a JPEG image": b"\xff\xd8\xff\xe0" + bytes(20),
    KIND_NPY: _npy(),
    KIND_SAFETENSORS: safetensors_bytes({"vectors": np.ones((2, 2), np.float32)}),
    "a Python pickle (never loaded: it could run code)": b"\x80\x04\x95" + bytes(20),
    "UTF-16 text (save it as UTF-8)": "cat".encode("utf-16"),
    NOT_UTF8: "中文文本的例子，这是一个测试。".encode("gbk"),
    "binary data": np.random.default_rng(0).integers(0, 256, 1000, dtype=np.uint8).tobytes(),
}


@pytest.mark.parametrize("kind", KINDS)
def test_content_kind_tells_a_file_from_its_first_bytes(kind):
    data = KINDS[kind]
    assert content_kind(data[:HEAD_BYTES], len(data)) == kind


def test_text_with_a_few_bytes_that_are_not_utf8_is_still_text():
    assert content_kind("Ça été déjà là, naïve café\n".encode("latin-1")) == "text"  # a reader names the bad byte
    cut = ("é" * HEAD_BYTES).encode()[: HEAD_BYTES + 1]  # 4097 bytes: the head ends inside a character
    assert content_kind(cut[:HEAD_BYTES], len(cut)) == "text"
    assert content_kind(b"text with a \x00 NUL") == "binary data"
    assert content_kind(b"\x10" + bytes(7) + b"{", 9) == "binary data"  # a safetensors header longer than the file


def test_not_readable_says_what_a_file_holds_or_that_it_is_damaged(tmp_path):
    path = tmp_path / "t.safetensors"
    path.write_bytes(gzip.compress(b"x"))
    err = not_readable(path, "a safetensors file", KIND_SAFETENSORS, "ignored")
    assert isinstance(err, FileFormatError)
    assert str(err) == f"{path}: expected a safetensors file; found a gzip-compressed file"
    path.write_bytes(KINDS[KIND_SAFETENSORS][:-3])
    err = not_readable(path, "a safetensors file", KIND_SAFETENSORS, "header\n too \x00large")
    assert str(err) == f"{path}: expected a safetensors file, but it is cut short or damaged (header too ?large)"


RECOVER = "remove it and run again"
DAMAGED_JSON = {  # content -> what the message says is wrong
    '{"a": [1, 2': "cut short: expecting ',' delimiter at line 1 column 12",
    '{"a": "unterminated': "cut short: unterminated string starting at line 1 column 7",
    '{"a": 1}\n{"b": 2}': "not valid JSON: extra data at line 2 column 1",
    '{"a": nul}': "not valid JSON: expecting value at line 1 column 7",
    "[1, 2]": "expected an object; found a list",
    '{"b": 1}': "no 'a' field",
    "": "expected JSON text; found an empty file",
}


@pytest.mark.parametrize("content", DAMAGED_JSON)
def test_read_json_names_a_damaged_file_and_how_to_recover(tmp_path, content):
    path = tmp_path / "run.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(FileFormatError) as info:
        read_json(path, "run record", RECOVER, keys=("a",))
    assert str(info.value) == f"{path}: not a readable run record ({DAMAGED_JSON[content]}); {RECOVER}"


def test_read_json_reads_what_embedlab_wrote_and_refuses_what_is_not_json(tmp_path):
    path = tmp_path / "counts.json"
    atomic_write_text(path, json.dumps([3, 1, 2]))
    assert read_json(path, "piece counts", RECOVER, expect=list) == [3, 1, 2]
    with pytest.raises(MissingDataError, match="no piece counts at .*missing.json"):
        read_json(tmp_path / "missing.json", "piece counts", RECOVER)
    path.write_bytes(b'{"a": "caf\xe9"}')
    with pytest.raises(FileFormatError, match=r"counts.json: .*\(invalid UTF-8 at byte 10 \(line 1\)\); remove it"):
        read_json(path, "piece counts", RECOVER)
    path.write_bytes(_torch())
    with pytest.raises(FileFormatError, match=r"\(expected JSON text; found a zip archive, such as a torch"):
        read_json(path, "piece counts", RECOVER)
