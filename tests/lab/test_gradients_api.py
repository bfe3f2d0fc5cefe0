"""The sparse-gradient routes through TestClient: torch autograd's gradient, torch's optimizers,
the run's own update_counts.npy, and bad input as 4xx JSON naming the limit."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from embedlab.sims.gradients import start_table, targets

EXACT64 = 1e-12  # float64 sums of a few terms, in torch's order vs ours


def test_batch_is_torch_autograd(client):
    V, D, seed, ids = 12, 8, 4, [2, 2, 5]
    r = client.get("/api/gradients/batch", params={"ids": "2, 2 5", "vocab_size": V, "dim": D, "seed": seed}).json()
    emb = nn.Embedding(V, D, dtype=torch.float64)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(start_table(V, D, seed)))
    (0.5 * ((emb(torch.tensor(ids)) - torch.from_numpy(targets(3, D, seed, 1))) ** 2).sum()).backward()
    np.testing.assert_allclose(r["grad_table"], emb.weight.grad.numpy(), atol=EXACT64, rtol=0)
    assert r["rows"] == [2, 5] and r["counts"] == [2, 1] and r["ids"] == ids
    np.testing.assert_allclose(r["values"][0], np.add(*r["grad_out"][:2]), atol=EXACT64, rtol=0)


def test_steps_show_adams_momentum(client):
    r = client.get("/api/gradients/steps", params={"first": "2 2 5", "second": "5 7", "lr": 0.2}).json()
    assert r["dropped"] == [2] and r["lr"] == 0.2
    assert r["moves"]["adam"]["second"][2] > 0  # no gradient for row 2 in step 2, yet it moves
    assert r["moves"]["sgd"]["second"][2] == 0 and r["moves"]["sparse_adam"]["second"][2] == 0
    for moves in r["moves"].values():
        assert len(moves["first"]) == len(moves["second"]) == 12


def test_tables_lists_the_runs_with_update_counts(client, lab_run, tmp_path):
    from fastapi.testclient import TestClient

    from embedlab.lab import create_app

    assert client.get("/api/gradients/tables").json() == {"tables": [lab_run.name]}  # minilm has none
    with TestClient(create_app(["minilm"], cache=tmp_path)) as minilm_only:
        assert minilm_only.get("/api/gradients/tables").json() == {"tables": []}
        assert minilm_only.get("/api/gradients/updates", params={"table": "minilm"}).status_code == 400


def test_updates_are_the_runs_own(client, lab_run):
    from embedlab.vectors import Vectors

    r = client.get("/api/gradients/updates", params={"table": "wiki-run", "points": 5000}).json()
    vectors, updates = Vectors.load(lab_run), np.load(lab_run / "update_counts.npy")
    assert r["rows"] == len(vectors) == len(r["points"]["keys"]) == len(updates)  # under 5000 rows: all of them
    rows = [vectors.key_to_index[k] for k in r["points"]["keys"]]
    assert r["points"]["updates"] == updates[rows].tolist()
    assert r["points"]["counts"] == vectors.counts[rows].tolist()
    assert sum(b["rows"] for b in r["bands"]) == len(vectors)
    assert r["spearman"] > 0.5  # frequent words are updated more often
    few = client.get("/api/gradients/updates", params={"table": "wiki-run", "points": 10}).json()
    assert len(few["points"]["keys"]) == 10


@pytest.mark.parametrize(
    "path, params, status, message",
    [
        ("/api/gradients/batch", {"ids": "2 x"}, 400, "ids must be integers; got 'x'"),
        ("/api/gradients/batch", {"ids": "2 12"}, 400, "token id 12 is out of range: vocab_size is 12"),
        ("/api/gradients/batch", {"ids": " ".join(["1"] * 33)}, 400, "at most 32 ids are allowed; got 33"),
        ("/api/gradients/batch", {"ids": "1" * 300}, 422, "ids: String should have at most 256 characters"),
        ("/api/gradients/batch", {"vocab_size": 51}, 422, "vocab_size: Input should be less than or equal to 50"),
        ("/api/gradients/batch", {"dim": 17}, 422, "dim: Input should be less than or equal to 16"),
        ("/api/gradients/steps", {"lr": 0}, 422, "lr: Input should be greater than 0"),
        ("/api/gradients/steps", {"lr": 2}, 422, "lr: Input should be less than or equal to 1"),
        ("/api/gradients/steps", {"second": "3 40"}, 400, "token id 40 is out of range: vocab_size is 12"),
        ("/api/gradients/updates", {"table": "minilm"}, 400, "table 'minilm' has no readable update counts"),
        ("/api/gradients/updates", {"table": "nope"}, 404, "unknown table 'nope'; known: minilm, wiki-run"),
        ("/api/gradients/updates", {"table": "wiki-run", "points": 5001}, 422, "points: Input should be less than"),
    ],
)
def test_bad_input_is_a_json_4xx_naming_the_limit(client, path, params, status, message):
    r = client.get(path, params=params)
    assert r.status_code == status, r.text[:300]
    assert message in r.json()["error"] and "Traceback" not in r.text
