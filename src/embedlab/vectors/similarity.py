"""Similarity and exact top-k search over a table E (V, d), as pure functions on torch tensors.

    as_tensor(x)                  array, tensor or nested list -> float32 tensor, read-only arrays copied
    unit_rows(E)                  (V, d) -> (V, d)   each row scaled to length 1 (zero rows stay 0)
    pair_score(a, b, metric)      (..., d), (..., d) -> (...)
    score_matrix(Q, E, metric)    (B, d), (V, d) -> (B, V)
    cos_mul_scores(U, pos, neg)   3CosMul: (V, d), (B, p), (B, n) -> (B, V)
    top_k(S, k, exclude, largest) (B, V) -> values (B, k), indices (B, k)
    search(Q, E, k, ...)          the two together, in chunks of queries so memory stays bounded

Metrics: "cosine" and "dot" are similarities (higher is closer); "euclidean" is a distance
(lower is closer) and is computed as sqrt(‖e‖² − 2 e·q + ‖q‖²), so a batch of queries is one
matrix product, never a (B, V, d) difference tensor. On unit rows the three agree on the order:
‖a − b‖² = 2 − 2 a·b (see `embedlab.vectors.analysis.unit_distance_identity`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from embedlab.errors import check_choice

METRICS = ("cosine", "dot", "euclidean")

# gensim's 3CosMul adds this to the denominator so a negative term with cosine -1 cannot divide by 0
COSMUL_EPSILON = 1e-6

# scores of at most this many floats are materialised at once (256 MiB of float32)
_CHUNK_FLOATS = 1 << 26


def as_tensor(x: object, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A tensor, NumPy array or nested list -> a tensor of `dtype`, sharing memory where it can.

    A read-only NumPy array (a row Vectors hands out) is copied first: torch cannot share memory
    it may not write to, and would warn.
    """
    if torch.is_tensor(x):
        return x.to(dtype)
    if isinstance(x, np.ndarray) and not x.flags.writeable:
        x = x.copy()
    return torch.as_tensor(x, dtype=dtype)


def higher_is_better(metric: str) -> bool:
    """True for similarities (cosine, dot, 3cosmul), False for distances (euclidean)."""
    return metric != "euclidean"


def unit_rows(table: torch.Tensor) -> torch.Tensor:
    """(N, d) -> (N, d): every nonzero row divided by its length; an all-zero row stays zero
    (so its cosine with anything is 0 rather than NaN)."""
    norms = torch.linalg.vector_norm(table, dim=-1, keepdim=True)
    return table / torch.where(norms > 0, norms, torch.ones_like(norms))


def pair_score(a: torch.Tensor, b: torch.Tensor, metric: str = "cosine") -> torch.Tensor:
    """(..., d), (..., d) -> (...): cosine similarity, dot product or Euclidean distance of a and b.

    The distance is taken from the difference directly (not the expanded form) so that it is
    exact for nearby vectors.

    >>> pair_score(torch.tensor([3.0, 0.0]), torch.tensor([1.0, 0.0]), "dot").item()
    3.0
    >>> pair_score(torch.tensor([3.0, 0.0]), torch.tensor([1.0, 0.0]), "cosine").item()
    1.0
    """
    check_choice("metric", metric, METRICS)
    if metric == "euclidean":
        return torch.linalg.vector_norm(a - b, dim=-1)
    if metric == "cosine":
        a, b = unit_rows(a), unit_rows(b)
    return (a * b).sum(dim=-1)


def score_matrix(
    queries: torch.Tensor,
    table: torch.Tensor,
    metric: str = "cosine",
    *,
    unit_table: torch.Tensor | None = None,
    squared_norms: torch.Tensor | None = None,
) -> torch.Tensor:
    """(B, d), (V, d) -> (B, V) scores of every query against every row.

    Pass `unit_table` (= unit_rows(table)) or `squared_norms` ((V,) = ‖row‖²) when you have them
    cached; they are what a repeated search should not recompute.
    """
    check_choice("metric", metric, METRICS)
    if metric == "cosine":
        unit_table = unit_rows(table) if unit_table is None else unit_table
        return products(unit_rows(queries), unit_table)
    if metric == "dot":
        return products(queries, table)
    if squared_norms is None:
        squared_norms = table.square().sum(dim=-1)
    squared = squared_norms - 2.0 * products(queries, table) + queries.square().sum(dim=-1, keepdim=True)
    return squared.clamp_min_(0.0).sqrt_()


