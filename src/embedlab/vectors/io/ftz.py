"""What a quantized fastText model (.ftz, `fasttext quantize`) adds to a .bin: the pruned
dictionary's n-gram ids and product-quantized matrices, read (through cursor.Reader) and written
(fasttext.py reads and writes the rest of the file and calls these).

    read_pruneidx(r, size, buckets)         -> (P, 2) int32 (bucket, row) pairs at the cursor
    read_matrix(r, name, rows, cols, quantized)  -> (rows, cols) float32 (mapped) or a QuantizedMatrix
    write_matrix(f, matrix)                 the same bytes, after its quantization flag
    check_to_write(model, path)             refuse what fastText could not read back (a pruned, unquantized input)
    kept_ngrams(model, offsets, ids)        a word's bucket ids as the rows fastText averages (pruned, decoded)

A quantized matrix (fastText's QuantMatrix::save, ProductQuantizer::save), little-endian:

    bool qnorm, int64 m, int64 n, int32 codesize (m * nsubq), codesize uint8 codes (row-major)
    ProductQuantizer   int32 dim (n), nsubq, dsub, lastdsub, 256 * dim float32 centroids
    if qnorm: m uint8 norm codes, then a ProductQuantizer of dim 1 (256 float32 norms)

nsubq is ceil(dim / dsub); lastdsub is dsub, or dim % dsub when dsub does not divide dim. Each
size is checked against the header and against the bytes left before anything is made, and every
complaint names the file and the byte offset (the reader's `fail`). The codes are mapped, not
copied; the codebooks (256 * dim floats) are copied.
"""

from __future__ import annotations

import struct
from typing import IO, TYPE_CHECKING

import numpy as np

from embedlab.errors import InvalidValueError
from embedlab.vectors.io.fasttext_model import MATRIX_FORMAT, ROWS_PER_WRITE, pruneidx_problem
from embedlab.vectors.quantize import KSUB, ProductQuantizer, QuantizedMatrix

if TYPE_CHECKING:
    from embedlab.vectors.io.cursor import Reader
    from embedlab.vectors.io.fasttext_model import FastTextModel

QUANT_FORMAT = "<?qqi"  # qnorm, m, n, codesize: 21 bytes
SHAPE_FORMAT = "<qqi"  # m, n, codesize: the same after the flag
PQ_FORMAT = "<iiii"  # dim, nsubq, dsub, lastdsub


def read_pruneidx(r: Reader, size: int, buckets: int) -> np.ndarray:
    """The dictionary's `size` pruned n-gram ids at the cursor -> (P, 2) int32 (bucket, row) pairs,
    in file order; each bucket in [0, buckets) once and the rows 0..P-1 once each."""
    start = r.need(8 * size, f"{size:,} pruned n-gram ids (int32 pairs)")
    pairs = np.frombuffer(r.data, "<i4", 2 * size, start).reshape(size, 2).astype(np.int32)
    if problem := pruneidx_problem(pairs, buckets):
        raise r.fail(f"expected the pruned n-gram ids' (bucket, row) pairs: {problem[1]}", start + 8 * problem[0])
    return pairs


