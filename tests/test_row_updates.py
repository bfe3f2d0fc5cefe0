"""Which rows a batch changes: the gradient against torch autograd (dense and sparse=True), and
two optimizer steps against SGD and Adam written out independently in NumPy."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import torch
from torch import nn

from embedlab.errors import InvalidValueError
from embedlab.row_updates import OPTIMIZERS, batch_gradient, parse_ids, start_table, targets, two_steps

EXACT64 = 1e-12  # float64 sums of a few terms, in torch's order vs ours
ADAM64 = 1e-12  # Adam's update in float64: the same few operations, in another order
BETA1, BETA2, EPS = 0.9, 0.999, 1e-8  # torch.optim.Adam's defaults, written out for the oracle


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("ids", [[2, 2, 5], [0, 11, 3, 3, 3, 7, 0], [4]])
def test_gradient_is_torch_autograd(ids, sparse):
    V, D, seed = 12, 8, 3
    grad = batch_gradient(ids, V, D, seed)
    emb = nn.Embedding(V, D, sparse=sparse, dtype=torch.float64)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(start_table(V, D, seed)))
    y = torch.from_numpy(targets(len(ids), D, seed, step=1))
    loss = 0.5 * ((emb(torch.tensor(ids)) - y) ** 2).sum()
    loss.backward()
    dense = emb.weight.grad.coalesce() if sparse else emb.weight.grad
    if sparse:  # torch's sparse gradient holds exactly the used rows
        assert dense.indices()[0].tolist() == sorted(set(ids))
        dense = dense.to_dense()
    np.testing.assert_allclose(grad.dense(), dense.numpy(), atol=EXACT64, rtol=0)
    assert grad.loss == pytest.approx(loss.item(), rel=EXACT64)
    assert grad.rows.tolist() == sorted(set(ids))
    assert grad.counts.tolist() == [Counter(ids)[r] for r in sorted(set(ids))]


def test_repeated_ids_sum_their_positions():
    # The lesson's exercise: ids [2, 2, 5] -> dE[2] = g1 + g2, dE[5] = g3, all else zero.
    grad = batch_gradient([2, 2, 5], 12, 8)
    g = grad.grad_out
    np.testing.assert_allclose(grad.values, [g[0] + g[1], g[2]], atol=EXACT64, rtol=0)
    dense = grad.dense()
    assert not dense[[0, 1, 3, 4, 6, 7, 8, 9, 10, 11]].any()
    np.testing.assert_allclose(g, grad.table[[2, 2, 5]] - grad.targets, atol=EXACT64, rtol=0)


def _adam_oracle(start, batches, goals, lr, lazy):
    """Two Adam steps written from the paper's update rule (Kingma & Ba, Algorithm 1); `lazy`
    updates m, v and the row only where the batch has gradient (SparseAdam)."""
    table, m, v = start.copy(), np.zeros_like(start), np.zeros_like(start)
    out = []
    for step, (ids, y) in enumerate(zip(batches, goals, strict=True), 1):
        g = np.zeros_like(table)
        np.add.at(g, ids, table[ids] - y)
        rows = np.unique(ids) if lazy else np.arange(len(table))
        m[rows] = BETA1 * m[rows] + (1 - BETA1) * g[rows]
        v[rows] = BETA2 * v[rows] + (1 - BETA2) * g[rows] ** 2
        m_hat, v_hat = m[rows] / (1 - BETA1**step), v[rows] / (1 - BETA2**step)
        # subtle: SparseAdam uses the paper's "efficient" form, ε added to √v before the bias
        # correction, which is ε / √(1 − β2^t) next to √v̂; dense Adam adds ε to √v̂ itself.
        eps = EPS / np.sqrt(1 - BETA2**step) if lazy else EPS
        table[rows] -= lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(table.copy())
    return out


def _sgd_oracle(start, batches, goals, lr):
    table, out = start.copy(), []
    for ids, y in zip(batches, goals, strict=True):
        g = np.zeros_like(table)
        np.add.at(g, ids, table[ids] - y)
        table -= lr * g
        out.append(table.copy())
    return out


def test_two_steps_are_sgd_and_adam():
    V, D, lr, seed = 12, 8, 0.05, 1
    first, second = np.array([2, 2, 5, 7]), np.array([5, 9])
    steps = two_steps(first, second, V, D, lr=lr, seed=seed)
    start = start_table(V, D, seed)
    goals = [targets(len(first), D, seed, 1), targets(len(second), D, seed, 2)]
    oracles = {
        "sgd": _sgd_oracle(start, [first, second], goals, lr),
        "adam": _adam_oracle(start, [first, second], goals, lr, lazy=False),
        "sparse_adam": _adam_oracle(start, [first, second], goals, lr, lazy=True),
    }
    for name, expected in oracles.items():
        before, after1, after2 = steps.tables[name]
        np.testing.assert_array_equal(before, start)
        np.testing.assert_allclose(after1, expected[0], atol=ADAM64, rtol=0, err_msg=name)
        np.testing.assert_allclose(after2, expected[1], atol=ADAM64, rtol=0, err_msg=name)
        np.testing.assert_allclose(steps.moves[name].second, np.linalg.norm(after2 - after1, axis=1), rtol=0)


def test_only_adam_moves_rows_without_gradient():
    steps = two_steps([2, 2, 5, 7], [5, 9], vocab_size=12, dim=8)
    assert steps.dropped.tolist() == [2, 7]
    untouched = [0, 1, 3, 4, 6, 8, 10, 11]
    for name in OPTIMIZERS:
        m = steps.moves[name]
        assert (m.first[[2, 5, 7]] > 0).all() and (m.second[[5, 9]] > 0).all(), name
        assert not m.first[untouched].any() and not m.second[untouched].any(), name  # Adam: m = v = 0 there
    assert not steps.moves["sgd"].second[[2, 7]].any()
    assert not steps.moves["sparse_adam"].second[[2, 7]].any()
    assert (steps.moves["adam"].second[[2, 7]] > 0).all()
    d = steps.to_dict()
    assert d["dropped"] == [2, 7] and d["moves"]["adam"]["second"] == steps.moves["adam"].second.tolist()


def test_parse_ids():
    assert parse_ids(" 2, 2 5 ", 12, 8).tolist() == [2, 2, 5]
    with pytest.raises(InvalidValueError, match="ids must be integers; got 'x'"):
        parse_ids("2 x", 12, 8)
    with pytest.raises(InvalidValueError, match="ids must be integers; got '2.5'"):
        parse_ids("2.5", 12, 8)
    with pytest.raises(InvalidValueError, match="token id 12 is out of range: vocab_size is 12"):
        parse_ids("1 12", 12, 8)
    with pytest.raises(InvalidValueError, match="token id -1 is out of range"):
        parse_ids("-1", 12, 8)
    with pytest.raises(InvalidValueError, match="at most 3 ids are allowed; got 4"):
        parse_ids("1 2 3 4", 12, 3)
    with pytest.raises(InvalidValueError, match="at least one integer"):
        parse_ids(" , ", 12, 3)


def test_argument_errors():
    with pytest.raises(InvalidValueError, match="lr must be > 0; got 0.0"):
        two_steps([1], [2], 4, 2, lr=0)
    with pytest.raises(InvalidValueError, match="optimizers must be among sgd, adam, sparse_adam; got \\['rmsprop'\\]"):
        two_steps([1], [2], 4, 2, optimizers=["rmsprop"])
    with pytest.raises(InvalidValueError, match="second must be a non-empty 1-D list of ids"):
        two_steps([1], [], 4, 2)
    with pytest.raises(InvalidValueError, match="vocab_size must be >= 1; got 0"):
        batch_gradient([0], 0, 2)