def products(queries: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """(B, d), (V, d) -> (B, V) = queries @ table.T, the one expensive step of every search.

    On the CPU the product goes through NumPy's BLAS: torch's (MKL) kernel for this layout ran
    at under half its speed on our 2-core AMD machine (5.1 ms against 2.0 ms for one query on
    the 30522 × 384 MiniLM table; bench/query.py). The arrays share memory, so nothing is copied.
    """
    numpy_types = (torch.float32, torch.float64)  # NumPy has no bfloat16: those stay in torch
    if (
        queries.device.type == table.device.type == "cpu"
        and queries.dtype in numpy_types
        and table.dtype in numpy_types
    ):
        return torch.from_numpy(queries.detach().numpy() @ table.detach().numpy().T)
    return queries @ table.T


def cos_mul_scores(
    unit_table: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor, n_rows: int | None = None
) -> torch.Tensor:
    """3CosMul of Levy & Goldberg (2014) with gensim's shift of cosines to [0, 1]:

        score(y) = Π_p (1 + cos(y, p)) / 2  /  (Π_n (1 + cos(y, n)) / 2 + 1e-6)

    unit_table (V, d) unit rows; positive (B, p) and negative (B, n) row indices -> (B, n_rows),
    the scores of the first `n_rows` rows (all V by default).
    """
    candidates = unit_table[:n_rows]

    def shifted(index: torch.Tensor) -> torch.Tensor:  # (B, m) -> (B, m, n_rows), cosines mapped to [0, 1]
        B, m = index.shape
        cosines = products(unit_table[index.reshape(-1)], candidates).reshape(B, m, -1)
        return (1.0 + cosines) / 2.0

    numerator = shifted(positive).prod(dim=1)
    denominator = shifted(negative).prod(dim=1) if negative.shape[1] else torch.ones_like(numerator)
    return numerator / (denominator + COSMUL_EPSILON)


def top_k(
    scores: torch.Tensor,
    k: int,
    exclude: Sequence[Sequence[int]] | None = None,
    *,
    largest: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, V) -> values (B, k), indices (B, k), best first; `exclude[b]` lists rows that query b
    must not return (they are masked in `scores`, which is modified in place).

    k is clipped to V. If k exceeds the rows left after exclusion, the tail holds masked rows
    with score ∓inf; `search` callers drop them.
    """
    if exclude is not None:
        rows = [b for b, cols in enumerate(exclude) for _ in cols]
        cols = [c for cols_b in exclude for c in cols_b]
        scores[rows, cols] = float("-inf") if largest else float("inf")
    return torch.topk(scores, min(k, scores.shape[1]), dim=1, largest=largest, sorted=True)


def search(
    queries: torch.Tensor,
    k: int,
    scorer: Callable[[slice], torch.Tensor],
    *,
    n_rows: int,
    exclude: Sequence[Sequence[int]] | None = None,
    largest: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Top-k for many queries, a chunk of queries at a time: values (B, k), indices (B, k).

    `scorer(chunk)` returns the (len(chunk), n_rows) score matrix for queries[chunk], e.g.
    `lambda c: score_matrix(queries[c], table, "cosine", unit_table=unit)`; chunks are sized so
    that at most 2**26 scores exist at once.
    """
    step = max(1, _CHUNK_FLOATS // max(n_rows, 1))
    values, indices = [], []
    for start in range(0, queries.shape[0], step):
        chunk = slice(start, start + step)
        v, i = top_k(scorer(chunk), k, None if exclude is None else exclude[chunk], largest=largest)
        values.append(v)
        indices.append(i)
    if not values:
        empty = torch.empty(0, min(k, n_rows))
        return empty, empty.long()
    return torch.cat(values), torch.cat(indices)