def read_matrix(r: Reader, name: str, rows: int, cols: int, quantized: bool) -> np.ndarray | QuantizedMatrix:
    """The `name` matrix at the cursor, after its quantization flag: (rows, cols) float32 mapped, or
    the QuantizedMatrix of that shape."""
    if not quantized:
        return r.matrix(name, rows, cols)
    at = r.pos
    qnorm = r.flag(f"the {name} matrix's qnorm flag")
    m, n, codesize = r.unpack(SHAPE_FORMAT, f"the {name} matrix's shape and code size")
    if (m, n) != (rows, cols):
        raise r.fail(
            f"expected the quantized {name} matrix of shape ({rows:,}, {cols:,}); found ({m:,}, {n:,})", at + 1
        )
    if codesize < 0 or (m and (codesize % m or not 1 <= codesize // m <= n)) or (not m and codesize):
        raise r.fail(
            f"expected the {name} matrix's code size to be {m:,} rows x 1..{n} codes; found {codesize:,}", at + 17
        )
    codes_at = r.need(codesize, f"the {name} matrix's {codesize:,} codes")
    pq = _read_pq(r, f"the {name} matrix's", n, codesize // m if m else None, at + 17)
    codes = np.frombuffer(r.data, np.uint8, codesize, codes_at).reshape(m, pq.nsubq)
    if not qnorm:
        return QuantizedMatrix(codes, pq)
    norms_at = r.need(m, f"the {name} matrix's {m:,} norm codes")
    norm_pq = _read_pq(r, f"the {name} matrix's norm", 1, 1, None)
    return QuantizedMatrix(codes, pq, np.frombuffer(r.data, np.uint8, m, norms_at), norm_pq)


def _read_pq(r: Reader, whose: str, dim: int, nsubq: int | None, codesize_at: int | None) -> ProductQuantizer:
    """A ProductQuantizer at the cursor, of `dim` columns and `nsubq` sub-spaces (None: any, the
    matrix has no rows), whose codes' size is at `codesize_at` (None: a norm quantizer, dsub 1)."""
    at = r.pos
    d, n_sub, dsub, last = r.unpack(PQ_FORMAT, f"{whose} quantizer's dim, nsubq, dsub and lastdsub (4 int32)")
    if d != dim:
        after = "" if codesize_at is None else f", after the codes the code size at byte {codesize_at:,} says"
        why = "one norm a row" if codesize_at is None else f"its width{after}"
        raise r.fail(f"expected {whose} quantizer of dim {dim:,} ({why}); found {d:,}", at)
    if dsub < 1 or (codesize_at is None and dsub != 1):
        raise r.fail(
            f"expected {whose} quantizer's dsub {'1' if codesize_at is None else '>= 1'}; found {dsub:,}", at + 8
        )
    want = (-(-dim // dsub), dim - (-(-dim // dsub) - 1) * dsub)  # nsubq, lastdsub for this dim and dsub
    if (n_sub, last) != want:
        raise r.fail(
            f"expected {whose} quantizer of dim {dim} and dsub {dsub} to have nsubq {want[0]} and lastdsub {want[1]}; "
            f"found {n_sub} and {last}",
            at + 4,
        )
    if nsubq is not None and n_sub != nsubq:
        raise r.fail(
            f"expected {whose} code size to be its rows x the quantizer's nsubq ({n_sub}), {nsubq} codes a row found",
            codesize_at,
        )
    start = r.need(4 * KSUB * dim, f"{whose} quantizer's {KSUB} x {dim} float32 centroids")
    return ProductQuantizer(dim, dsub, np.frombuffer(r.data, "<f4", KSUB * dim, start).astype(np.float32))


def write_matrix(f: IO[bytes], matrix: np.ndarray | QuantizedMatrix) -> None:
    """`matrix` as fastText saves it after its quantization flag (which the caller writes)."""
    if not isinstance(matrix, QuantizedMatrix):
        f.write(struct.pack(MATRIX_FORMAT, *matrix.shape))
        for start in range(0, len(matrix), ROWS_PER_WRITE):
            f.write(np.ascontiguousarray(matrix[start : start + ROWS_PER_WRITE], dtype="<f4").data)
        return
    m, n = matrix.shape
    f.write(struct.pack(QUANT_FORMAT, matrix.qnorm, m, n, matrix.codes.size))
    f.write(np.ascontiguousarray(matrix.codes).data)
    _write_pq(f, matrix.pq)
    if matrix.qnorm:
        f.write(np.ascontiguousarray(matrix.norm_codes).data)
        _write_pq(f, matrix.norm_pq)


def _write_pq(f: IO[bytes], pq: ProductQuantizer) -> None:
    f.write(struct.pack(PQ_FORMAT, pq.dim, pq.nsubq, pq.dsub, pq.lastdsub))
    f.write(np.ascontiguousarray(pq.centroids, dtype="<f4").data)


def check_to_write(model: FastTextModel, path: object) -> None:
    """Refuse what fastText could not read back: a pruned dictionary before an unquantized input
    (its "Invalid model file"), a quantized output after an unquantized input (fastText reads the
    output as quantized only when the input is), a code size beyond int32, NaN or ±inf centroids."""
    if model.pruneidx is not None and not model.quantized:
        raise InvalidValueError(
            f"cannot write {path}: its dictionary is pruned but its input matrix is not quantized, and fastText "
            "refuses such a file ('Invalid model file'); quantize the input first (quantize_model)"
        )
    if isinstance(model.output, QuantizedMatrix) and not model.quantized:
        raise InvalidValueError(f"cannot write {path}: a quantized output needs a quantized input (fastText's qout)")
    for name in ("input", "output"):
        matrix = getattr(model, name)
        if not isinstance(matrix, QuantizedMatrix):
            continue
        if matrix.codes.size > 2**31 - 1:
            raise InvalidValueError(
                f"cannot write {path}: the {name} matrix's {matrix.codes.size:,} codes exceed int32"
            )
        for pq in (matrix.pq, matrix.norm_pq):
            if pq is not None and not np.isfinite(pq.centroids).all():
                raise InvalidValueError(f"cannot write {path}: the {name} matrix's codebook holds NaN or ±inf")


def kept_ngrams(
    model: FastTextModel, offsets: np.ndarray, ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each word's bucket ids (offsets (V+1,), ids (N,), hashing.vocab_ngram_buckets') -> the same
    for the rows fastText averages, and those rows: (offsets (V+1,), ids (N',), rows (U, D) float32),
    word i's n-gram rows being rows[ids[offsets[i]:offsets[i + 1]]]. A pruned model drops the buckets
    pruneidx does not keep (Dictionary::pushHash); a quantized one decodes only the rows used."""
    nwords = model.nwords
    if model.pruneidx is not None:
        row_of = np.full(model.buckets, -1, np.int64)  # (B,) bucket -> its kept row, -1 dropped
        row_of[model.pruneidx[:, 0]] = model.pruneidx[:, 1]
        mapped = row_of[ids]
        kept = mapped >= 0
        offsets = np.concatenate([[0], np.cumsum(kept)])[offsets]  # (V+1,) each word's kept ids, in turn
        ids = mapped[kept]
    if not model.quantized:
        return offsets, ids, model.input[nwords:]
    used, at = np.unique(ids, return_inverse=True)
    return offsets, at.astype(np.int64), model.input.rows(nwords + used)
