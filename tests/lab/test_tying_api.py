"""/api/tying: tied logits are h·E[i] on the table's real rows, untied ones come from the head's own
seeded table, parameter counts are sims.tying's (tests/sims/test_tying.py checks them against
torch's modules); bad input as 4xx JSON."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest
import torch

from embedlab.sims.tying import parameters

WORDS = ["cat", "dog", "horse", "king", "queen", "prince", "paris", "london", "red", "blue", "run", "walk"]
# 384-term float32 dot products against the float64 oracle.
LOGIT_ATOL = 1e-5


def test_tied_logits_are_h_dot_rows(client, minilm_vectors):
    r = client.get("/api/tying", params={"a": "cat", "b": "queen", "t": 0.25}).json()
    assert r["words"] == WORDS
    E = minilm_vectors[WORDS].astype(np.float64)  # (12, 384)
    h = 0.75 * E[WORDS.index("cat")] + 0.25 * E[WORDS.index("queen")]
    np.testing.assert_allclose(r["h"], h, atol=1e-6, rtol=0)
    np.testing.assert_allclose(r["tied"]["logits"], E @ h, atol=LOGIT_ATOL, rtol=0)
    assert r["tied"]["top"] == WORDS[int(np.argmax(E @ h))]


def test_untied_logits_come_from_a_fresh_seeded_table(client, minilm_vectors):
    r = client.get("/api/tying", params={"a": "king", "b": "king", "seed": 3}).json()
    h = minilm_vectors["king"].astype(np.float64)
    own = torch.empty(len(WORDS), 384).normal_(0.0, 0.02, generator=torch.Generator().manual_seed(3))
    np.testing.assert_allclose(r["untied"]["logits"], own.double().numpy() @ h, atol=LOGIT_ATOL, rtol=0)
    assert not np.allclose(r["untied"]["logits"], r["tied"]["logits"], atol=0.1)
    other = client.get("/api/tying", params={"a": "king", "b": "king", "seed": 4}).json()
    assert other["untied"]["logits"] != r["untied"]["logits"] and other["tied"] == r["tied"]


def test_parameter_counts_are_the_modules(client, minilm_vectors):
    p = client.get("/api/tying").json()["params"]
    V, D = len(minilm_vectors), minilm_vectors.vector_size
    assert (p["vocab_size"], p["dim"]) == (30522, 384) == (V, D)
    assert p == asdict(parameters(V, D, len(WORDS))) and p["untied"] == 2 * p["tied"] == 2 * V * D


def test_words_and_table_are_chosen(client, lab_run):
    from embedlab.vectors import Vectors

    r = client.get("/api/tying", params={"table": "wiki-run", "words": "the of,  and the in", "a": "the", "b": "in"})
    body = r.json()
    assert r.status_code == 200 and body["words"] == ["the", "of", "and", "in"]  # duplicates dropped
    run = Vectors.load(lab_run)
    E = run[body["words"]].astype(np.float64)
    np.testing.assert_allclose(body["tied"]["logits"], E @ E[0], atol=LOGIT_ATOL, rtol=0)
    assert body["params"]["dim"] == 32 and body["params"]["tied"] == len(run) * 32


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"words": "cat"}, 400, "words must hold 2..16 distinct keys; got 1"),
        ({"words": " ".join(["cat"] + [f"w{i}" for i in range(16)])}, 400, "2..16 distinct keys; got 17"),
        ({"words": "x" * 401}, 422, "words: String should have at most 400 characters"),
        ({"a": "zebra"}, 400, "a 'zebra' must be one of the words"),
        ({"words": "cat dog qqqzz", "b": "qqqzz"}, 404, "unknown key 'qqqzz'"),
        ({"t": 1.5}, 422, "t: Input should be less than or equal to 1"),
        ({"t": "nan"}, 422, "t: "),
        ({"seed": -1}, 422, "seed: "),
        ({"table": "../../etc/passwd"}, 404, "unknown table"),
    ],
)
def test_bad_input_is_a_json_4xx_naming_the_limit(client, params, status, message):
    r = client.get("/api/tying", params=params)
    assert r.status_code == status, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text
