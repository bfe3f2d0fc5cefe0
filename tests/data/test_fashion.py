"""Fashion-MNIST from Debian's dataset-fashion-mnist: the published sizes, class balance and first
labels, and an IDX reader that names what is wrong with a bad file."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from embedlab.data import fashion
from embedlab.data.fashion import CLASSES, load_fashion, read_idx
from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError


def _idx(values: np.ndarray, code: int = 0x08) -> bytes:
    """The IDX encoding of `values`, written by hand: the oracle for read_idx."""
    header = bytes([0, 0, code, values.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in values.shape)
    return header + values.astype(fashion.IDX_TYPES[code]).tobytes()


@pytest.mark.parametrize(("split", "n"), [("train", 60_000), ("test", 10_000)])
def test_splits_have_the_published_sizes_and_ranges(split, n):
    images, labels = load_fashion(split)
    assert images.shape == (n, 28, 28) and images.dtype == np.uint8
    assert labels.shape == (n,) and labels.dtype == np.int64
    assert labels.min() == 0 and labels.max() == len(CLASSES) - 1 == 9
    assert images.min() == 0 and images.max() == 255  # the full 8-bit range is used
    assert 0.25 < images.mean() / 255 < 0.32  # mostly dark background around a lighter garment
    assert not images.flags.writeable and not labels.flags.writeable  # the cached arrays are shared


def test_each_class_has_a_tenth_of_each_split():
    assert np.bincount(load_fashion("test")[1]).tolist() == [1_000] * 10
    assert np.bincount(load_fashion("train")[1]).tolist() == [6_000] * 10


def test_limit_keeps_the_first_images_in_file_order():
    images, labels = load_fashion("test", limit=5)
    full_images, full_labels = load_fashion("test")
    assert labels.tolist() == [9, 2, 1, 1, 6]  # ankle boot, pullover, trouser, trouser, shirt
    np.testing.assert_array_equal(images, full_images[:5])
    assert CLASSES[labels[0]] == "Ankle boot"
    with pytest.raises(InvalidValueError, match="limit must be between 1 and 10000; got 10001"):
        load_fashion("test", limit=10_001)
    with pytest.raises(InvalidValueError, match="split must be one of train, test; got 'valid'"):
        load_fashion("valid")


def test_trousers_are_taller_than_wide_and_bags_are_not():
    # A check that the pixels are pictures with the labels they claim: a trouser's lit pixels
    # span more rows than columns on average; a bag's do not.
    images, labels = load_fashion("test")

    def extent(label: int) -> tuple[float, float]:
        lit = images[labels == label] > 30
        return float(lit.any(axis=2).sum(1).mean()), float(lit.any(axis=1).sum(1).mean())

    rows, cols = extent(CLASSES.index("Trouser"))
    assert rows > 1.5 * cols
    rows, cols = extent(CLASSES.index("Bag"))
    assert rows < 1.2 * cols


@pytest.mark.parametrize("compress", [False, True])
def test_read_idx_reads_what_was_written(tmp_path, compress):
    values = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 5
    data = _idx(values, code=0x0C)
    path = tmp_path / "x.idx"
    path.write_bytes(gzip.compress(data) if compress else data)
    out = read_idx(path)
    assert out.dtype == np.int32 and out.dtype.isnative
    np.testing.assert_array_equal(out, values)


def test_read_idx_names_what_is_wrong(tmp_path):
    good = _idx(np.arange(6, dtype=np.uint8).reshape(2, 3))
    cases = {
        b"\x01\x02" + good[2:]: "bad IDX magic number '01 02 08 02' at byte 0",
        good[:2] + b"\x07" + good[3:]: "unknown IDX type code 0x07 at byte 2",
        good[:-1]: r"shape \(2, 3\) needs 6 data bytes after the header \(byte 12\); the file has 5",
        good + b"\x00": "the file has 7",
        good[:6]: "the header of 2 dimensions needs 12 bytes; the file has 6",
        b"\x1f\x8b" + b"not gzip": "not a readable gzip file",
    }
    for i, (data, message) in enumerate(cases.items()):
        path = tmp_path / f"bad{i}.idx"
        path.write_bytes(data)
        with pytest.raises(FileFormatError, match=message):
            read_idx(path)


def test_a_file_of_the_wrong_shape_is_refused(tmp_path, monkeypatch):
    for images_file, labels_file, _ in fashion.FILES.values():
        (tmp_path / images_file).write_bytes(gzip.compress(_idx(np.zeros((3, 28, 27), dtype=np.uint8))))
        (tmp_path / labels_file).write_bytes(gzip.compress(_idx(np.zeros(3, dtype=np.uint8))))
    monkeypatch.setattr(fashion, "FASHION_DIR", tmp_path)
    fashion._load.cache_clear()
    try:
        with pytest.raises(FileFormatError, match=r"shape \(10000, 28, 28\); got uint8 of shape \(3, 28, 27\)"):
            load_fashion("test")
    finally:
        fashion._load.cache_clear()  # the real files for the other tests


def test_a_missing_package_names_the_debian_package(tmp_path, monkeypatch):
    monkeypatch.setattr(fashion, "FASHION_DIR", tmp_path / "absent")
    fashion._load.cache_clear()
    try:
        with pytest.raises(MissingDataError, match="apt-get install dataset-fashion-mnist"):
            load_fashion("train")
    finally:
        fashion._load.cache_clear()
