"""Exact nearest rows over a table read in chunks (vectors/rowscan.py): against Vectors.most_similar and
brute force, whatever the chunk; ties, zero rows, bad arguments; a memory map's pages let go."""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np
import pytest

from embedlab.errors import InvalidValueError
from embedlab.vectors import Vectors
from embedlab.vectors.rowscan import nearest_rows, row_chunks

# float32 cosines computed two ways (a.b / (|a||b|) here, unit rows' products in the oracle) differ by
# a few units in the last place of each of D=16 products summed: well under 1e-5
COSINE_TOL = 1e-5
CHUNKS = (1, 3, 7, 64, 10_000)


def brute(rows: np.ndarray, row: int, k: int) -> tuple[list[int], np.ndarray]:
    """The oracle: float64 cosines (0 with a zero row, -inf for a row holding NaN), the row itself out,
    then by cosine down and row up."""
    rows = rows.astype(np.float64)
    norms = np.linalg.norm(rows, axis=1)
    scale = norms * norms[row]
    cos = np.divide(rows @ rows[row], scale, out=np.zeros(len(rows)), where=scale > 0)
    cos[np.isnan(cos) | np.isnan(scale)] = -np.inf
    others = np.array([r for r in range(len(rows)) if r != row])
    order = others[np.lexsort((others, -cos[others]))][:k]
    return order.tolist(), cos[order]


@pytest.fixture(scope="module")
def table() -> Vectors:
    rng = np.random.default_rng(3)
    return Vectors([f"k{i}" for i in range(300)], rng.standard_normal((300, 16)).astype(np.float32))


@pytest.mark.parametrize("chunk", CHUNKS)
def test_nearest_rows_equal_most_similar(table, chunk):
    norms = np.linalg.norm(table.vectors, axis=1)
    for row in (0, 1, 150, 299):
        rows, cosines = nearest_rows(table.vectors, norms, row, 10, chunk=chunk)
        want = table.most_similar(table.index_to_key[row], topn=10)
        assert rows.dtype == np.int64 and cosines.dtype == np.float32 and rows.shape == cosines.shape == (10,)
        assert [table.index_to_key[r] for r in rows] == list(want.keys)
        np.testing.assert_allclose(cosines, want.scores, atol=COSINE_TOL)
    rows, _ = nearest_rows(table.vectors, norms, 5, 299, chunk=chunk)  # every other row, in order
    assert sorted(rows.tolist()) == [r for r in range(300) if r != 5]


@pytest.mark.parametrize("chunk", CHUNKS)
def test_ties_zero_rows_and_nan_rows(chunk):
    rng = np.random.default_rng(0)
    base = rng.standard_normal((4, 5)).astype(np.float32)
    rows = np.concatenate([base, base, 2 * base, np.zeros((3, 5), np.float32), base])  # (19, 5) many equal cosines
    rows[16] = np.nan  # a damaged row: never a neighbour
    norms = np.linalg.norm(rows, axis=1)
    for row in (0, 5, 13):  # 13: a zero row, cosine 0 with every row
        for k in (1, 4, 9, 17):
            got, cos = nearest_rows(rows, norms, row, k, chunk=chunk)
            want, want_cos = brute(rows, row, k)
            assert got.tolist() == want, (row, k)
            np.testing.assert_allclose(cos, want_cos, atol=COSINE_TOL)
    assert nearest_rows(rows, norms, 0, 18, chunk=chunk)[0][-1] == 16  # the NaN row comes last
    assert nearest_rows(rows, norms, 13, 3, chunk=chunk)[0].tolist() == [0, 1, 2]  # all 0: the lowest rows
    assert nearest_rows(rows, norms, 0, 4, chunk=chunk)[0].tolist() == [4, 8, 15, 1]  # its copies (cosine 1), by row


def test_bad_arguments_are_named():
    rows = np.eye(4, dtype=np.float32)
    norms = np.ones(4, np.float32)
    with pytest.raises(InvalidValueError, match="k must be between 1 and 3; got 4"):
        nearest_rows(rows, norms, 0, 4)
    with pytest.raises(InvalidValueError, match="k must be between 1 and 3; got 0"):
        nearest_rows(rows, norms, 0, 0)
    with pytest.raises(InvalidValueError, match="row must be between 0 and 3; got 4"):
        nearest_rows(rows, norms, 4, 1)
    with pytest.raises(InvalidValueError, match="row must be between 0 and 3; got -1"):
        nearest_rows(rows, norms, -1, 1)
    with pytest.raises(InvalidValueError, match=r"norms \(V,\); got \(4, 4\) and \(3,\)"):
        nearest_rows(rows, norms[:3], 0, 1)


def resident_kb(path: Path) -> int:
    """This process's resident kB of its mappings of `path` (/proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if line[:1].isdigit() or line[:1] in "abcdef" and "-" in line.split()[0]:
            inside = line.endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


def test_a_memory_mapped_table_is_scanned_without_staying_resident(tmp_path):
    rng = np.random.default_rng(1)
    rows = rng.standard_normal((100_000, 64)).astype(np.float32)  # 25.6 MB
    np.save(tmp_path / "t.npy", rows)
    norms = np.linalg.norm(rows, axis=1)
    mapped = np.load(tmp_path / "t.npy", mmap_mode="r")
    got = nearest_rows(mapped, norms, 7, 10, chunk=4096, keep=rows.nbytes - 1)  # one byte too large to keep
    assert got[0].tolist() == brute(rows, 7, 10)[0]
    assert resident_kb(tmp_path / "t.npy") <= 2 * 4096 * 64 * 4 // 1024  # about a chunk, not 25,000 kB
    nearest_rows(mapped, norms, 7, 10, chunk=4096)  # small enough to keep: it stays resident
    assert resident_kb(tmp_path / "t.npy") >= 20_000


def test_an_unaligned_mapping_is_scanned_too(tmp_path):
    rows = np.random.default_rng(2).standard_normal((50, 8)).astype(np.float32)
    (tmp_path / "t.bin").write_bytes(b"xy" + rows.tobytes())  # rows 2 bytes in, as a .bin's header may leave them
    with open(tmp_path / "t.bin", "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    view = np.frombuffer(data, np.float32, count=rows.size, offset=2).reshape(rows.shape)
    assert not view.flags.aligned
    assert nearest_rows(view, np.linalg.norm(rows, axis=1), 3, 5, chunk=16)[0].tolist() == brute(rows, 3, 5)[0]
    assert [start for start, _ in row_chunks(view, 16)] == [0, 16, 32, 48]
