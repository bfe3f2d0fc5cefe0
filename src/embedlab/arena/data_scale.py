"""Does a ViT need more data than a CNN? Both trained on the first n Fashion-MNIST images, n = 1K to 60K.

    run = data_run("vit", n_train=1_000, seed=0)        # one model, one training-set size, one seed
    run.accuracy, run.train_accuracy                    # test accuracy; accuracy on its own training images
    rows = data_table(runs)                             # per size: both means, the gap and its verdict

The lesson's claim (ViT lacks convolution's locality and translation equivariance, so it has to
learn them from data) predicts that a CNN leads by most when images are few and that the lead
shrinks as they grow. The two models are the arena's small ViT (its patch-32 strategy: 4-px patches
of the 28-px image, D = 64, the full budget's 2 layers and 4 heads) and models.cnn.SmallCNN with
channels (32, 64, 128): 105,098 and 93,962 parameters, 11.2 and 14.9 MFLOPs a forward pass. Both get
what the arena's image runs get (AdamW at 2e-3, weight decay 0.05, batches of 64, a warm-up then a
cosine) for the same number of steps at every size, so they see the same number of images; a small
training set is repeated for many epochs, as a user with few images would. No augmentation, no early
stopping on the test set: each run's last model is scored on the whole test split (10,000 images).
Beside each size stands the pixels' logistic regression (arena.vision.pixel_baseline).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from embedlab.arena.flops import cnn_forward_flops, vit_forward_flops
from embedlab.arena.noise import t_interval, verdict
from embedlab.arena.strategies import BUDGETS, STRATEGIES
from embedlab.arena.vision import (
    BATCH_SIZE,
    PEAK_LR,
    WEIGHT_DECAY,
    accuracy,
    image_tensors,
    lr_factor,
    normaliser,
    pixel_baseline,
    shuffled_batches,
)
from embedlab.data.fashion import CLASSES, FILES
from embedlab.errors import InvalidValueError, check_choice, check_int
from embedlab.models.cnn import CNNConfig, SmallCNN
from embedlab.models.vit import ViT, ViTConfig

MODELS = ("vit", "cnn")
SIZES = (1_000, 4_000, 15_000, 60_000)  # training images: each about 4× the one before
STEPS = 5_000  # 320,000 images seen: 5.3 epochs of the whole split, 320 of the first 1,000
SEEDS = (0, 1, 2)
CNN_CHANNELS = (32, 64, 128)
TRAIN_SCORED = 10_000  # at most this many training images score train_accuracy


@dataclass(frozen=True)
class DataRun:
    """One model trained once on the first `n_train` images."""

    model: str  # "vit" | "cnn"
    n_train: int
    seed: int
    steps: int
    accuracy: float  # on the first n_test test images
    train_accuracy: float  # on the first min(n_train, TRAIN_SCORED) training images: its gap to accuracy is overfitting
    epochs: float  # steps × batch / n_train
    params: int
    forward_flops: int  # per image (arena/flops.py)
    seconds: float  # wall-clock training time
    n_test: int


def model_config(model: str) -> ViTConfig | CNNConfig:
    """The shape of `model`: the arena's patch-32 ViT at the full budget's depth, or the small CNN."""
    model = check_choice("model", model, MODELS)
    if model == "cnn":
        return CNNConfig(28, 1, CNN_CHANNELS, len(CLASSES))
    layout, budget = STRATEGIES["patch-32"].arena, BUDGETS["full"]
    return ViTConfig(layout.image_size, layout.patch_size, layout.in_channels, layout.dim,
                     budget.n_layers, budget.n_heads, len(CLASSES))  # fmt: skip


def data_run(
    model: str,
    n_train: int,
    seed: int,
    steps: int = STEPS,
    n_test: int = FILES["test"][2],
    on_step: Callable[[int], None] | None = None,
) -> DataRun:
    """Train `model` ("vit" or "cnn") for `steps` steps on the first `n_train` training images and
    score it. `seed` fixes the initial weights and the order of the batches; `on_step(steps done)`
    is called after every step."""
    config = model_config(model)
    n_train = check_int("n_train", n_train, low=BATCH_SIZE, high=FILES["train"][2])
    seed, steps = check_int("seed", seed, low=0), check_int("steps", steps, low=1)
    n_test = check_int("n_test", n_test, low=1, high=FILES["test"][2])
    train_x, train_y = image_tensors("train", n_train, "cpu")
    normalise = normaliser(train_x)  # the subset's own statistics, as a user with n images would have
    with torch.random.fork_rng(devices=[]):  # seeded without touching the caller's random state
        torch.manual_seed(seed)
        net = SmallCNN(config) if model == "cnn" else ViT(config)
    optimizer = torch.optim.AdamW(net.parameters(), lr=PEAK_LR, weight_decay=WEIGHT_DECAY)
    batches = shuffled_batches(n_train, torch.Generator().manual_seed(seed))

    net.train()
    start = time.perf_counter()
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = PEAK_LR * lr_factor(step / steps)
        idx = next(batches)
        loss = F.cross_entropy(net(normalise(train_x[idx])), train_y[idx])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if on_step is not None:
            on_step(step + 1)
    seconds = time.perf_counter() - start

    test_x, test_y = image_tensors("test", n_test, "cpu")
    scored = min(n_train, TRAIN_SCORED)
    return DataRun(
        model=model,
        n_train=n_train,
        seed=seed,
        steps=steps,
        accuracy=accuracy(net, normalise, test_x, test_y),
        train_accuracy=accuracy(net, normalise, train_x[:scored], train_y[:scored]),
        epochs=steps * BATCH_SIZE / n_train,
        params=net.parameter_count(),
        forward_flops=cnn_forward_flops(config) if model == "cnn" else vit_forward_flops(config),
        seconds=seconds,
        n_test=n_test,
    )


def data_table(runs: list[DataRun]) -> list[dict]:
    """Runs -> one row per training-set size, smallest first: each model's accuracies by seed, their
    mean and 95% interval, the CNN's lead (CNN minus ViT, seed by seed) with its interval and its
    verdict ("holds": the CNN is ahead beyond seed noise), and the pixel baseline's accuracy.

    Every size needs both models on the same seeds, all scored on the same test images."""
    if not runs:
        raise InvalidValueError("no runs to tabulate")
    if len({(r.steps, r.n_test) for r in runs}) > 1:
        raise InvalidValueError("runs trained for different steps or scored on different test images")
    rows = []
    for n in sorted({r.n_train for r in runs}):
        by_model = {m: {r.seed: r.accuracy for r in runs if r.n_train == n and r.model == m} for m in MODELS}
        if by_model["vit"].keys() != by_model["cnn"].keys():
            raise InvalidValueError(f"at {n:,} images the models ran different seeds: {by_model}")
        seeds = sorted(by_model["vit"])
        vit, cnn = [by_model["vit"][s] for s in seeds], [by_model["cnn"][s] for s in seeds]
        lead = [c - v for c, v in zip(cnn, vit, strict=True)]
        rows.append({
            "n_train": n,
            "seeds": seeds,
            "vit": _summary(vit),
            "cnn": _summary(cnn),
            "cnn_lead": _summary(lead),
            "verdict": verdict(cnn, vit, "higher"),
            "baseline": pixel_baseline(n, runs[0].n_test),
        })  # fmt: skip
    return rows


def lead_shrinks(rows: list[dict]) -> str:
    """Whether the CNN's lead at the smallest size exceeds its lead at the largest, seed by seed:
    "holds", "contradicted" or "within noise" (arena.noise.verdict on the two sizes' leads)."""
    if len(rows) < 2:
        raise InvalidValueError(f"need at least two training-set sizes; got {len(rows)}")
    small, large = rows[0], rows[-1]
    if small["seeds"] != large["seeds"]:
        raise InvalidValueError("the smallest and largest sizes ran different seeds")
    return verdict(small["cnn_lead"]["values"], large["cnn_lead"]["values"], "higher")


def _summary(values: list[float]) -> dict:
    return {"values": values, "mean": statistics.fmean(values), "interval": t_interval(values)}
