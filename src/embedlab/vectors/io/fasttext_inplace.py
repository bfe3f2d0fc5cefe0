"""A fastText .bin whose matrices are filled inside the file being written: a trainer works on rows mapped
from the file, and the finished file takes its name atomically, with no second copy of a table that can
hold gigabytes (an 800 MB input table is otherwise made in memory, then copied to the file).

    with fasttext_in_place("model.bin", replace=False) as place:
        w_in, w_out = place(args, words, counts, entry_types, ntokens, (rows, D), (labels, D))
        ...                      # fill w_in and w_out: they are the file's matrices
    # "model.bin" now holds them; had the block raised, nothing would be there

The layout is write_fasttext's (unquantized, unpruned); the arrays stay valid after the block, mapped to
the file at its final name. NaN or ±inf in any row is refused at the end, as write_fasttext refuses it,
and the file is then not put in place.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from embedlab.files import atomic_writer
from embedlab.vectors.io.fasttext import header_bytes
from embedlab.vectors.io.fasttext_model import MATRIX_FORMAT
from embedlab.vectors.io.table import check_finite_to_write

Place = Callable[..., tuple[np.ndarray, np.ndarray]]


@contextmanager
def fasttext_in_place(path: str | Path, replace: bool = True) -> Iterator[Place]:
    """Yield `place(args, words, counts, entry_types, ntokens, input_shape, output_shape)`, which writes
    the header and returns the (rows, D) input and (labels or words, D) output float32 arrays mapped from
    the file; once per block. On a clean exit the file is checked and put at `path` (atomic_writer)."""
    path = Path(path)
    placed: list[tuple[np.ndarray, np.ndarray, list[str]]] = []  # (input, output, the words)
    with atomic_writer(path, "wb", replace) as f:

        def place(args, words, counts, entry_types, ntokens, input_shape, output_shape):
            if placed:
                raise RuntimeError("place() is called once per file")
            f.write(header_bytes(args, words, counts, entry_types, ntokens, None))
            offsets = []
            for rows, cols in (input_shape, output_shape):
                f.write(b"\0" + struct.pack(MATRIX_FORMAT, rows, cols))  # not quantized, then the shape
                offsets.append(f.tell())
                f.seek(4 * rows * cols, 1)
            f.truncate()
            f.flush()
            data = mmap.mmap(f.fileno(), 0)  # the mapping outlives the file object and the rename
            arrays = tuple(
                np.frombuffer(data, "<f4", rows * cols, at).reshape(rows, cols)
                for at, (rows, cols) in zip(offsets, (input_shape, output_shape), strict=True)
            )
            placed.append((*arrays, list(words[: int(np.count_nonzero(np.asarray(entry_types) == 0))])))
            return arrays

        yield place
        for w_in, w_out, words in placed:
            check_finite_to_write(path, words, w_in[: len(words)])
            check_finite_to_write(Path(f"{path} (n-gram bucket rows)"), None, w_in[len(words) :])
            check_finite_to_write(Path(f"{path} (output rows)"), None, w_out)
