"""A table opened for a map (vectors/map_source.py): .npy rows mapped, never copied; a fastText .bin's
every input row (against gensim's reader and the fastText tool's training); any other table as
vectors.load reads it; the fingerprint; where the map's files go."""

from __future__ import annotations

import mmap
import os
import shutil
import subprocess

import numpy as np
import pytest

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError
from embedlab.vectors import Vectors
from embedlab.vectors.map_source import open_map_source, tiles_root

KEYS = ["king", "queen", "café", "Ġdog", "x y"]


def mapped(array: np.ndarray) -> bool:
    """Whether `array`'s memory is a file's mapping (not a copy in memory)."""
    base = array
    while base is not None and not isinstance(base, mmap.mmap):
        base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
    return base is not None


@pytest.fixture
def npy(tmp_path):
    table = Vectors(KEYS, np.arange(20, dtype=np.float32).reshape(5, 4), counts=[9, 8, 7, 6, 5])
    table.save(tmp_path / "t.npy")
    return tmp_path / "t.npy", table


def test_a_npy_table_is_mapped_not_copied(npy, tmp_path):
    path, table = npy
    source = open_map_source(path)
    assert mapped(source.rows) and not source.rows.flags.writeable
    assert source.rows.dtype == np.float32 and np.array_equal(source.rows, table.vectors)
    assert source.name == "t.npy" and source.path == path.absolute()
    assert source.keys(0, 5) == KEYS and source.keys(1, 3) == KEYS[1:3] and source.keys(5, 5) == []
    assert source.counts.tolist() == [9, 8, 7, 6, 5]
    assert tiles_root(source) == tmp_path / "t.npy.tiles"
    with pytest.raises(InvalidValueError, match="stop must be between 0 and 5; got 6"):
        source.keys(0, 6)
    sidecar = tmp_path / "t.vocab.json"
    sidecar.write_text(sidecar.read_text().replace("king", "kong"))
    assert source.keys(0, 1) == ["king"]  # parsed once, kept
    source.forget_labels()
    assert source.keys(0, 1) == ["kong"] and source.counts.tolist() == [9, 8, 7, 6, 5]  # let go: read again


def test_the_fingerprint_follows_the_files(npy):
    path, table = npy
    first = open_map_source(path)
    assert open_map_source(path).fingerprint == first.fingerprint == first.current_fingerprint()
    assert len(first.fingerprint) == 32
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # the same bytes, written again
    assert first.current_fingerprint() != first.fingerprint
    assert open_map_source(path).fingerprint == first.current_fingerprint()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert first.current_fingerprint() == first.fingerprint
    sidecar = path.with_name("t.vocab.json")  # the keys are part of the table
    sidecar.write_text(sidecar.read_text().replace("king", "kong"))
    assert first.current_fingerprint() != first.fingerprint


def test_the_cache_holds_the_map_when_the_table_folder_cannot(npy, tmp_path, monkeypatch):
    path, _ = npy
    monkeypatch.setenv("EMBEDLAB_CACHE", str(tmp_path / "cache"))
    (tmp_path / "t.npy.tiles").write_text("a file in the way")
    source = open_map_source(path)
    assert tiles_root(source) == tmp_path / "cache" / "tiles" / f"t.npy-{source.fingerprint[:12]}"


def test_other_npy_tables_and_sidecars(tmp_path):
    rows = np.arange(12, dtype=np.float64).reshape(3, 4)
    np.save(tmp_path / "wide.npy", rows)  # float64: read whole, as float32
    (tmp_path / "wide.tokens.txt").write_text("a\nb\nc\n")
    source = open_map_source(tmp_path / "wide.npy")
    assert source.rows.dtype == np.float32 and np.array_equal(source.rows, rows)
    assert source.keys(0, 3) == ["a", "b", "c"] and source.counts is None
    np.save(tmp_path / "f.npy", np.ones((3, 2), np.float32))
    (tmp_path / "f.tokens.txt").write_text("a\nb\n")  # one key short
    with pytest.raises(FileFormatError, match="2 keys, but f.npy has 3 rows"):
        open_map_source(tmp_path / "f.npy").keys(0, 1)
    np.save(tmp_path / "bare.npy", np.ones((3, 2), np.float32))
    with pytest.raises(MissingDataError, match="no key list beside it: expected bare.vocab.json"):
        open_map_source(tmp_path / "bare.npy")
    (tmp_path / "text.npy").write_text("not an array")
    (tmp_path / "text.tokens.txt").write_text("a\n")
    with pytest.raises(FileFormatError, match="text.npy: expected a NumPy .npy array"):
        open_map_source(tmp_path / "text.npy")


