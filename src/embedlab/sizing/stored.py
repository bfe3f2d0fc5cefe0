"""What one (rows, D) table takes stored four ways: fp32, fp16, int8, or product-quantized codes
(fastText's `quantize` and .ftz; embedlab.vectors.quantize does it, `embedlab export --out x.ftz`).

    quantized_bytes(30522, 384, dsub=2)      codes 30,522 × 192 + codebooks 256 × 384 × 4 = 6,253,440
    stored_bytes(30522, 384)                 StoredBytes: fp32 46,881,792, fp16, int8, and the above
    token_matrix(layout)                     (rows, D) of a layout's token table, or None when it is not one matrix

Product quantization cuts each row into sub-vectors of dsub columns and stores each as one byte, the
index of the nearest of 256 centroids learned for its sub-space; the centroids (the codebooks) are
stored once, 256 × D float32 in all, whatever the rows. With qnorm each row's norm is kept apart as
one more byte, with its own 256 float32 centroids. Worked example, MiniLM's 30,522 × 384 token table
at dsub 2:

    codes      30,522 × ceil(384 / 2) = 30,522 × 192 =  5,860,224 bytes
    codebooks  256 × 384 × 4                          =    393,216
    total                                               6,253,440 = 46,881,792 (fp32) / 7.50

so the bytes per row fall from 4·D to ceil(D / dsub), and the codebooks weigh only when rows are few.
A dsub that does not divide D leaves a narrower last sub-space (fastText's lastdsub): still one byte.
A table of fewer than 256 rows cannot be quantized (each sub-space needs 256 points to learn 256
centroids): its `quantized` is None. int8 counts the weights alone, as BYTES_PER_PARAM does: the
scales an int8 table also keeps (2 · D float32 for one range per column) are not in it.
"""

from __future__ import annotations

from dataclasses import dataclass

from embedlab.errors import check_int
from embedlab.sizing.layout import BYTES_PER_PARAM, EmbeddingLayout

KSUB = 256  # centroids a sub-space, so a code is one byte (vectors.quantize.KSUB; tests/test_sizing.py pins it)
DSUB = 2  # fastText's -dsub default
FLOAT32 = 4  # bytes of a centroid's number


@dataclass(frozen=True)
class QuantizedBytes:
    """The bytes of a (rows, D) table product-quantized in sub-vectors of dsub columns."""

    rows: int
    dim: int  # D
    dsub: int  # columns a code stands for
    qnorm: bool  # each row's norm kept apart
    nsubq: int  # sub-spaces: ceil(D / dsub), the code bytes of one row
    codes: int  # rows · nsubq
    codebooks: int  # 256 · D · 4: every sub-space's 256 centroids, float32
    norms: int  # with qnorm: a code byte a row and 256 float32 norm centroids (rows + 1,024); else 0
    bytes: int  # codes + codebooks + norms: vectors.quantize.QuantizedMatrix.nbytes


@dataclass(frozen=True)
class StoredBytes:
    """One (rows, D) table's bytes as fp32, fp16 and int8 numbers, and product-quantized."""

    rows: int
    dim: int  # D
    fp32: int  # rows · D · 4
    fp16: int  # rows · D · 2
    int8: int  # rows · D: the weights alone (the module docstring)
    quantized: QuantizedBytes | None  # None: fewer than 256 rows, too few to learn 256 centroids from


def quantized_bytes(rows: int, dim: int, dsub: int = DSUB, qnorm: bool = False) -> QuantizedBytes:
    """The bytes of a (rows, D) table product-quantized: codes, codebooks and norms (module docstring).

    >>> q = quantized_bytes(30522, 384, dsub=2)
    >>> q.codes, q.codebooks, q.bytes
    (5860224, 393216, 6253440)
    >>> quantized_bytes(30522, 384, dsub=8, qnorm=True).bytes   # 30,522 × 48 + 393,216 + 30,522 + 1,024
    1889818
    """
    rows = check_int("rows", rows, low=KSUB)
    dim = check_int("dim", dim, low=1)
    dsub = check_int("dsub", dsub, low=1, high=dim)
    nsubq = -(-dim // dsub)
    codes, codebooks = rows * nsubq, KSUB * dim * FLOAT32
    norms = rows + KSUB * FLOAT32 if qnorm else 0
    return QuantizedBytes(rows, dim, dsub, bool(qnorm), nsubq, codes, codebooks, norms, codes + codebooks + norms)


def stored_bytes(rows: int, dim: int, dsub: int = DSUB, qnorm: bool = False) -> StoredBytes:
    """A (rows, D) table's bytes four ways; `dsub` and `qnorm` set the quantized one.

    >>> s = stored_bytes(30522, 384)
    >>> s.fp32, s.fp16, s.int8, s.quantized.bytes
    (46881792, 23440896, 11720448, 6253440)
    """
    rows = check_int("rows", rows, low=1)
    dim = check_int("dim", dim, low=1)
    check_int("dsub", dsub, low=1, high=dim)  # refused for a small table too, where it would change nothing
    values = rows * dim
    quantized = quantized_bytes(rows, dim, dsub, qnorm) if rows >= KSUB else None
    fp32, fp16, int8 = (values * BYTES_PER_PARAM[t] for t in ("fp32", "fp16", "int8"))
    return StoredBytes(rows, dim, fp32, fp16, int8, quantized)


def token_matrix(layout: EmbeddingLayout) -> tuple[int, int] | None:
    """(rows, D) of a text layout's token table when it is one matrix: (V, D) full, (B, D) hashed by
    the hashing trick; None for an image layout or a table of several parts (hash embeddings,
    quotient-remainder, adaptive bands, factorised), whose parts would be quantized apart."""
    if layout.is_image or layout.vocab_table not in ("full", "hashed"):
        return None
    return (layout.hashed_rows if layout.vocab_table == "hashed" else layout.vocab_size), layout.dim
