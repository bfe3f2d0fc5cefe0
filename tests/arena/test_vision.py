"""The image side of the arena: both patch sizes trained for a few seconds on real Fashion-MNIST,
checked for sense (far above chance, a rising curve, the lesson's token counts, sizing's
parameter counts), and the strategies and settings it refuses."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch

from embedlab.arena.flops import vit_step_flops
from embedlab.arena.strategies import BUDGETS, STRATEGIES
from embedlab.arena.vision import BATCH_SIZE, lr_factor, normaliser, pixel_baseline, run_image
from embedlab.data.fashion import load_fashion
from embedlab.errors import InvalidValueError
from embedlab.models.vit import ViTConfig
from embedlab.sizing import count

# 2e11 training FLOPs on 2,000 images, scored on 500; chance is 0.1. 2-px patches (196 tokens,
# 11.3 GFLOPs a step) buy 17 steps and reach ~0.3, 4-px patches (2.1 GFLOPs a step) 93 steps and
# ~0.6 (a few seconds each on 2 cores). The steps are the budget's, whatever the load; the floors
# leave room for another CPU's round-off without letting an untrained model pass. Three curve points:
# at 197 tokens an image, scoring the curve's slice ten times cost patch-16 a third of its run.
TINY = dataclasses.replace(
    BUDGETS["quick"], name="tiny", image_flops=2e11, image_train=2_000, image_test=500, curve_points=3
)
FLOOR = {"patch-16": 0.18, "patch-32": 0.35}
TOKENS = {"patch-16": 197, "patch-32": 50}


@pytest.fixture(scope="module")
def runs():
    out = {}
    for name in ("patch-16", "patch-32"):
        calls = []
        state = torch.random.get_rng_state()
        run = run_image(STRATEGIES[name], TINY, seed=0, on_progress=lambda t, acc, calls=calls: calls.append((t, acc)))
        assert torch.equal(torch.random.get_rng_state(), state)  # the caller's random state is left alone
        out[name] = (run, calls)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["patch-16", "patch-32"])
def test_accuracy_is_far_above_chance_and_the_curve_rises(runs, name):
    run, _ = runs[name]
    assert run.accuracy > FLOOR[name]
    times = [t for t, _ in run.curve]
    accuracies = [a for _, a in run.curve]
    assert times[0] == 0 and accuracies[0] < 0.2  # untrained: one class for every image
    assert times == sorted(times) and times[-1] == run.train_flops
    assert 3 <= len(run.curve) <= TINY.curve_points + 1
    assert accuracies[-1] > accuracies[0] + 0.1
    assert max(accuracies) > FLOOR[name]


@pytest.mark.parametrize("name", ["patch-16", "patch-32"])
def test_costs_are_the_lessons_counts_and_sizings(runs, name):
    run, _ = runs[name]
    strategy = STRATEGIES[name]
    assert run.tokens_per_input == TOKENS[name] and run.attention_scores_per_input == TOKENS[name] ** 2
    assert run.params_embedding == strategy.arena_params == count(strategy.arena).patch_params
    assert run.params_total > run.params_embedding
    assert (run.n_train, run.n_test, run.batch_size) == (2_000, 500, BATCH_SIZE)


@pytest.mark.parametrize("name", ["patch-16", "patch-32"])
def test_flops_steps_time_and_throughput_agree(runs, name):
    run, calls = runs[name]
    config = ViTConfig(28, STRATEGIES[name].arena.patch_size, 1, 64, TINY.n_layers, TINY.n_heads, 10)
    assert run.clock == "flops" and run.flops_per_step == vit_step_flops(config, BATCH_SIZE)
    assert run.steps == int(TINY.image_flops // run.flops_per_step) >= 2  # the whole steps the budget buys
    assert run.train_flops == run.steps * run.flops_per_step and run.images_seen == run.steps * BATCH_SIZE
    assert run.images_per_second == pytest.approx(run.images_seen / run.train_seconds)
    assert run.latency_ms > 0
    # progress: first before any training, then once per step with the share spent and the latest curve point
    assert calls[0] == (0.0, None) and len(calls) == run.steps + 1
    assert [t for t, _ in calls] == sorted(t for t, _ in calls)
    assert calls[-1] == (1.0, run.curve[-1][1])
    assert json.loads(json.dumps(dataclasses.asdict(run)))["accuracy"] == run.accuracy  # plain JSON


def test_the_wall_clock_is_an_option():
    wall = dataclasses.replace(TINY, clock="wall", image_seconds=0.5)
    run = run_image(STRATEGIES["patch-32"], wall, seed=0)
    assert run.clock == "wall" and run.train_seconds >= 0.5 and run.train_flops == run.steps * run.flops_per_step


def test_four_px_patches_buy_more_steps_than_two_px(runs):
    # 4× the tokens and 16× the attention scores: each 2-px step costs several 4-px steps.
    assert runs["patch-32"][0].steps > 4 * runs["patch-16"][0].steps
    assert runs["patch-32"][0].images_per_second > 2 * runs["patch-16"][0].images_per_second


def test_the_pixel_baseline_gives_the_scale(runs):
    # A logistic regression on 2,000 images scores ~0.8 on these 500 (84% on all 60,000 / 10,000).
    baseline = pixel_baseline(2_000, 500)
    assert 0.7 < baseline < 0.9
    assert all(run.baseline_accuracy == baseline for run, _ in runs.values())


def test_normaliser_uses_the_training_pixels_statistics():
    pixels = torch.tensor(load_fashion("train", limit=1_000)[0])
    out = normaliser(pixels)(pixels)
    assert out.dtype == torch.float32
    assert abs(float(out.mean())) < 1e-5 and abs(float(out.std(correction=0)) - 1) < 1e-5


def test_learning_rate_warms_up_then_decays_to_the_floor():
    factors = [lr_factor(i / 100) for i in range(101)]
    peak = factors.index(max(factors))
    assert factors[0] == 0.0 and max(factors) == 1.0 and peak == 5
    assert factors[peak:] == sorted(factors[peak:], reverse=True)
    assert factors[-1] == pytest.approx(0.1)


def test_text_strategies_and_bad_settings_are_refused():
    with pytest.raises(InvalidValueError, match="'bytes' is a text strategy; images are for patch-16, patch-32"):
        run_image(STRATEGIES["bytes"], TINY, seed=0)
    with pytest.raises(InvalidValueError, match=f"image_train must be between {BATCH_SIZE} and 60000; got 10"):
        run_image(STRATEGIES["patch-32"], dataclasses.replace(TINY, image_train=10), seed=0)
    with pytest.raises(InvalidValueError, match="image_test must be between 1 and 10000; got 20000"):
        run_image(STRATEGIES["patch-32"], dataclasses.replace(TINY, image_test=20_000), seed=0)
    with pytest.raises(InvalidValueError, match="device must be one of cpu, cuda; got 'tpu'"):
        run_image(STRATEGIES["patch-32"], TINY, seed=0, device="tpu")
    with pytest.raises(InvalidValueError, match="seed must be >= 0; got -1"):
        run_image(STRATEGIES["patch-32"], TINY, seed=-1)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_run_on_the_gpu():
    run = run_image(STRATEGIES["patch-16"], TINY, seed=0, device="cuda")
    assert run.device == "cuda" and run.accuracy > FLOOR["patch-16"]
    assert run.images_per_second > 0 and run.latency_ms > 0