def test_an_unknown_name_is_named(tmp_path):
    with pytest.raises(MissingDataError, match=r"'nowhere\.npy' is neither a built-in table \(minilm\) nor a path"):
        open_map_source("nowhere.npy")


def test_any_other_format_gives_the_rows_vectors_load_reads(tmp_path):
    keys = KEYS[:4]  # word2vec text holds no key with a space
    table = Vectors(keys, np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32), counts=[5, 4, 3, 2])
    table.save(tmp_path / "t.txt")
    source = open_map_source(tmp_path / "t.txt")
    loaded = Vectors.load(tmp_path / "t.txt")
    assert np.array_equal(source.rows, loaded.vectors) and not source.rows.flags.writeable
    assert source.keys(0, 4) == loaded.index_to_key == keys
    assert tiles_root(source) == tmp_path / "t.txt.tiles"


def test_a_built_in_table_maps_into_the_cache(tmp_path, monkeypatch, minilm_vectors):
    monkeypatch.setenv("EMBEDLAB_CACHE", str(tmp_path))
    source = open_map_source("minilm")
    assert source.rows.shape == (30522, 384) and source.path is None
    assert source.keys(0, 3) == minilm_vectors.index_to_key[:3]
    assert tiles_root(source) == tmp_path / "tiles" / f"minilm-{source.fingerprint[:12]}"


@pytest.mark.skipif(shutil.which("fasttext") is None, reason="needs the fastText tool: apt-get install fasttext")
def test_a_fasttext_bin_gives_every_input_row(tmp_path):
    from gensim.models.fasttext import load_facebook_model

    words = ["cat", "dog", "mat", "sat", "the", "on", "a", "log"]
    rng = np.random.default_rng(0)
    (tmp_path / "corpus.txt").write_text("\n".join(" ".join(rng.choice(words, 12)) for _ in range(50)) + "\n")
    subprocess.run(["fasttext", "skipgram", "-input", tmp_path / "corpus.txt", "-output", tmp_path / "m", "-dim", "4",
                    "-epoch", "1", "-minCount", "1", "-bucket", "100", "-minn", "2", "-maxn", "3", "-thread", "1",
                    "-verbose", "0"], check=True)  # fmt: skip
    source = open_map_source(tmp_path / "m.bin")
    gensim = load_facebook_model(tmp_path / "m.bin").wv
    nwords = len(gensim.index_to_key)
    assert source.rows.shape == (nwords + 100, 4) and mapped(source.rows) and not source.rows.flags.writeable
    assert np.array_equal(source.rows[:nwords], gensim.vectors_vocab)  # the word rows, as stored
    assert np.array_equal(source.rows[nwords:], gensim.vectors_ngrams)  # then every bucket's row
    keys = source.keys(0, nwords + 100)
    assert keys[:nwords] == gensim.index_to_key  # fastText's dictionary order
    assert keys[nwords:] == [f"bucket {b}" for b in range(100)] and source.keys(nwords + 7, nwords + 9) == keys[-93:-91]
    assert source.counts is None  # bucket rows have no counts
    assert tiles_root(source) == tmp_path / "m.bin.tiles"


@pytest.mark.skipif(shutil.which("fasttext") is None, reason="needs the fastText tool: apt-get install fasttext")
def test_a_classifier_bin_gives_its_words_and_word_ngram_buckets_not_its_labels(tmp_path):
    from tests.vectors.tool_models import labelled_lines, supervised

    lines = labelled_lines(60, labels=3)
    model = supervised(tmp_path, "clf", lines, "-wordNgrams", 2, "-bucket", 50)
    source = open_map_source(model)
    words = ["</s>", *dict.fromkeys(w for line in lines for w in line.split()[1:])]  # each line ends in "</s>"
    assert source.rows.shape == (len(words) + 50, 8)
    keys = source.keys(0, len(source.rows))
    assert sorted(keys[: len(words)]) == sorted(words) and not any(k.startswith("__label__") for k in keys)
    assert keys[len(words) :] == [f"bucket {b}" for b in range(50)]
