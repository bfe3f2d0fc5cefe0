"""The image side of the arena: both patch sizes trained for a few seconds on real Fashion-MNIST,
checked for sense (far above chance, a rising curve, the lesson's token counts, sizing's
parameter counts), and the strategies and settings it refuses."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch

from embedlab.arena.strategies import BUDGETS, STRATEGIES
from embedlab.arena.vision import BATCH_SIZE, CURVE_POINTS, lr_factor, normaliser, pixel_baseline, run_image
from embedlab.data.fashion import load_fashion
from embedlab.errors import InvalidValueError
from embedlab.sizing import count

# Four seconds of training on 2,000 images, scored on 500; chance is 0.1. On 2 idle cores 2-px
# patches (196 tokens) take ~16 steps and reach ~0.3, 4-px patches ~100 steps and ~0.6; with the
# cores shared by a second run, ~0.25 and ~0.5 in 3 s. The floors leave room for a busy machine
# (fewer steps in the same seconds) without letting an untrained model pass.
TINY = dataclasses.replace(BUDGETS["quick"], name="tiny", image_seconds=4.0, image_train=2_000, image_test=500)
FLOOR = {"patch-16": 0.18, "patch-32": 0.35}
TOKENS = {"patch-16": 197, "patch-32": 50}
# The clock is read after each step: training overruns the budget by at most one step, which is
# well under a second at these sizes.
OVERRUN_S = 2.0


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


@pytest.mark.parametrize("name", ["patch-16", "patch-32"])
def test_accuracy_is_far_above_chance_and_the_curve_rises(runs, name):
    run, _ = runs[name]
    assert run.accuracy > FLOOR[name]
    times = [t for t, _ in run.curve]
    accuracies = [a for _, a in run.curve]
    assert times[0] == 0.0 and accuracies[0] < 0.2  # untrained: one class for every image
    assert times == sorted(times) and times[-1] == pytest.approx(run.train_seconds, abs=1e-3)
    assert 3 <= len(run.curve) <= CURVE_POINTS + 1
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
def test_time_steps_and_throughput_agree(runs, name):
    run, calls = runs[name]
    assert TINY.image_seconds <= run.train_seconds < TINY.image_seconds + OVERRUN_S
    assert run.steps >= 2 and run.images_seen == run.steps * BATCH_SIZE
    assert run.images_per_second == pytest.approx(run.images_seen / run.train_seconds)
    assert run.latency_ms > 0
    # progress: first before any training, then once per step with the latest curve point
    assert calls[0] == (0.0, None) and len(calls) == run.steps + 1
    assert [t for t, _ in calls] == sorted(t for t, _ in calls)
    assert calls[-1] == (run.train_seconds, run.curve[-1][1])
    assert json.loads(json.dumps(dataclasses.asdict(run)))["accuracy"] == run.accuracy  # plain JSON


def test_four_px_patches_train_faster_than_two_px(runs):
    # 4× the tokens and 16× the attention scores: each 2-px step costs several 4-px steps.
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
