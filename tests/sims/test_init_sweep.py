"""The σ sweep of TinyLM's token table: norms at init against the χ distribution and a hand-computed
gradient, the verdict rules on hand-made loss curves, seeds, and bad arguments."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError
from embedlab.models.lm import LMConfig, window_batch
from embedlab.sims.init_sweep import (
    FINAL_WINDOW,
    MARGIN,
    MAX_SIGMAS,
    VOCAB,
    activation_norms,
    build_model,
    classify,
    corpus_ids,
    gradient_norms,
    init_sweep,
    unigram_entropy,
)

SMALL = dict(steps=4, batch_size=4, context=16, dim=16, corpus_bytes=20_000)  # a few hundred ms per σ
FP32 = 1e-4  # float32 sums of a few thousand terms, compared with float64 or another order of summation


def chi_mean(dim: int, std: float) -> float:
    """E‖x‖ for x ~ N(0, std² I_D): std·√2·Γ((D+1)/2)/Γ(D/2), slightly below std·√D."""
    return std * math.sqrt(2) * math.exp(math.lgamma((dim + 1) / 2) - math.lgamma(dim / 2))


def _batch(context: int = 32, batch_size: int = 8, seed: int = 0) -> torch.Tensor:
    ids = corpus_ids("enwiki-sample", 20_000)
    starts = np.random.default_rng(seed).integers(0, len(ids) - context - 1, batch_size)
    return window_batch(ids, starts, context)  # (B, T + 1)


@pytest.mark.parametrize("sigma", [1e-3, 1.0, 100.0])
def test_token_rows_at_init_are_sigma_sqrt_d_long(sigma):
    dim, batch = 64, _batch()
    model = build_model(sigma, LMConfig(VOCAB, dim, 1, 4, 32, tied=False), seed=3)
    with torch.no_grad():
        norms = activation_norms(model, batch[:, :-1])
    # each row ‖σz‖ follows σ·χ_D: mean chi_mean, std ≈ σ/√2. The batch's B·T rows repeat bytes, so
    # their mean is a weighted mean of the distinct rows (weights w = each byte's share of the batch):
    # its std is σ/√2·√(Σw²), and 4 of those is the tolerance
    w = np.bincount(batch[:, :-1].flatten().numpy()) / batch[:, :-1].numel()
    tolerance = 4 * sigma / math.sqrt(2) * math.sqrt((w**2).sum())
    assert norms["token rows"] == pytest.approx(chi_mean(dim, sigma), abs=tolerance)
    # and exactly the rows of σ·z, z from the seed's generator
    z = torch.randn(VOCAB, dim, generator=torch.Generator().manual_seed(3), dtype=torch.float32)
    exact = (sigma * z)[batch[:, :-1]].double().norm(dim=-1).mean().item()
    assert norms["token rows"] == pytest.approx(exact, rel=FP32)


def test_the_stages_measured_are_the_models_own():
    model = build_model(0.5, LMConfig(VOCAB, 32, 2, 4, 32, tied=True), seed=0)
    ids = _batch()[:, :-1]
    with torch.no_grad():
        norms = activation_norms(model, ids)
        logits, hidden = model(ids), model.hidden(ids)
    assert list(norms) == ["token rows", "token + position", "block 1", "block 2", "final norm", "logits"]
    assert norms["logits"] == pytest.approx(logits.norm(dim=-1).mean().item(), rel=FP32)
    assert norms["final norm"] == pytest.approx(hidden.norm(dim=-1).mean().item(), rel=FP32)
    assert norms["final norm"] == pytest.approx(math.sqrt(32), rel=1e-3)  # LayerNorm at init: mean 0, variance 1


def test_the_heads_gradient_is_the_hand_computed_one():
    batch = _batch()
    model = build_model(1.0, LMConfig(VOCAB, 32, 2, 4, 32, tied=False), seed=1)
    norms = gradient_norms(model, batch)
    # ∂/∂W of mean cross-entropy with logits = h Wᵀ: (softmax − one-hot)ᵀ h / N, in float64 NumPy
    with torch.no_grad():
        h = model.hidden(batch[:, :-1]).reshape(-1, 32).double().numpy()  # (N, D)
    W = model.head.weight.detach().double().numpy()  # (V, D)
    logits = h @ W.T
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(p)), batch[:, 1:].flatten().numpy()] -= 1
    assert norms["head"] == pytest.approx(np.linalg.norm(p.T @ h / len(p)), rel=FP32)
    # and the token table's is what autograd gives for it alone
    (grad,) = torch.autograd.grad(model.loss(batch), model.embed.token.weight)
    assert norms["token table"] == pytest.approx(grad.norm().item(), rel=FP32)
    assert all(math.isfinite(v) and v > 0 for v in norms.values())


def test_a_tied_head_has_no_gradient_entry_of_its_own():
    norms = gradient_norms(build_model(1.0, LMConfig(VOCAB, 16, 1, 4, 32, tied=True), seed=0), _batch())
    assert list(norms) == ["token table", "positions", "block 1", "final norm"]


def test_past_sigma_1_layer_norm_makes_the_tables_gradient_shrink_as_one_over_sigma():
    config, batch = LMConfig(VOCAB, 32, 2, 4, 32, tied=False), _batch()
    ten, hundred = (gradient_norms(build_model(s, config, seed=0), batch)["token table"] for s in (10.0, 100.0))
    assert ten / hundred == pytest.approx(10, rel=0.05)  # LN(x) is scale-free: ∂LN/∂x ∝ 1/‖x‖


def test_through_a_tied_head_small_sigma_starves_the_blocks_of_gradient():
    config, batch = LMConfig(VOCAB, 32, 2, 4, 32, tied=True), _batch()
    small, smaller = (gradient_norms(build_model(s, config, seed=0), batch) for s in (1e-3, 1e-4))
    # all the loss sends back to h passes through the table (∂logits/∂h = σz): ∝ σ once the rows are
    # small beside the positions (std 0.02), which then decide h
    for layer in ("positions", "block 1", "block 2", "final norm"):
        assert small[layer] / smaller[layer] == pytest.approx(10, rel=0.05), layer
    assert small["token table"] == pytest.approx(smaller["token table"], rel=0.1)  # the table's own does not


@pytest.mark.parametrize(
    "curve, verdict",
    [
        ([5.5] + [3.2 - MARGIN - 1e-9] * FINAL_WINDOW, "learns"),
        ([5.5] + [3.2 - MARGIN] * FINAL_WINDOW, "stalls"),  # at H₁ − MARGIN exactly: no better than frequencies
        ([5.5] + [5.5 + MARGIN] * FINAL_WINDOW, "stalls"),  # at ln V + MARGIN: not yet worse than uniform
        ([5.5] + [5.5 + MARGIN + 1e-9] * FINAL_WINDOW, "explodes"),
        ([6000.0, 3000.0, 700.0], "explodes"),  # falling, but far above a uniform guess
        ([5.5, math.inf], "explodes"),
        ([5.5, math.nan, 2.0], "explodes"),  # a non-finite loss anywhere
        ([9.0] * 5 + [2.0] * FINAL_WINDOW, "learns"),  # only the last FINAL_WINDOW steps count
    ],
)
def test_verdicts_on_hand_made_curves(curve, verdict):
    final, got = classify(curve, uniform_loss=5.5, unigram_loss=3.2)
    assert got == verdict
    if all(map(math.isfinite, curve)):
        assert final == pytest.approx(np.mean(curve[-FINAL_WINDOW:]))


def test_unigram_entropy_is_the_frequencies_entropy():
    ids = np.array([0, 0, 0, 1])
    assert unigram_entropy(ids, 4) == pytest.approx(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)))


def test_a_tiny_tied_table_starts_at_ln_v_and_a_huge_one_explodes():
    sweep = init_sweep((1e-4, 100.0), optimizer="sgd", tied=True, **SMALL)
    tiny, huge = sweep.runs
    assert sweep.uniform_loss == math.log(256) and 0 < sweep.unigram_loss < sweep.uniform_loss
    assert tiny.losses[0] == pytest.approx(math.log(256), abs=1e-3)  # logits h·σz ≈ 0: a uniform guess
    assert huge.losses[0] > 100 * math.log(256) and huge.verdict == "explodes"
    # logits h·σz grow with σ (h, after LayerNorm, has length √D at any σ but points elsewhere): 6 decades
    assert 1e5 < huge.activation_norms[-1] / tiny.activation_norms[-1] < 1e7
    assert sweep.gradient_layers == ["token table", "positions", "block 1", "block 2", "final norm"]
    assert all(len(r.losses) == SMALL["steps"] for r in sweep.runs)


def test_a_seed_gives_the_same_numbers_and_another_seed_others():
    a, b = (init_sweep((1e-2, 3.0), **SMALL) for _ in range(2))
    assert a == b
    c = init_sweep((1e-2, 3.0), seed=1, **SMALL)
    assert c.runs[0].losses != a.runs[0].losses


def test_sigmas_are_sorted_and_the_result_says_its_settings():
    sweep = init_sweep((10.0, 0.1), **SMALL)
    assert [r.sigma for r in sweep.runs] == [0.1, 10.0]
    assert (sweep.optimizer, sweep.lr, sweep.tied, sweep.steps, sweep.dim) == ("adamw", 3e-3, False, 4, 16)
    assert sweep.corpus_bytes >= 20_000 and sweep.margin == MARGIN and sweep.final_window == FINAL_WINDOW


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"sigmas": (0.0,)}, "sigma must be"),
        ({"sigmas": (-1.0,)}, "sigma must be"),
        ({"sigmas": (1e5,)}, "sigma must be"),
        ({"sigmas": ()}, f"sigmas must hold 1 to {MAX_SIGMAS} values; got 0"),
        ({"sigmas": [0.1] * (MAX_SIGMAS + 1)}, f"sigmas must hold 1 to {MAX_SIGMAS} values; got {MAX_SIGMAS + 1}"),
        ({"optimizer": "adam"}, "optimizer must be one of adamw, sgd; got 'adam'"),
        ({"steps": 0}, "steps must be"),
        ({"corpus_bytes": 10}, "corpus_bytes must give more than context + 1"),
    ],
)
def test_bad_arguments_name_the_range(kwargs, message):
    with pytest.raises(InvalidValueError, match=re.escape(message)) as error:
        init_sweep(**{"sigmas": (1.0,), **SMALL, **kwargs})
    assert "got" in str(error.value)


def test_sigma_range_is_named():
    with pytest.raises(InvalidValueError) as error:
        init_sweep((0.0,), **SMALL)
    assert "1e-06" in str(error.value) and "10000" in str(error.value)


def test_cross_entropy_of_zero_logits_is_ln_v():  # the uniform loss the verdicts compare with
    assert F.cross_entropy(torch.zeros(1, VOCAB), torch.tensor([7])).item() == pytest.approx(math.log(VOCAB))
