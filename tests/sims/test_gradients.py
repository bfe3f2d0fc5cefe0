"""Sparse gradients. Which rows a batch changes: the gradient against torch autograd (dense and sparse=True), and
two optimizer steps against SGD and Adam written out independently in NumPy.
Update counts of a run folder: reading update_counts.npy safely, and counts vs updates by band,
with the rank correlation checked against scipy.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr
from torch import nn

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError
from embedlab.files import json_safe
from embedlab.sims.gradients import (
    OPTIMIZERS,
    batch_gradient,
    has_update_counts,
    optimizer_tables,
    parse_ids,
    run_updates,
    served_updates,
    start_table,
    targets,
    two_steps,
    updates_by_frequency,
)
from embedlab.vectors import Vectors
from embedlab.vectors.io.run import UPDATE_COUNTS, read_update_counts

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
    np.testing.assert_allclose(grad.grad_table, dense.numpy(), atol=EXACT64, rtol=0)
    assert grad.loss == pytest.approx(loss.item(), rel=EXACT64)
    assert grad.rows.tolist() == sorted(set(ids))
    assert grad.counts.tolist() == [Counter(ids)[r] for r in sorted(set(ids))]


def test_repeated_ids_sum_their_positions():
    # The lesson's exercise: ids [2, 2, 5] -> dE[2] = g1 + g2, dE[5] = g3, all else zero.
    grad = batch_gradient([2, 2, 5], 12, 8)
    g = grad.grad_out
    np.testing.assert_allclose(grad.values, [g[0] + g[1], g[2]], atol=EXACT64, rtol=0)
    dense = grad.grad_table
    assert not dense[[0, 1, 3, 4, 6, 7, 8, 9, 10, 11]].any()
    np.testing.assert_allclose(grad.norms, np.linalg.norm(grad.values, axis=1), rtol=0)
    assert (grad.vocab_size, grad.dim) == grad.table.shape == (12, 8)
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
    tables = optimizer_tables(first, second, V, D, lr=lr, seed=seed)
    start = start_table(V, D, seed)
    goals = [targets(len(first), D, seed, 1), targets(len(second), D, seed, 2)]
    oracles = {
        "sgd": _sgd_oracle(start, [first, second], goals, lr),
        "adam": _adam_oracle(start, [first, second], goals, lr, lazy=False),
        "sparse_adam": _adam_oracle(start, [first, second], goals, lr, lazy=True),
    }
    for name, expected in oracles.items():
        before, after1, after2 = tables[name]
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
    d = json_safe(steps)
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


# ----- update counts of a run folder

RHO = 1e-12  # float64 ranks and one Pearson r, computed two ways

BANDS = ((100, "often"), (10, "sometimes"), (0, "seldom"))
COUNTS = np.array([500, 120, 40, 12, 9, 3, 1, 0])
UPDATES = np.array([900, 600, 300, 110, 70, 25, 0, 0])
KEYS = [f"w{i}" for i in range(len(COUNTS))]


def test_bands_and_correlation_by_hand():
    r = updates_by_frequency(COUNTS, UPDATES, KEYS, bands=BANDS)
    often, sometimes, seldom = r.bands
    assert (often.rows, often.mean_count, often.mean_updates) == (2, 310.0, 750.0)
    assert often.updates_per_occurrence == pytest.approx(1500 / 620)
    assert (sometimes.rows, sometimes.mean_count, sometimes.mean_updates) == (2, 26.0, 205.0)
    assert (seldom.rows, seldom.mean_updates) == (4, 95 / 4)
    assert seldom.updates_per_occurrence == pytest.approx(95 / 13)
    assert r.spearman == pytest.approx(spearmanr(COUNTS, UPDATES).statistic, abs=RHO)
    assert (r.rows, r.never_updated) == (8, 2)
    assert r.points.keys == tuple(KEYS)  # 8 rows, fewer than the default points: all, by rank


def test_points_spread_over_frequency_ranks():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 10_000, 1000)
    r = updates_by_frequency(counts, counts * 2, [str(i) for i in range(1000)], points=11)
    sampled = list(r.points.counts)
    ranked = np.sort(counts)[::-1]
    assert len(sampled) == 11 and sampled == ranked[np.linspace(0, 999, 11).round().astype(int)].tolist()
    assert all(u == 2 * c for c, u in zip(r.points.counts, r.points.updates, strict=True))
    assert [counts[int(key)] for key in r.points.keys] == sampled  # each key is its row's own count


def test_empty_band_is_none_in_json():
    d = json_safe(updates_by_frequency(np.array([1, 2]), np.array([1, 1]), ["a", "b"], bands=BANDS))
    assert d["bands"][0] == {"name": "often", "floor": 100, "rows": 0, "mean_count": None, "mean_updates": None,
                             "updates_per_occurrence": None}  # fmt: skip


def test_update_report_argument_errors():
    with pytest.raises(InvalidValueError, match="updates must be 8 integers, one per key; got float64 \\(8,\\)"):
        updates_by_frequency(COUNTS, UPDATES.astype(float), KEYS)
    with pytest.raises(InvalidValueError, match="band floors must decrease strictly and end at 0"):
        updates_by_frequency(COUNTS, UPDATES, KEYS, bands=((5, "a"), (1, "b")))
    with pytest.raises(InvalidValueError, match="points must be >= 1; got 0"):
        updates_by_frequency(COUNTS, UPDATES, KEYS, points=0)


def _run(folder, updates, counts=COUNTS):
    folder.mkdir(exist_ok=True)
    Vectors(KEYS, np.zeros((len(KEYS), 2), np.float32), counts).save(folder / "vectors.safetensors")
    np.save(folder / UPDATE_COUNTS, updates)
    return folder


def test_read_and_run_updates(tmp_path):
    run = _run(tmp_path / "run", UPDATES)
    np.testing.assert_array_equal(read_update_counts(run), UPDATES)
    np.testing.assert_array_equal(read_update_counts(run / "vectors.safetensors"), UPDATES)  # the table file
    table = Vectors.load(run)
    r = run_updates(table, run, points=4)
    assert r.spearman == pytest.approx(spearmanr(COUNTS, UPDATES).statistic, abs=RHO)
    assert r.points.keys == ("w0", "w2", "w5", "w7")  # ranks 0, 7/3, 14/3, 7 rounded
    assert r.table == table.name and has_update_counts(run) and not has_update_counts("minilm")


def test_what_is_missing_or_damaged_is_named(tmp_path):
    with pytest.raises(MissingDataError, match="minilm has no update_counts.npy: only folders written by `embedlab"):
        read_update_counts("minilm")
    run = _run(tmp_path / "run", UPDATES[:5])
    with pytest.raises(FileFormatError, match="5 update counts for a table of 8 rows"):
        run_updates(Vectors.load(run), run)
    np.save(run / UPDATE_COUNTS, np.array([{"a": 1}], dtype=object))  # a pickle inside .npy: never loaded
    with pytest.raises(FileFormatError, match="found an array of Python objects \\(never unpickled\\)"):
        read_update_counts(run)
    np.save(run / UPDATE_COUNTS, np.ones((2, 4), np.int64))
    with pytest.raises(
        FileFormatError, match=r"expected update counts: .* \(V,\) of integers >= 0; found int64 \(2, 4\)"
    ):
        read_update_counts(run)
    (run / UPDATE_COUNTS).write_bytes(b"not numpy")
    with pytest.raises(FileFormatError, match="expected update counts: a NumPy .npy array .*; found text"):
        read_update_counts(run)
    plain = _run(tmp_path / "plain", UPDATES, counts=None)
    with pytest.raises(MissingDataError, match="has no corpus counts"):
        run_updates(Vectors.load(plain), plain)
    assert not has_update_counts(run)  # damaged: the lab does not offer it


def test_a_served_table_without_counts_is_named_not_its_path(tmp_path):
    run = _run(tmp_path / "run", UPDATES)
    table = Vectors.load(run)
    table.name = "wiki"  # the name the lab serves it under
    assert served_updates(table, run).points == run_updates(table, run).points
    (run / UPDATE_COUNTS).unlink()
    with pytest.raises(MissingDataError, match="^table 'wiki' has no readable update counts") as caught:
        served_updates(table, run)
    assert str(tmp_path) not in str(caught.value)
