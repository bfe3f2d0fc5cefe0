"""sizing.stored: a table's bytes as fp32, fp16, int8 and product-quantized codes, held to what a real
QuantizedMatrix holds (its nbytes) and to the bytes of the .ftz that `embedlab export` writes."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.errors import InvalidValueError
from embedlab.sizing import EmbeddingLayout, quantized_bytes, stored_bytes, token_matrix
from embedlab.sizing.stored import KSUB
from embedlab.vectors import Vectors, quantize
from embedlab.vectors.io.quantized import write_ftz
from embedlab.vectors.io.table import Table

# the .ftz's bytes beside the quantized input (io/fasttext.py, io/ftz.py): magic + version (2 int32), fastText's
# Args (12 int32 + a float64), the dictionary's sizes (3 int32 + 2 int64); each quantized matrix's flag byte,
# then qnorm + m + n + codesize (21 bytes) and its quantizer's dim, nsubq, dsub, lastdsub (4 int32)
HEADER = 8 + 56 + 28
MATRIX_HEAD, PQ_HEAD = 1 + 21, 16


def test_the_constant_is_the_quantizers():
    assert KSUB == quantize.KSUB


@pytest.mark.parametrize(("rows", "dim", "dsub", "qnorm"), [(300, 8, 2, False), (300, 8, 4, True), (257, 10, 3, True)])
def test_the_arithmetic_is_a_real_quantized_matrix(rows, dim, dsub, qnorm):
    matrix = np.random.default_rng(0).normal(size=(rows, dim)).astype(np.float32)
    want = quantized_bytes(rows, dim, dsub, qnorm)
    if dim % dsub == 0:
        real = quantize.quantize(matrix, dsub, qnorm)
        assert (want.bytes, want.codes, want.nsubq) == (real.nbytes, real.codes.nbytes, real.pq.nsubq)
    else:  # ours refuses a dsub that does not divide D; fastText's files hold it, one narrower last sub-space
        pq = quantize.ProductQuantizer(dim, dsub, np.zeros(KSUB * dim, np.float32))
        norm = quantize.ProductQuantizer(1, 1, np.zeros(KSUB, np.float32))
        codes = np.zeros((rows, pq.nsubq), np.uint8)
        real = quantize.QuantizedMatrix(codes, pq, np.zeros(rows, np.uint8), norm)
        assert (want.bytes, want.nsubq) == (real.nbytes, 4)


@pytest.mark.parametrize("qnorm", [False, True])
def test_a_ftz_is_the_quantized_table_plus_its_words_and_headers(tmp_path, minilm_vectors, qnorm):
    """The file's bytes, part by part: what `embedlab size` says for the table is the part that grows
    with it; the rest is the words (each NUL-ended, an int64 count, an int8 type) and the zero output."""
    n, dsub = 2000, 8
    table = Table(minilm_vectors.index_to_key[:n], minilm_vectors.vectors[:n])
    path = write_ftz(table, tmp_path / "t.ftz", dsub=dsub, qnorm=qnorm)[0]
    dim = minilm_vectors.vector_size
    words = sum(len(k.encode()) + 1 + 8 + 1 for k in table.keys)
    table_part = stored_bytes(n, dim, dsub, qnorm).quantized.bytes + PQ_HEAD * (2 if qnorm else 1)
    output = n + KSUB * dim * 4 + PQ_HEAD  # one code byte a row, 256 zero centroids
    assert path.stat().st_size == HEADER + words + MATRIX_HEAD + table_part + MATRIX_HEAD + output
    assert len(Vectors.load(path)) == n


def test_minilms_token_table_four_ways():
    s = stored_bytes(30522, 384)
    assert (s.fp32, s.fp16, s.int8) == (30522 * 384 * 4, 30522 * 384 * 2, 30522 * 384)
    assert s.quantized.bytes == 30522 * 192 + 256 * 384 * 4 == 6_253_440
    assert s.fp32 / s.quantized.bytes == pytest.approx(7.497, abs=1e-3)
    qnorm = stored_bytes(30522, 384, dsub=8, qnorm=True).quantized
    assert (qnorm.codes, qnorm.norms, qnorm.bytes) == (30522 * 48, 30522 + 1024, 30522 * 49 + 1024 + 393_216)


def test_too_few_rows_to_quantize_and_bad_dsubs():
    small = stored_bytes(255, 8)
    assert small.quantized is None and small.fp32 == 255 * 8 * 4
    with pytest.raises(InvalidValueError, match="rows must be >= 256"):
        quantized_bytes(255, 8)
    for dsub in (0, 9):
        with pytest.raises(InvalidValueError, match=f"dsub must be between 1 and 8; got {dsub}"):
            stored_bytes(1000, 8, dsub)


def test_only_a_one_matrix_token_table_is_sized():
    assert token_matrix(EmbeddingLayout(vocab_size=30522, dim=768)) == (30522, 768)
    assert token_matrix(EmbeddingLayout(vocab_size=128000, dim=64, hashed_rows=12800)) == (12800, 64)
    assert token_matrix(EmbeddingLayout(vocab_size=128000, dim=64, hashed_rows=12800, hash_count=2)) is None
    assert token_matrix(EmbeddingLayout(vocab_size=30000, dim=768, factor_dim=128)) is None
    assert token_matrix(EmbeddingLayout(dim=768, image_size=224, patch_size=16)) is None
