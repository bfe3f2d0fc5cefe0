"""Fashion-MNIST: 70,000 grayscale 28×28 pictures of clothing in 10 classes, from Debian's
`dataset-fashion-mnist` (gzip-compressed IDX files under /usr/share/datasets/fashion-mnist/).

    images, labels = load_fashion("test")     # (10000, 28, 28) uint8, (10000,) int64, read-only
    CLASSES[labels[0]]                        # 'Ankle boot'

The training split holds 60,000 images, the test split 10,000 (1,000 of each class). An IDX file
is a 4-byte magic number (two zero bytes, a type code, the number of dimensions), one big-endian
int32 per dimension, then the values in row-major order: the images file of the test split starts
00 00 08 03 (unsigned bytes, 3 dimensions), then 10000, 28, 28.
"""

from __future__ import annotations

import gzip
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np

from embedlab.errors import FileFormatError, MissingDataError, check_choice, check_int, plain
from embedlab.files.reading import HEAD_BYTES, content_kind, file_exists, readable_file

FASHION_DIR = Path("/usr/share/datasets/fashion-mnist")
DEBIAN_PACKAGE = "dataset-fashion-mnist"
SPLITS = ("train", "test")
# split -> (images file, labels file, number of images)
FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", 60_000),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz", 10_000),
}
IMAGE_SIDE = 28
# The dataset's own names, in label order (label 0 is "T-shirt/top").
CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")

# IDX type code -> NumPy dtype of one value, big-endian as the format stores them
IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def load_fashion(split: str = "train", limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Fashion-MNIST's `split` -> images (N, 28, 28) uint8 and labels (N,) int64 in 0..9.

    `limit` keeps the first `limit` images of the split (its file order). The arrays are parsed
    once per split and cached; every caller gets read-only views of them.

    >>> images, labels = load_fashion("test", limit=5)
    >>> images.shape, labels.tolist()
    ((5, 28, 28), [9, 2, 1, 1, 6])
    """
    split = check_choice("split", split, SPLITS)
    images, labels = _load(split)
    if limit is not None:
        limit = check_int("limit", limit, low=1, high=len(labels))
        images, labels = images[:limit], labels[:limit]
    return images, labels


@lru_cache(maxsize=len(SPLITS))
def _load(split: str) -> tuple[np.ndarray, np.ndarray]:
    image_file, label_file, n = FILES[split]
    images = read_idx(_data_path(image_file))
    labels = read_idx(_data_path(label_file))
    _expect(image_file, images, (n, IMAGE_SIDE, IMAGE_SIDE), np.uint8)
    _expect(label_file, labels, (n,), np.uint8)
    if int(labels.max()) >= len(CLASSES):
        raise FileFormatError(f"{label_file}: label {int(labels.max())} is out of range 0..{len(CLASSES) - 1}")
    labels = labels.astype(np.int64)  # the index type torch's cross-entropy takes
    images.setflags(write=False)  # one cached pair is handed to every caller
    labels.setflags(write=False)
    return images, labels


def _data_path(filename: str) -> Path:
    path = FASHION_DIR / filename
    if not file_exists(path, "IDX images"):
        raise MissingDataError(
            f"fashion-mnist needs Debian's {DEBIAN_PACKAGE} ({path} is missing): apt-get install {DEBIAN_PACKAGE}"
        )
    return path


def _expect(filename: str, array: np.ndarray, shape: tuple[int, ...], dtype: type) -> None:
    if array.shape != shape or array.dtype != dtype:
        raise FileFormatError(
            f"{filename}: expected {np.dtype(dtype).name} values of shape {shape}; "
            f"got {array.dtype.name} of shape {array.shape}"
        )


def read_idx(path: str | Path) -> np.ndarray:
    """An IDX file (gzip-compressed or plain) -> its array, in native byte order.

    The header is checked against the data: a wrong magic number, an unknown type code, or a
    data part longer or shorter than the dimensions say raises FileFormatError naming the file
    and the byte offset.

    A plain file of bytes 00 00 08 02 | 00 00 00 02 | 00 00 00 03 | 0 1 2 3 4 5 -> [[0, 1, 2], [3, 4, 5]].
    """
    path = readable_file(path, "an IDX file")
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":  # the gzip signature
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as err:
            raise FileFormatError(
                f"{path}: not a readable gzip file ({plain(err)}); expected a gzip-compressed IDX file"
            ) from None
    if len(raw) < 4 or raw[:2] != b"\x00\x00":
        kind = content_kind(raw[:HEAD_BYTES], len(raw))
        found = "" if kind == "binary data" else f"; found {kind}"
        raise FileFormatError(
            f"{path}: bad IDX magic number {raw[:4].hex(' ')!r} at byte 0; expected an IDX file (00 00 TT NN){found}"
        )
    code, ndim = raw[2], raw[3]
    if code not in IDX_TYPES:
        known = ", ".join(f"{c:#04x}" for c in IDX_TYPES)
        raise FileFormatError(f"{path}: unknown IDX type code {code:#04x} at byte 2; known: {known}")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise FileFormatError(f"{path}: the header of {ndim} dimensions needs {header} bytes; the file has {len(raw)}")
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    dtype = np.dtype(IDX_TYPES[code])
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(raw) - header != expected:
        raise FileFormatError(
            f"{path}: shape {shape} needs {expected} data bytes after the header (byte {header}); "
            f"the file has {len(raw) - header}"
        )
    # frombuffer shares the decompressed bytes (read-only); the copy gives a writable native array
    return np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))
