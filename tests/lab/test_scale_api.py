"""/api/scale: token rows × a factor against sinusoid rows, checked against the closed forms;
/api/scale/sweep: the library's σ sweep; bad input as 4xx JSON naming the limit."""

from __future__ import annotations

import math
from dataclasses import asdict

import numpy as np
import pytest

from embedlab.files import json_safe
from embedlab.sims.init_sweep import MAX_STEPS, SIGMAS, VERDICTS, init_sweep

STAT = 0.02  # the mean of 256 row norms at D = 512 is within ~0.3 % of σ√D; 2 % is a wide margin


def _get(client, **params) -> dict:
    r = client.get("/api/scale", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_unscaled_positions_drown_the_tokens(client):
    r = _get(client, d_model=512, scale="none")
    assert r["factor"] == 1.0 and r["std"] == pytest.approx(512**-0.5)  # the default init, inv_sqrt_d
    assert r["position_norm"] == pytest.approx(16.0, rel=1e-12)  # √(512/2), exactly
    assert r["token_norm"] == pytest.approx(1.0, rel=STAT)
    assert r["ratio"] == pytest.approx(r["token_norm"] / r["position_norm"], rel=1e-12)
    assert r["same_position_cosine"] > 0.9  # tokens at one position are nearly the same vector


def test_sqrt_d_balances_them(client):
    r = _get(client, d_model=1024, scale="sqrt_d")
    assert r["factor"] == pytest.approx(32.0) and r["position_norm"] == pytest.approx(math.sqrt(512), rel=1e-12)
    assert r["ratio"] == pytest.approx(math.sqrt(2), rel=STAT)  # √D against √(D/2)


def test_a_number_scales_linearly_and_the_sums_add_up(client):
    one = _get(client, d_model=64, scale="number", factor=1, init="torch")
    three = _get(client, d_model=64, scale="number", factor=3, init="torch")
    assert one["std"] == 1.0 and three["factor"] == 3.0
    assert three["token_norm"] == pytest.approx(3 * one["token_norm"], rel=1e-12)
    token, position, combined = (np.array(three[k]) for k in ("token", "position", "combined"))
    np.testing.assert_allclose(token, 3 * np.array(one["token"]), rtol=1e-12)
    np.testing.assert_allclose(combined, token[:, None, :] + position[None, :, :], rtol=1e-12)
    # position rows from the formula: PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(...)
    i = np.arange(position.shape[1])
    angle = np.array(three["sample_positions"])[:, None] / 10000.0 ** ((i - i % 2) / 64)
    np.testing.assert_allclose(position, np.where(i % 2 == 0, np.sin(angle), np.cos(angle)), atol=1e-12)


def test_the_factor_is_ignored_unless_asked_for(client):
    assert _get(client, d_model=32, scale="none", factor=5)["factor"] == 1.0


@pytest.mark.parametrize(
    "params, message",
    [
        ({"d_model": 1}, "d_model: Input should be greater than or equal to 2"),
        ({"d_model": 4097}, "d_model: Input should be less than or equal to 4096"),
        ({"factor": -1, "scale": "number"}, "factor: Input should be greater than or equal to 0"),
        ({"factor": 10001, "scale": "number"}, "factor: Input should be less than or equal to 10000"),
        ({"factor": "nan", "scale": "number"}, "factor: "),
        ({"scale": "sqrt"}, "scale: String should match pattern '^(none|sqrt_d|number)$'"),
        ({"init": "xavier"}, "init: String should match pattern '^(inv_sqrt_d|gpt2|torch)$'"),
    ],
)
def test_bad_input_is_json_naming_the_limit(client, params, message):
    r = client.get("/api/scale", params=params)
    assert r.status_code == 422, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text


SWEEP_STEPS = 2  # the API's answer is the library's: two steps per σ say so as well as sixty


def test_the_sweep_is_the_librarys_answer_and_is_kept(client):
    r = client.get("/api/scale/sweep", params={"optimizer": "sgd", "head": "tied", "steps": SWEEP_STEPS})
    assert r.status_code == 200, r.text
    answer = r.json()
    expected = json_safe(asdict(init_sweep(SIGMAS, optimizer="sgd", tied=True, steps=SWEEP_STEPS)))
    assert answer == expected
    limits = client.get("/api/config").json()["limits"]["scale"]
    assert [run["sigma"] for run in answer["runs"]] == list(SIGMAS) == limits["sweep_sigmas"]
    assert all(run["verdict"] in VERDICTS and len(run["losses"]) == SWEEP_STEPS for run in answer["runs"])
    assert answer["runs"][-1]["verdict"] == "explodes"  # σ = 100 through a tied head: logits ~10⁴
    again = client.get("/api/scale/sweep", params={"optimizer": "sgd", "head": "tied", "steps": SWEEP_STEPS})
    assert again.json() == answer


@pytest.mark.parametrize(
    "params, message",
    [
        ({"optimizer": "adam"}, "optimizer: String should match pattern '^(adamw|sgd)$'"),
        ({"head": "shared"}, "head: String should match pattern '^(untied|tied)$'"),
        ({"steps": 0}, "steps: Input should be greater than or equal to 1"),
        ({"steps": MAX_STEPS + 1}, f"steps: Input should be less than or equal to {MAX_STEPS}"),
    ],
)
def test_a_bad_sweep_is_json_naming_the_limit(client, params, message):
    r = client.get("/api/scale/sweep", params=params)
    assert r.status_code == 422, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text
