"""Each row's norm and colour codes for a map (vectors/row_codes.py): the lab projector's colouring of
the same table is the oracle; streamed through a memory map; skipped when present."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.data.themes import THEMES
from embedlab.errors import InvalidValueError
from embedlab.sims.projector import NAMES, Projector
from embedlab.vectors import Vectors, rowscan
from embedlab.vectors.keystore import KeyStore
from embedlab.vectors.map_source import open_map_source
from embedlab.vectors.row_codes import BAND_NAMES, THEME_NAMES, write_row_attributes

# float32 norms summed two ways (einsum here, np.linalg.norm in the oracle) differ in the last places
NORM_RTOL = 1e-6
CHUNK = 1_000  # rows a chunk in these tests: the table streams in four


@pytest.fixture
def table(tmp_path, monkeypatch):
    """A table of more rows than a chunk, holding themed words (one as a byte-level piece) and counts."""
    monkeypatch.setattr(rowscan, "CHUNK_BYTES", CHUNK * 6 * 4)
    V = 3 * CHUNK + 500
    rng = np.random.default_rng(0)
    keys = [f"w{i}" for i in range(V)]
    keys[5], keys[70], keys[CHUNK + 3], keys[9] = "dog", "Ġqueen", "paris", "war"
    counts = rng.integers(0, 300_000, V)
    vectors = Vectors(keys, rng.standard_normal((V, 6)).astype(np.float32), counts=counts, name="t")
    vectors.save(tmp_path / "t.npy")
    return vectors, open_map_source(tmp_path / "t.npy")


def test_norms_and_codes_equal_the_projectors(table, tmp_path):
    vectors, source = table
    keys = KeyStore.write(tmp_path / "root", [source.keys(0, len(source.rows))])
    heard = []
    files = write_row_attributes(source, keys, tmp_path / "root", progress=lambda *p: heard.append(p))
    assert set(files) == {"norm", "theme", "band"} and all(path.parent == tmp_path / "root" for path in files.values())
    projector = Projector(vectors)
    norms = np.load(files["norm"])
    assert norms.dtype == np.float32 and norms.shape == (len(vectors),)
    np.testing.assert_allclose(norms, projector.colours("norm").values, rtol=NORM_RTOL)
    for scheme in ("theme", "band"):
        codes = np.load(files[scheme])
        assert codes.dtype == np.uint8 and np.array_equal(codes, projector.colours(scheme).values)
    assert THEME_NAMES == NAMES["theme"] and BAND_NAMES == NAMES["band"]
    theme = np.load(files["theme"])
    assert [THEME_NAMES[theme[r]] for r in (5, 70, CHUNK + 3, 9, 6)] == ["animals", "people", "places", "war",
                                                                             "other"]  # fmt: skip
    assert np.count_nonzero(theme) == 4 and len(THEMES) + 1 == len(THEME_NAMES)
    stages = [stage for stage, _, _ in heard]
    assert ("norms", CHUNK, len(vectors)) in heard and heard[-1] == ("codes", 2, 2) and stages[0] == "norms"


def test_written_once_and_no_band_without_counts(table, tmp_path):
    vectors, source = table
    keys = KeyStore.write(tmp_path, [source.keys(0, len(source.rows))])
    files = write_row_attributes(source, keys, tmp_path)
    stamps = {scheme: path.stat().st_mtime_ns for scheme, path in files.items()}
    (tmp_path / "codes-theme.npy").unlink()  # a build killed before its last file
    again = write_row_attributes(source, keys, tmp_path)
    assert {s: p.stat().st_mtime_ns for s, p in again.items() if s != "theme"} == {
        s: t for s, t in stamps.items() if s != "theme"
    }
    assert np.count_nonzero(np.load(again["theme"])) == 4
    Vectors(["zz", "dog"], np.eye(2, dtype=np.float32)).save(tmp_path / "plain.npy")  # no counts
    plain = open_map_source(tmp_path / "plain.npy")
    files = write_row_attributes(plain, KeyStore.write(tmp_path / "p", [["zz", "dog"]]), tmp_path / "p")
    assert set(files) == {"norm", "theme"} and not (tmp_path / "p" / "codes-band.npy").exists()
    assert np.load(files["theme"]).tolist() == [0, 1]
    with pytest.raises(InvalidValueError, match="holds 2 keys for 3,500 rows"):
        write_row_attributes(source, KeyStore.open(tmp_path / "p"), tmp_path / "q")
