"""A table of Gaussian clusters whose truth is known, as large as wanted: a map's contours and labels
can be checked against it, and a ten-million-row table made without any download.

    path = write_clusters("big.npy", rows=10_000_000)    # big.npy + big.vocab.json, streamed (4 GB at D = 100)
    cluster_of("walnut-123")                             # "walnut": a key names its cluster

Row i belongs to cluster c(i), drawn with probability proportional to 1 / (rank + 1) (a few large
clusters and many small ones, so densities differ), and is centre[c] + N(0, I); the centres are
N(0, SPREAD² I). Its key is "<cluster name>-<i>". Same seed, same table.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from embedlab.errors import InvalidValueError, check_int
from embedlab.files import atomic_writer

NAMES = (
    "amber", "birch", "cedar", "daisy", "ember", "fern", "garnet", "hazel", "iris", "jasper",
    "kelp", "lilac", "maple", "nutmeg", "olive", "pepper", "quartz", "rowan", "sage", "thyme",
    "umber", "violet", "walnut", "willow", "yarrow", "zinnia", "acorn", "basil", "clover", "dune",
    "flint", "ginger", "heath", "ivy", "juniper", "larch", "moss", "nettle", "oak", "pine",
    "reed", "sorrel", "tansy", "vetch", "wheat", "alder", "bramble", "cobalt", "delta", "fjord",
)  # fmt: skip
SPREAD = 3.0  # the centres' standard deviation per column (the points' own is 1)
CHUNK = 1_000_000  # rows drawn and written at a time


def write_clusters(
    path: str | Path,
    rows: int,
    dim: int = 100,
    clusters: int = 50,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write a (rows, dim) float32 table of `clusters` Gaussian clusters to `path` (.npy) and its keys
    to the .vocab.json beside it, chunk by chunk (memory: one chunk) -> path."""
    path = Path(path)
    if path.suffix != ".npy":
        raise InvalidValueError(f"{path}: a cluster table is written as .npy")
    rows = check_int("rows", rows, low=1)
    dim = check_int("dim", dim, low=1)
    clusters = check_int("clusters", clusters, low=1, high=len(NAMES))
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=SPREAD, size=(clusters, dim)).astype(np.float32)
    weights = 1.0 / np.arange(1, clusters + 1)
    weights /= weights.sum()
    vocab = path.with_suffix(".vocab.json")
    with atomic_writer(path) as table_file, atomic_writer(vocab, "w") as keys_file:
        np.lib.format.write_array_header_1_0(table_file, {"descr": "<f4", "fortran_order": False, "shape": (rows, dim)})
        keys_file.write('{"keys": [')
        for start in range(0, rows, CHUNK):
            stop = min(start + CHUNK, rows)
            label = rng.choice(clusters, size=stop - start, p=weights)
            block = centres[label] + rng.normal(size=(stop - start, dim)).astype(np.float32)
            table_file.write(block.astype("<f4").tobytes())
            keys = [f"{NAMES[c]}-{i}" for c, i in zip(label.tolist(), range(start, stop), strict=True)]
            keys_file.write(("," if start else "") + json.dumps(keys)[1:-1])
            if progress is not None:
                progress(stop, rows)
        keys_file.write('], "counts": null}')
    return path


def cluster_of(key: str) -> str:
    """The cluster a key of write_clusters's table belongs to: "walnut-123" -> "walnut"."""
    return key.rsplit("-", 1)[0]
