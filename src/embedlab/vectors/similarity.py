"""Similarity and exact top-k search over a table E (V, d), as pure functions on NumPy arrays.

    as_array(x)                   array, tensor or nested list -> float32 NumPy array
    unit_rows(E)                  (V, d) -> (V, d)   each row scaled to length 1 (zero rows stay 0)
    pair_score(a, b, metric)      (..., d), (..., d) -> (...)
    score_matrix(Q, E, metric)    (B, d), (V, d) -> (B, V)
    cos_mul_scores(U, pos, neg)   3CosMul: (V, d), (B, p), (B, n) -> (B, V)
    cos_mul_vectors(U, P, N)      the same from the query vectors: (V, d), (B, p, d), (B, n, d) -> (B, V)
    top_k(S, k, exclude, largest) (B, V) -> values (B, k), indices (B, k)
    search(Q, k, scorer, ...)     the two together, in chunks of queries so memory stays bounded

Metrics: "cosine" and "dot" are similarities (higher is closer); "euclidean" is a distance
(lower is closer) and is computed as sqrt(‖e‖² − 2 e·q + ‖q‖²), so a batch of queries is one
matrix product, never a (B, V, d) difference tensor. On unit rows the three agree on the order:
‖a − b‖² = 2 − 2 a·b (see `embedlab.vectors.analysis.unit_distance_identity`).

NumPy, as gensim's KeyedVectors: its BLAS (OpenBLAS) ran these products faster than torch's MKL
on our 2-core AMD machine (2.0 ms against 5.1 ms for one query on the 30522 × 384 MiniLM table),
and a query need not import torch (about a second). A torch tensor is accepted anywhere an array
is, and read as one (`as_array`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from embedlab.errors import InvalidValueError, check_choice, is_tensor

METRICS = ("cosine", "dot", "euclidean")

# gensim's 3CosMul adds this to the denominator so a negative term with cosine -1 cannot divide by 0
COSMUL_EPSILON = 1e-6

# scores of at most this many floats are made at once (128 MiB of float32: 1,099 queries of MiniLM).
# Fewer, larger products are faster: each one packs the whole table for the BLAS kernel, and 1,000
# MiniLM queries took 0.20 s as one product against 0.31 s as eight (bench/query.py's machine)
CHUNK_FLOATS = 1 << 25
PARTITION_FLOATS = 1 << 20  # scores whose top-k is found at once: 34 rows of MiniLM (see top_k)


def as_array(x: object, dtype: type = np.float32) -> np.ndarray:
    """A NumPy array, torch tensor (any device, any float dtype) or nested list -> a NumPy array
    of `dtype`, sharing memory where it can (an array or a CPU tensor already of that dtype).

    >>> as_array([[1, 2]]).dtype
    dtype('float32')
    """
    if is_tensor(x):
        x = x.detach().cpu()
        if x.dtype.is_floating_point and x.dtype.itemsize < 4:  # bfloat16 (NumPy has none) and float16
            x = x.float()
        x = x.numpy()
    return np.asarray(x, dtype=dtype)


def read_only(array: np.ndarray) -> np.ndarray:
    """The same array, flagged read-only (what gensim does to the rows it hands out)."""
    array.flags.writeable = False
    return array


def higher_is_better(metric: str) -> bool:
    """True for similarities (cosine, dot, 3cosmul), False for distances (euclidean)."""
    return metric != "euclidean"


def unit_rows(table: np.ndarray) -> np.ndarray:
    """(N, d) -> (N, d): every nonzero row divided by its length; an all-zero row stays zero
    (so its cosine with anything is 0 rather than NaN). A (d,) vector gives a (d,) vector."""
    if table.ndim == 1 or len(table) == 1:  # one vector (a query): its dot with itself, as np.linalg.norm takes it
        norm = np.sqrt(np.vdot(table, table))
        return table / norm if norm > 0 else table.copy()
    norms = np.sqrt(np.square(table).sum(axis=-1, keepdims=True))  # as np.linalg.norm, with less overhead
    return table / np.where(norms > 0, norms, 1)


def pair_score(a: np.ndarray, b: np.ndarray, metric: str = "cosine") -> np.ndarray:
    """(..., d), (..., d) -> (...): cosine similarity, dot product or Euclidean distance of a and b.

    The distance is taken from the difference directly (not the expanded form) so that it is
    exact for nearby vectors.

    >>> float(pair_score(np.array([3.0, 0.0]), np.array([1.0, 0.0]), "dot"))
    3.0
    >>> float(pair_score(np.array([3.0, 0.0]), np.array([1.0, 0.0]), "cosine"))
    1.0
    """
    check_choice("metric", metric, METRICS)
    if metric == "euclidean":
        return np.linalg.norm(a - b, axis=-1)
    if metric == "cosine":
        a, b = unit_rows(a), unit_rows(b)
    return (a * b).sum(axis=-1)


def score_matrix(
    queries: np.ndarray,
    table: np.ndarray,
    metric: str = "cosine",
    *,
    unit_table: np.ndarray | None = None,
    squared_norms: np.ndarray | None = None,
) -> np.ndarray:
    """(B, d), (V, d) -> (B, V) scores of every query against every row (tensors read as arrays).

    Pass `unit_table` (= unit_rows(table)) or `squared_norms` ((V,) = ‖row‖²) when you have them
    cached; they are what a repeated search should not recompute.
    """
    check_choice("metric", metric, METRICS)
    queries, table = as_array(queries), as_array(table)
    if metric == "cosine":
        unit_table = unit_rows(table) if unit_table is None else unit_table
        return products(unit_rows(queries), unit_table)
    if metric == "dot":
        return products(queries, table)
    if squared_norms is None:
        squared_norms = np.einsum("vd,vd->v", table, table)
    squared = products(queries, table)
    squared *= -2.0
    squared += squared_norms
    squared += np.einsum("bd,bd->b", queries, queries)[:, None]
    return np.sqrt(np.maximum(squared, 0.0, out=squared), out=squared)


def products(queries: np.ndarray, table: np.ndarray) -> np.ndarray:
    """(B, d), (V, d) -> (B, V) = queries @ table.T, the one expensive step of every search.

    One query is a matrix-vector product, table @ q: OpenBLAS's gemv reads the table once, a
    (1, d) @ (d, V) gemm took 1.0 ms where it takes 0.7 ms on MiniLM (bench/query.py).
    """
    if queries.shape[0] == 1:
        return (table @ queries[0])[None, :]
    return queries @ table.T


def cos_mul_scores(
    unit_table: np.ndarray, positive: np.ndarray, negative: np.ndarray, n_rows: int | None = None
) -> np.ndarray:
    """3CosMul of Levy & Goldberg (2014) with gensim's shift of cosines to [0, 1]:

        score(y) = Π_p (1 + cos(y, p)) / 2  /  (Π_n (1 + cos(y, n)) / 2 + 1e-6)

    unit_table (V, d) unit rows; positive (B, p) and negative (B, n) row indices -> (B, n_rows),
    the scores of the first `n_rows` rows (all V by default).
    """
    return cos_mul_vectors(unit_table[:n_rows], unit_table[positive], unit_table[negative])


def cos_mul_vectors(candidates: np.ndarray, positive: np.ndarray, negative: np.ndarray) -> np.ndarray:
    """3CosMul as cos_mul_scores, from the query vectors themselves: candidates (N, d) unit rows,
    positive (B, p, d) and negative (B, n, d) unit vectors -> (B, N) scores."""

    def shifted(vectors: np.ndarray) -> np.ndarray:  # (B, m, d) -> (B, m, N), cosines mapped to [0, 1]
        B, m, d = vectors.shape
        cosines = products(vectors.reshape(B * m, d), candidates).reshape(B, m, -1)
        return (1.0 + cosines) / 2.0

    numerator = shifted(positive).prod(axis=1)
    denominator = shifted(negative).prod(axis=1) if negative.shape[1] else np.ones_like(numerator)
    return numerator / (denominator + COSMUL_EPSILON)


def top_k(
    scores: np.ndarray,
    k: int,
    exclude: Sequence[Sequence[int]] | None = None,
    *,
    largest: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """(B, V) -> values (B, k), indices (B, k) int64, best first; `exclude[b]` lists rows that
    query b must not return (they are masked in `scores`, which is modified in place).

    k is clipped to V. If k exceeds the rows left after exclusion, the tail holds masked rows
    with score ∓inf; `search` callers drop them. Equal scores among the k come in row order.

    >>> top_k(np.array([[0.1, 0.9, 0.5, 0.9]]), 2, [[3]])
    (array([[0.9, 0.5]]), array([[1, 2]]))
    """
    if exclude is not None:
        rows = [b for b, cols in enumerate(exclude) for _ in cols]
        cols = [c for cols_b in exclude for c in cols_b]
        scores[rows, cols] = -np.inf if largest else np.inf
    B, V = scores.shape
    k = min(k, V)
    # subtle: argpartition finds the k best of each row without sorting the rest (gensim's argsort
    # does the same); only those k are then sorted, equal scores in row order. Partitioning at
    # V - k (rather than negating the scores) saves a copy of them. It returns all V indices of a
    # row, so it runs a few rows at a time: on 1,000 MiniLM rows at once it wrote 244 MB of them
    # and took 0.05-0.57 s (fresh memory each time), against a steady 0.038 s in blocks.
    if k == V:
        best = np.broadcast_to(np.arange(V), (B, V))
    else:
        kth, keep = (V - k, slice(V - k, None)) if largest else (k - 1, slice(None, k))
        step = max(1, PARTITION_FLOATS // V)
        parts = [np.argpartition(scores[i : i + step], kth, axis=1)[:, keep] for i in range(0, B, step)]
        best = parts[0] if len(parts) == 1 else np.concatenate(parts)  # (B, k) in no order
    row = np.arange(B)[:, None]  # fancy indexing: take_along_axis costs more for a single query
    values = scores[row, best]
    order = np.lexsort((best, -values if largest else values), axis=1)
    return values[row, order], best[row, order]  # argpartition gives int64 (intp) indices


def search(
    queries: np.ndarray,
    k: int,
    scorer: Callable[[slice], np.ndarray],
    *,
    n_rows: int,
    exclude: Sequence[Sequence[int]] | None = None,
    largest: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Top-k for many queries, a chunk of queries at a time: values (B, k), indices (B, k).

    `scorer(chunk)` returns the (len(chunk), n_rows) score matrix for queries[chunk], e.g.
    `lambda c: score_matrix(queries[c], table, "cosine", unit_table=unit)`; chunks are sized so
    that at most 2**25 scores exist at once.
    """
    step = max(1, CHUNK_FLOATS // max(n_rows, 1))
    values, indices = [], []
    for start in range(0, queries.shape[0], step):
        chunk = slice(start, start + step)
        v, i = top_k(scorer(chunk), k, None if exclude is None else exclude[chunk], largest=largest)
        values.append(v)
        indices.append(i)
    if len(values) == 1:  # one chunk (a single query, say): nothing to join
        return values[0], indices[0]
    if not values:
        return np.empty((0, min(k, n_rows)), dtype=np.float32), np.empty((0, min(k, n_rows)), dtype=np.int64)
    return np.concatenate(values), np.concatenate(indices)


def search_rows(
    queries: np.ndarray,
    rows: np.ndarray,
    k: int,
    metric: str,
    *,
    unit: np.ndarray | None = None,
    squared_norms: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k of (B, d) `queries` among (n, d) `rows` by `metric`: values (B, k), indices (B, k).

    Cosine scores against `unit`, the rows' unit vectors (required: the caller caches them), with the
    queries normalised once here, not per chunk, so one product is the score; euclidean takes the
    rows' cached `squared_norms` when given.
    """
    if metric == "cosine":
        if unit is None:
            raise InvalidValueError("a cosine search needs the rows' unit vectors (unit=)")
        queries = unit_rows(queries)

    def scorer(c: slice) -> np.ndarray:  # (chunk, n)
        if metric == "cosine":
            return products(queries[c], unit)
        return score_matrix(queries[c], rows, metric, squared_norms=squared_norms)

    return search(queries, k, scorer, n_rows=rows.shape[0], largest=higher_is_better(metric))
