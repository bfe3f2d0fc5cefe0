"""embedlab.scratch against torch autograd and the lessons' worked numbers."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from embedlab.errors import InvalidValueError
from embedlab.scratch import Embedding, RowGradient, one_hot, row_gradient

EXACT64 = 1e-6  # the bar; float64 sums of a few terms agree far below it
FP32 = 1e-5  # float32 sums in a different order than torch's kernel


def _torch_grad(weight: np.ndarray, ids: np.ndarray, grad_out: np.ndarray) -> np.ndarray:
    """The oracle: autograd through torch's own embedding lookup."""
    w = torch.tensor(weight, requires_grad=True)
    F.embedding(torch.tensor(ids), w).backward(torch.tensor(grad_out))
    return w.grad.numpy()


@st.composite
def batches(draw):
    """A table size, a dimension, ids of shape (B, T) with repeats, and an output gradient."""
    V = draw(st.integers(1, 40))
    D = draw(st.integers(1, 12))
    shape = draw(st.tuples(st.integers(0, 4), st.integers(0, 9)))
    ids = draw(st.lists(st.integers(0, V - 1), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1]))
    seed = draw(st.integers(0, 2**32 - 1))
    grad = np.random.default_rng(seed).standard_normal((*shape, D))
    return V, D, np.array(ids, dtype=np.int64).reshape(shape), grad


@settings(max_examples=200, deadline=None)
@given(batches(), st.integers(0, 1000))
def test_forward_and_backward_equal_torch_autograd(batch, seed):
    V, D, ids, grad = batch
    emb = Embedding(V, D, seed=seed, dtype=np.float64)
    expected_rows = F.embedding(torch.tensor(ids), torch.tensor(emb.weight)).numpy()
    np.testing.assert_array_equal(emb.forward(ids), expected_rows)
    np.testing.assert_allclose(emb.forward_one_hot(ids), expected_rows, atol=EXACT64)

    dE = emb.backward(ids, grad)
    np.testing.assert_allclose(dE, _torch_grad(emb.weight, ids, grad), atol=EXACT64)
    # dE = Hᵀ G, the definition, computed the slow way
    H = one_hot(ids, V, np.float64).reshape(-1, V)
    np.testing.assert_allclose(dE, H.T @ grad.reshape(-1, D), atol=EXACT64)
    absent = np.setdiff1d(np.arange(V), ids)
    assert np.all(dE[absent] == 0.0)


@settings(max_examples=50, deadline=None)
@given(batches())
def test_float32_backward_matches_torch_float32(batch):
    V, D, ids, grad = batch
    emb = Embedding(V, D)
    grad = grad.astype(np.float32)
    dE = emb.backward(ids, grad)
    assert dE.dtype == np.float32
    np.testing.assert_allclose(dE, _torch_grad(emb.weight, ids, grad), atol=FP32)


@settings(max_examples=100, deadline=None)
@given(batches(), st.floats(0.001, 1.0))
def test_sgd_step_moves_only_used_rows_like_torch_sgd(batch, lr):
    V, D, ids, grad = batch
    emb = Embedding(V, D, seed=1, dtype=np.float64)
    before = emb.weight.copy()

    table = torch.nn.Embedding(V, D, sparse=True, dtype=torch.float64)
    table.weight.data.copy_(torch.tensor(before))
    table(torch.tensor(ids)).backward(torch.tensor(grad))
    torch.optim.SGD(table.parameters(), lr=lr).step()

    rows = emb.sgd_step(emb.backward(ids, grad), lr)
    np.testing.assert_allclose(emb.weight, table.weight.detach().numpy(), atol=EXACT64)
    untouched = np.setdiff1d(np.arange(V), rows)
    np.testing.assert_array_equal(emb.weight[untouched], before[untouched])
    assert set(rows.tolist()) <= set(ids.reshape(-1).tolist())


def test_lesson_repeated_ids_accumulate():
    # The lesson's exercise: ids [2, 2, 5] -> dE[2] = g1 + g2, dE[5] = g3, all else zero.
    emb = Embedding(7, 3)
    g = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0], [-1.0, 0.5, 4.0]], dtype=np.float32)
    dE = emb.backward(np.array([2, 2, 5]), g)
    np.testing.assert_array_equal(dE[2], g[0] + g[1])
    np.testing.assert_array_equal(dE[5], g[2])
    assert np.count_nonzero(dE[[0, 1, 3, 4, 6]]) == 0


