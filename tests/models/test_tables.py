"""TinyLM with each token table kind (models/tables.py): one training step and a scored text each, the
tie of each head, and the adaptive model's held-out bits against torch's nn.AdaptiveLogSoftmaxWithLoss."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from embedlab.arena.bits import token_bits
from embedlab.errors import InvalidValueError
from embedlab.layers.head import LMHead, count_parameters
from embedlab.models.lm import LMConfig, TinyLM, adamw, train_step
from embedlab.models.tables import TableConfig, TableHead, table_config
from embedlab.sizing import EmbeddingLayout, count

V, D, T = 100, 16, 8
KINDS = {  # (table, tied)
    "full": (TableConfig(), True),
    "hashed": (TableConfig("hashed", rows=10), False),
    "hash-embedding": (TableConfig("hash-embedding", rows=10, hash_count=2, importance_rows=10), False),
    "hash-embedding tied": (TableConfig("hash-embedding", rows=10, hash_count=2, importance_rows=10), True),
    "quotient-remainder tied": (TableConfig("quotient-remainder", buckets=10), True),
    "adaptive": (TableConfig("adaptive", cutoffs=(20, 60), div_value=4.0), True),
}
SAME = 1e-5  # float32 round-off between two ways of summing the same log-probabilities


def _model(name: str, seed: int = 0) -> TinyLM:
    table, tied = KINDS[name]
    torch.manual_seed(seed)
    return TinyLM(LMConfig(V, D, n_layers=1, n_heads=2, context=T, tied=tied, table=table))


@pytest.mark.parametrize("name", list(KINDS))
def test_each_table_trains_a_step_and_scores_text(name):
    model = _model(name)
    batch = torch.randint(0, V, (4, T + 1), generator=torch.Generator().manual_seed(1))
    scores = model(batch[:, :-1])
    assert scores.shape == (4, T, V)
    loss = train_step(model, adamw(model, 1e-2), batch, 1e-2)
    # near a uniform guess at init; an adaptive head's cluster rows start as torch's (U(±1/√D)), further off
    assert math.isfinite(loss.item()) and abs(loss.item() - math.log(V)) < (1.5 if name == "adaptive" else 0.5)
    shared = [p for p in model.embed.token.parameters()]
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in shared), name  # the rows were trained
    assert model.token_table.shape == (V, D)
    bits = token_bits(model, np.arange(3 * T + 1) % V, T)
    assert bits.shape == (3 * T,) and np.isfinite(bits).all()
    # the training loss is the cross-entropy of the scores, however it is computed (adaptive: per cluster)
    with torch.no_grad():
        logits = model(batch[:, :-1])
        expected = nn.functional.cross_entropy(logits.reshape(-1, V), batch[:, 1:].reshape(-1))
        assert model.loss(batch).item() == pytest.approx(expected.item(), abs=SAME)


def test_each_head_is_tied_or_not_as_asked():
    assert isinstance(_model("hashed").head, LMHead) and not _model("hashed").head.tied  # an untied (V, D) head
    qr = _model("quotient-remainder tied")
    assert isinstance(qr.head, TableHead) and qr.head.table is qr.embed.token  # THE TIE
    with torch.no_grad():
        h = torch.randn(5, D)
        assert torch.allclose(qr.head(h), h @ qr.token_table.T)  # h · e_w over the composed rows
    adaptive = _model("adaptive")
    assert adaptive.head.tables is adaptive.embed.token.tables  # THE TIE: the same bands
    # shared Parameters count once, and the count is sizing's for the same layout
    for name, layout in {
        "hashed": EmbeddingLayout(vocab_size=V, dim=D, tied=False, hashed_rows=10),
        "hash-embedding tied": EmbeddingLayout(vocab_size=V, dim=D, hashed_rows=10, hash_count=2),
        "quotient-remainder tied": EmbeddingLayout(vocab_size=V, dim=D, qr_buckets=10),
        "adaptive": EmbeddingLayout(vocab_size=V, dim=D, adaptive_cutoffs=(20, 60), div_value=4.0),
    }.items():
        model = _model(name)
        report = count(layout)
        assert count_parameters(model.embed.token, model.head) == report.token_params + report.output_params, name
        assert table_config(layout) == KINDS[name][0]


def test_the_default_is_the_full_table():
    full = _model("full")
    assert full.head.weight is full.token_table and isinstance(full.token_table, nn.Parameter)
    assert LMConfig(V, D, 1, 2, T, True).table == TableConfig()


def test_the_adaptive_models_bits_are_torchs():
    model = _model("adaptive")
    train_step(model, adamw(model, 1e-2), torch.randint(0, V, (4, T + 1)), 1e-2)  # away from the init
    softmax = model.head
    oracle = nn.AdaptiveLogSoftmaxWithLoss(D, V, [20, 60], div_value=4.0)
    with torch.no_grad():
        oracle.head.weight.copy_(torch.cat([softmax.tables[0], softmax.clusters]))
        for i, tail in enumerate(oracle.tail):  # copy_ also checks that the shapes agree
            tail[0].weight.copy_(softmax.projections[i])
            tail[1].weight.copy_(softmax.tables[i + 1])
    ids = np.random.default_rng(0).integers(0, V, 4 * T + 1)
    ours = token_bits(model, ids, T)  # (4T,) held-out bits, as the arena scores them
    with torch.no_grad():
        windows = torch.as_tensor(ids, dtype=torch.int64).unfold(0, T + 1, T)  # (4, T + 1)
        h = model.hidden(windows[:, :-1]).reshape(-1, D)
        theirs = -oracle(h, windows[:, 1:].reshape(-1)).output / math.log(2)
    np.testing.assert_allclose(ours, theirs.double().numpy(), atol=SAME)


def test_a_table_needs_its_setting():
    with pytest.raises(InvalidValueError, match="a hashed table needs rows set; got 0"):
        TableConfig("hashed")
    with pytest.raises(InvalidValueError, match="table kind must be one of full, hashed"):
        TableConfig("bloom")
    with pytest.raises(InvalidValueError, match="adaptive softmax: tied must be True"):
        TinyLM(LMConfig(V, D, 1, 2, T, False, table=KINDS["adaptive"][0]))
