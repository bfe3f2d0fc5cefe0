"""The search primitives against NumPy brute force: top-k by argpartition equals a full stable sort,
with exclusions, ties, distances and k past the table; a chunked search equals one pass."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from embedlab.errors import InvalidValueError
from embedlab.vectors import similarity as sim

EXACT = 1e-6  # float32 products of unit rows, summed in another order
# Scale invariance, relative to |c|·‖a‖·‖b‖: float64 pair_score rounds a d ≤ 32 sum, float32 score_matrix its own
SCALED_F64 = 1e-12
SCALED_F32 = 1e-5


def _brute(scores: np.ndarray, k: int, exclude, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    """Every row fully sorted, best first, equal scores in row order; excluded rows last."""
    masked = scores.astype(np.float64)
    for b, cols in enumerate(exclude):
        masked[b, cols] = -np.inf if largest else np.inf
    order = np.argsort(-masked if largest else masked, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(masked, order, axis=1), order


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [1, 5, 49, 50, 80])
def test_top_k_equals_a_full_stable_sort(largest, k):
    rng = np.random.default_rng(k)
    scores = rng.integers(0, 12, size=(6, 50)).astype(np.float32)  # few distinct values: many ties
    exclude = [[], [3], [0, 1, 2], [49], [], list(range(10))]
    expected_values, expected_rows = _brute(scores, k, exclude, largest)
    masked = scores.copy()  # top_k masks the excluded rows in place
    values, rows = sim.top_k(masked, k, exclude, largest=largest)
    assert rows.dtype == np.int64 and rows.shape == (6, min(k, 50))
    np.testing.assert_array_equal(values, expected_values)  # the k best scores, best first
    for b in range(6):
        # rows scoring above the k-th are exactly the sort's; rows tied with it may be any of the
        # tied ones (as gensim's argpartition picks), but come in row order
        above = values[b] != expected_values[b, -1]
        np.testing.assert_array_equal(rows[b][above], expected_rows[b][above])
        assert (np.diff(rows[b][~above]) > 0).all() and (masked[b, rows[b]] == values[b]).all()


def test_search_in_chunks_equals_one_pass(monkeypatch):
    rng = np.random.default_rng(0)
    table = sim.unit_rows(rng.standard_normal((300, 16)).astype(np.float32))
    queries = table[:40]
    exclude = [[i] for i in range(40)]

    def run():
        return sim.search(queries, 7, lambda c: sim.products(queries[c], table), n_rows=300, exclude=exclude)

    whole = run()
    monkeypatch.setattr(sim, "CHUNK_FLOATS", 300 * 3)  # 3 queries a chunk, the last one short
    chunked = run()
    np.testing.assert_array_equal(whole[1], chunked[1])
    np.testing.assert_allclose(whole[0], chunked[0], atol=EXACT, rtol=0)
    assert all(i not in whole[1][i] for i in range(40))  # a query never finds itself


@pytest.mark.parametrize("metric", ["cosine", "dot", "euclidean"])
def test_one_query_and_a_batch_score_alike(metric):
    rng = np.random.default_rng(1)
    table, queries = rng.standard_normal((500, 24)).astype(np.float32), rng.standard_normal((5, 24)).astype(np.float32)
    batch = sim.score_matrix(queries, table, metric)  # gemm
    single = np.concatenate([sim.score_matrix(q[None], table, metric) for q in queries])  # gemv, one each
    exact = {
        "cosine": lambda: sim.unit_rows(queries.astype(np.float64)) @ sim.unit_rows(table.astype(np.float64)).T,
        "dot": lambda: queries.astype(np.float64) @ table.T.astype(np.float64),
        "euclidean": lambda: np.linalg.norm(queries[:, None].astype(np.float64) - table[None], axis=-1),
    }[metric]()
    np.testing.assert_allclose(batch, exact, atol=1e-4 if metric == "cosine" else 1e-3, rtol=1e-5)
    np.testing.assert_allclose(single, batch, atol=1e-4, rtol=1e-5)


def test_cos_mul_from_rows_or_from_vectors_is_levy_and_goldbergs_formula():
    rng = np.random.default_rng(3)
    unit = sim.unit_rows(rng.standard_normal((30, 8)).astype(np.float32))
    positive, negative = np.array([[1, 2], [4, 5]]), np.array([[3], [6]])  # (B, p), (B, n)
    scores = sim.cos_mul_scores(unit, positive, negative, 20)
    assert scores.shape == (2, 20)
    np.testing.assert_array_equal(scores, sim.cos_mul_vectors(unit[:20], unit[positive], unit[negative]))
    shifted = (1 + unit[:20].astype(np.float64) @ unit.T.astype(np.float64)) / 2  # (20, 30) in [0, 1]
    for b in range(2):
        expected = shifted[:, positive[b]].prod(axis=1) / (shifted[:, negative[b]].prod(axis=1) + sim.COSMUL_EPSILON)
        np.testing.assert_allclose(scores[b], expected, rtol=1e-5)
    no_negative = sim.cos_mul_vectors(unit[:20], unit[positive], unit[negative[:, :0]])
    np.testing.assert_allclose(no_negative, shifted[:, positive].prod(axis=2).T / (1 + sim.COSMUL_EPSILON), rtol=1e-5)


def _vector(d: int):
    return arrays(np.float64, d, elements=st.floats(-100, 100, allow_subnormal=False))


@given(data=st.data(), d=st.integers(1, 32), c=st.floats(1e-3, 1e3), sign=st.sampled_from([1.0, -1.0]))
def test_scaling_b_scales_the_dot_and_keeps_the_cosine_up_to_its_sign(data, d, c, sign):
    # lesson 000: dot(a, c·b) = c·dot(a, b); cosine(a, c·b) = cosine(a, b) for c > 0, −cosine(a, b) for c < 0
    a, b = data.draw(_vector(d)), data.draw(_vector(d))
    assume(np.linalg.norm(a) > 1e-3 and np.linalg.norm(b) > 1e-3)  # a zero vector has no direction
    c *= sign
    size = abs(c) * np.linalg.norm(a) * np.linalg.norm(b)  # the scale of every dot product here
    dot, cosine = sim.pair_score(a, b, "dot"), sim.pair_score(a, b, "cosine")
    assert abs(sim.pair_score(a, c * b, "dot") - c * dot) <= SCALED_F64 * size
    assert abs(sim.pair_score(a, c * b, "cosine") - sign * cosine) <= SCALED_F64
    # the same through score_matrix, the float32 path every search takes
    for metric, expected, tol in [("dot", c * dot, SCALED_F32 * size), ("cosine", sign * cosine, SCALED_F32)]:
        assert abs(sim.score_matrix(a[None], (c * b)[None], metric)[0, 0] - expected) <= tol


@pytest.mark.parametrize("metric", ["cosine", "dot", "euclidean"])
def test_search_rows_is_the_brute_force_top_k(metric):
    rng = np.random.default_rng(0)
    rows, queries = rng.standard_normal((50, 8)).astype(np.float32), rng.standard_normal((4, 8)).astype(np.float32)
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    values, indices = sim.search_rows(queries, rows, 5, metric, unit=unit)
    for q, got in zip(queries, indices, strict=True):
        scores = [float(sim.pair_score(q, r, metric)) for r in rows]
        best = np.argsort(scores)[:5] if metric == "euclidean" else np.argsort(scores)[::-1][:5]
        assert got.tolist() == best.tolist()
    with pytest.raises(InvalidValueError, match="unit vectors"):
        sim.search_rows(queries, rows, 5, "cosine")