def test_lesson_one_hot_selects_the_row():
    # Lesson 000: |V| = 5, d = 3, item x = 4 (1-indexed) -> row [0.7, 0.0, -0.3].
    emb = Embedding(5, 3)
    emb.weight = np.array([[0.2, -0.1, 0.0], [0.0, 0.3, 0.1], [-0.2, 0.4, 0.5], [0.7, 0.0, -0.3], [0.1, 0.2, 0.2]])
    np.testing.assert_array_equal(one_hot(np.array(3), 5), [0, 0, 0, 1, 0])
    np.testing.assert_array_equal(emb.forward(np.array(3)), [0.7, 0.0, -0.3])
    np.testing.assert_array_equal(emb.forward_one_hot(np.array(3)), [0.7, 0.0, -0.3])


def test_lesson_lookup_table_distances():
    # Lesson 001, chapter 0: rows of "the", "cat", "dog"; cat is ~14x closer to dog than to the.
    emb = Embedding(6, 3)
    emb.weight[:3] = [[-0.12, 0.05, 0.88], [0.72, -0.41, 0.15], [0.68, -0.38, 0.22]]
    the, cat, dog = emb.forward(np.array([0, 1, 2]))
    np.testing.assert_allclose(cat, [0.72, -0.41, 0.15], rtol=1e-6)
    near, far = np.linalg.norm(cat - dog), np.linalg.norm(cat - the)
    assert (round(near, 3), round(far, 3), round(far / near, 1)) == (0.086, 1.204, 14.0)


def test_row_gradient_is_sparse_and_densifies():
    ids = np.array([[4, 1, 4], [0, 4, 1]])
    grad = np.arange(18, dtype=np.float64).reshape(2, 3, 3)
    rg = row_gradient(ids, grad, 6)
    np.testing.assert_array_equal(rg.rows, [0, 1, 4])
    np.testing.assert_array_equal(rg.values[2], grad[0, 0] + grad[0, 2] + grad[1, 1])
    assert rg.to_dense().shape == (6, 3)
    emb = Embedding(6, 3, dtype=np.float64)
    np.testing.assert_array_equal(rg.to_dense(), emb.backward(ids, grad))
    # sgd_step takes the sparse form too and touches exactly its rows
    before = emb.weight.copy()
    np.testing.assert_array_equal(emb.sgd_step(rg, 0.1), [0, 1, 4])
    np.testing.assert_array_equal(emb.weight[[2, 3, 5]], before[[2, 3, 5]])
    assert isinstance(row_gradient(np.zeros((0,), int), np.zeros((0, 3)), 6), RowGradient)


def test_init_is_seeded_normal_with_the_given_std():
    a, b = Embedding(2000, 64, std=0.02, seed=3), Embedding(2000, 64, std=0.02, seed=3)
    np.testing.assert_array_equal(a.weight, b.weight)
    assert abs(a.weight.std() - 0.02) < 0.001 and abs(a.weight.mean()) < 0.001
    assert not np.array_equal(a.weight, Embedding(2000, 64, seed=4).weight)


@pytest.mark.parametrize(
    "ids, match",
    [
        (np.array([0, 6]), r"token id 6 is out of range: vocab_size is 6"),
        (np.array([[1, -1]]), r"token id -1 is out of range: vocab_size is 6"),
        (np.array([1.0, 2.0]), r"integer dtype; got float64"),
    ],
)
def test_bad_ids_name_the_id_and_the_vocabulary(ids, match):
    emb = Embedding(6, 3)
    for call in (emb.forward, emb.forward_one_hot, lambda i: emb.backward(i, np.zeros((*i.shape, 3)))):
        with pytest.raises(InvalidValueError, match=match):
            call(ids)


def test_bad_shapes_and_sizes():
    emb = Embedding(6, 3)
    with pytest.raises(InvalidValueError, match=r"grad_out must have shape \(2, 3\).*got \(2, 4\)"):
        emb.backward(np.array([1, 2]), np.zeros((2, 4)))
    with pytest.raises(InvalidValueError, match=r"grad must have shape \(6, 3\)"):
        emb.sgd_step(np.zeros((5, 3)), 0.1)
    with pytest.raises(InvalidValueError, match="vocab_size must be >= 1; got 0"):
        Embedding(0, 3)
    with pytest.raises(InvalidValueError, match="dim must be an integer"):
        Embedding(4, 2.5)
