"""The ViT-against-CNN data-scale runs (arena.data_scale): real short trainings on Fashion-MNIST,
seeded and scored as the docs' table is; the table's arithmetic against figures worked by hand."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from embedlab.arena.data_scale import DataRun, data_run, data_table, lead_shrinks, model_config
from embedlab.arena.vision import BATCH_SIZE, pixel_baseline, shuffled_batches
from embedlab.errors import InvalidValueError


@pytest.mark.slow
@pytest.mark.parametrize("model", ["vit", "cnn"])
def test_a_short_run_learns_repeats_and_reports_its_sizes(model):
    first = data_run(model, n_train=256, seed=3, steps=40, n_test=300)
    again = data_run(model, n_train=256, seed=3, steps=40, n_test=300)
    other = data_run(model, n_train=256, seed=4, steps=40, n_test=300)
    assert first.accuracy == again.accuracy and first.train_accuracy == again.train_accuracy  # seeded
    assert (first.accuracy, first.train_accuracy) != (other.accuracy, other.train_accuracy)
    assert first.accuracy > 0.3  # 10 classes: chance is 0.1, and 40 steps already learn
    assert first.epochs == 40 * BATCH_SIZE / 256 == 10.0
    assert (first.params, first.forward_flops) == ((105_098, 11_212_032) if model == "vit" else (93_962, 14_904_832))
    assert (first.model, first.n_train, first.seed, first.steps, first.n_test) == (model, 256, 3, 40, 300)


def test_the_batches_cover_each_epoch_once_and_drop_the_short_last_batch():
    batches = shuffled_batches(150, torch.Generator().manual_seed(0))  # 2 whole batches of 64, 22 dropped
    epoch_one, epoch_two = [next(batches) for _ in range(2)], [next(batches) for _ in range(2)]
    for epoch in (epoch_one, epoch_two):
        seen = torch.cat(epoch)
        assert seen.shape == (128,) and len(set(seen.tolist())) == 128 and int(seen.max()) < 150
    assert not torch.equal(torch.cat(epoch_one), torch.cat(epoch_two))  # a new permutation each epoch


def _run(model: str, n: int, seed: int, accuracy: float) -> DataRun:
    return DataRun(model, n, seed, steps=10, accuracy=accuracy, train_accuracy=1.0, epochs=1.0, params=1,
                   forward_flops=1, seconds=1.0, n_test=500)  # fmt: skip


def test_the_table_worked_by_hand():
    accuracies = {  # (model, n) -> accuracy at seeds 0, 1, 2
        ("vit", 1_000): (0.70, 0.72, 0.71), ("cnn", 1_000): (0.78, 0.79, 0.80),
        ("vit", 4_000): (0.80, 0.81, 0.79), ("cnn", 4_000): (0.83, 0.84, 0.85),
    }  # fmt: skip
    runs = [_run(m, n, s, a[s]) for (m, n), a in accuracies.items() for s in range(3)]
    small, large = data_table(runs)
    assert (small["n_train"], large["n_train"], small["seeds"]) == (1_000, 4_000, [0, 1, 2])
    assert small["vit"]["mean"] == pytest.approx(0.71) and small["cnn"]["mean"] == pytest.approx(0.79)
    # leads 0.08, 0.07, 0.09: mean 0.08, s 0.01, half-width 4.3027 · 0.01 / √3
    assert small["cnn_lead"]["values"] == pytest.approx([0.08, 0.07, 0.09])
    half = 4.3027 * 0.01 / math.sqrt(3)
    assert small["cnn_lead"]["interval"] == pytest.approx((0.08 - half, 0.08 + half))
    assert small["verdict"] == "holds"
    # leads 0.03, 0.03, 0.06: mean 0.04, s 0.0173, half-width 0.043 > 0.04, so not beyond the seeds' noise
    assert large["verdict"] == "within noise"
    assert small["baseline"] == pixel_baseline(1_000, 500)
    assert lead_shrinks([small, large]) == "holds"  # 0.05, 0.04, 0.03 smaller at 4,000
    flipped = [_run(m, n, s, accuracies[m, 1_000 if n == 4_000 else 4_000][s]) for m, n, s in
               itertools.product(("vit", "cnn"), (1_000, 4_000), range(3))]  # fmt: skip
    assert lead_shrinks(data_table(flipped)) == "contradicted"


def test_mismatched_runs_are_refused():
    runs = [_run("vit", 1_000, 0, 0.7), _run("cnn", 1_000, 1, 0.8)]
    with pytest.raises(InvalidValueError, match="at 1,000 images the models ran different seeds"):
        data_table(runs)
    with pytest.raises(InvalidValueError, match="no runs"):
        data_table([])
    with pytest.raises(InvalidValueError, match="need at least two training-set sizes; got 1"):
        lead_shrinks(data_table([_run("vit", 1_000, 0, 0.7), _run("cnn", 1_000, 0, 0.8)]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"model": "mlp"}, "model"),
        ({"n_train": 63}, "n_train"),
        ({"n_train": 60_001}, "n_train"),
        ({"steps": 0}, "steps"),
        ({"n_test": 10_001}, "n_test"),
    ],
)
def test_bad_settings_are_refused_before_any_training(kwargs, message):
    settings = {"model": "cnn", "n_train": 1_000, "seed": 0, "steps": 5, **kwargs}
    with pytest.raises(InvalidValueError, match=message):
        data_run(**settings)


def test_the_models_are_the_arenas_vit_and_the_small_cnn():
    vit, cnn = model_config("vit"), model_config("cnn")
    assert (vit.patch_size, vit.dim, vit.n_layers, vit.n_heads, vit.n_tokens) == (4, 64, 2, 4, 50)
    assert (cnn.channels, cnn.sides) == ((32, 64, 128), (28, 14, 7))
