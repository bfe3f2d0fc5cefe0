"""The image strategies, raced: the same small ViT trained on Fashion-MNIST at each patch size.

    run = run_image(STRATEGIES["patch-32"], BUDGETS["quick"], seed=0)
    run.accuracy, run.tokens_per_input        # e.g. 0.8, 50

Both patch sizes get the same body (embedlab.models.vit: D = strategy.arena.dim, the budget's
layers and heads), the same optimiser and schedule, and the same training compute (budget.image_flops,
counted by arena/flops.py; or the same seconds with clock "wall"). The schedule is a function of the
share of that budget spent, so both sizes warm up and decay over the same compute even though
2-px patches (196 tokens) make a step about five times dearer than 4-px ones (49 tokens): they
buy fewer steps. Pauses to score the learning curve are not counted as training time.

What a run measures: test accuracy on the budget's first `image_test` test images, a learning
curve (accuracy on a fixed slice of them against training FLOPs), training throughput, the
median latency of classifying one image, and the costs the lesson tabulates (tokens and
attention scores per input, the patch projection's parameters). For scale, each run also
carries a multinomial logistic regression on the same pixels (`pixel_baseline`).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import torch
import torch.nn.functional as F

from embedlab.arena.flops import budget_meter, vit_step_flops
from embedlab.arena.strategies import STRATEGIES, Budget, Strategy
from embedlab.data.fashion import CLASSES, FILES, load_fashion
from embedlab.errors import InvalidValueError, check_choice, check_int
from embedlab.models.vit import ViT, ViTConfig
from embedlab.train.config import LM_FLOOR

DEVICES = ("cpu", "cuda")
BATCH_SIZE = 64  # small: on a fixed budget more updates beat larger batches (trials: 32, 64, 128)
PEAK_LR = 2e-3  # AdamW at D = 64
WEIGHT_DECAY = 0.05  # ViT's usual; matters little in runs this short
WARMUP = 0.05  # fraction of the budget spent ramping the learning rate up from zero
CURVE_IMAGES = 500  # at most this many test images score each curve point (a tenth of image_test)
LATENCY_IMAGES = 32  # single-image forward passes timed for the median latency (after 3 unmeasured)
EVAL_BATCH = 64  # faster than larger batches at 197 tokens on 2 cores (attention memory)
BASELINE_ITERATIONS = 50  # L-BFGS: 0.842 on the full split in ~12 s here; 100 gave 0.844 in ~30 s
BASELINE_L2 = 1e-4
BASELINE = (
    "multinomial logistic regression on the normalised pixels, "
    f"L-BFGS, {BASELINE_ITERATIONS} iterations, L2 {BASELINE_L2:g}"
)


@dataclass(frozen=True)
class ImageRun:
    """One image strategy trained once: every figure is measured, none derived from a formula
    except the attention scores (tokens², what one head of one layer computes per input)."""

    accuracy: float  # on the first n_test test images
    curve: list[list[float]]  # [training FLOPs spent, accuracy on the curve slice]: at 0, then budget.curve_points more
    clock: str  # what the budget counted: "flops" or "wall"
    train_flops: int  # steps × flops_per_step (arena/flops.py)
    flops_per_step: int
    train_seconds: float  # wall-clock training time (curve pauses excluded)
    steps: int
    images_seen: int  # steps × batch, repeats counted: more than n_train once an epoch is done
    images_per_second: float  # training throughput
    tokens_per_input: int  # N + 1: patches and CLS
    attention_scores_per_input: int  # (N + 1)²
    latency_ms: float  # median of one image's forward pass, batch 1, no gradient
    params_embedding: int  # the patch projection, C·P·P·D + D (= strategy.arena_params)
    params_total: int
    n_train: int
    n_test: int
    curve_images: int  # the test images each curve point scores
    batch_size: int
    device: str
    baseline_accuracy: float  # `BASELINE` on the same training and test images
    baseline: str = BASELINE


def run_image(
    strategy: Strategy,
    budget: Budget,
    seed: int,
    device: str = "cpu",
    on_progress: Callable[[float, float | None], None] | None = None,
) -> ImageRun:
    """Train the ViT of an image `strategy` on `budget.image_flops` of compute (or for
    `budget.image_seconds` with clock "wall") and measure it.

    `on_progress(share of the budget spent, latest_curve_accuracy_or_None)` is called before the
    first step and after every step. `seed` fixes the initial weights and the order of the training
    images; with the flops clock the same seed gives the same run (to float round-off on another
    CPU), with the wall clock the machine's speed decides where training stops.
    """
    if not strategy.applies_to("image"):
        images = ", ".join(name for name, s in STRATEGIES.items() if s.applies_to("image"))
        raise InvalidValueError(f"strategy {strategy.name!r} is a {strategy.kind} strategy; images are for {images}")
    seed = check_int("seed", seed, low=0)
    device = _check_device(device)
    n_train = check_int("image_train", budget.image_train, low=BATCH_SIZE, high=FILES["train"][2])
    n_test = check_int("image_test", budget.image_test, low=1, high=FILES["test"][2])
    report = on_progress or (lambda elapsed, accuracy: None)

    train_x, train_y = image_tensors("train", n_train, device)
    test_x, test_y = image_tensors("test", n_test, device)
    normalise = normaliser(train_x)  # the training images' statistics, used for the test images too
    curve_images = max(1, min(CURVE_IMAGES, n_test // 10))

    layout = strategy.arena
    config = ViTConfig(layout.image_size, layout.patch_size, layout.in_channels, layout.dim,
                       budget.n_layers, budget.n_heads, len(CLASSES))  # fmt: skip
    with torch.random.fork_rng(devices=[]):  # seeded without touching the caller's random state
        torch.manual_seed(seed)
        model = ViT(config, device=device)
    order = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK_LR, weight_decay=WEIGHT_DECAY)
    step_flops = vit_step_flops(config, BATCH_SIZE)
    spent = budget_meter(budget.clock, budget.image_flops, budget.image_seconds, step_flops)

    curve_x, curve_y = test_x[:curve_images], test_y[:curve_images]
    report(0.0, None)
    # The untrained point: with the classifier at zero every image gets class 0, so about 0.1.
    curve = [[0, accuracy(model, normalise, curve_x, curve_y)]]
    elapsed, steps, batches = 0.0, 0, shuffled_batches(n_train, order)
    model.train()
    while (done := spent(steps, elapsed)) < 1:
        idx = next(batches)
        start = time.perf_counter()
        for group in optimizer.param_groups:
            group["lr"] = PEAK_LR * lr_factor(done)
        idx = idx.to(device)
        loss = F.cross_entropy(model(normalise(train_x[idx])), train_y[idx])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        _sync(device)
        elapsed += time.perf_counter() - start
        steps += 1
        done = spent(steps, elapsed)
        # A point is due each time another tenth of the budget is spent (training stops at the
        # first step past it, so the last point is the final model); a step longer than a tenth
        # gives fewer points, never two at one time.
        if done >= len(curve) / budget.curve_points or done >= 1:
            curve.append([steps * step_flops, accuracy(model, normalise, curve_x, curve_y)])
            model.train()
        report(min(done, 1.0), curve[-1][1])

    return ImageRun(
        accuracy=accuracy(model, normalise, test_x, test_y),
        curve=curve,
        clock=budget.clock,
        train_flops=steps * step_flops,
        flops_per_step=step_flops,
        train_seconds=elapsed,
        steps=steps,
        images_seen=steps * BATCH_SIZE,
        images_per_second=steps * BATCH_SIZE / elapsed,
        tokens_per_input=config.n_tokens,
        attention_scores_per_input=config.n_tokens**2,
        latency_ms=latency_ms(model, normalise(test_x[: LATENCY_IMAGES + 3]), device),
        params_embedding=model.embedding_params,
        params_total=model.parameter_count(),
        n_train=n_train,
        n_test=n_test,
        curve_images=curve_images,
        batch_size=BATCH_SIZE,
        device=device,
        baseline_accuracy=pixel_baseline(n_train, n_test),
    )


def shuffled_batches(n_train: int, order: torch.Generator) -> Iterator[torch.Tensor]:
    """Endless (BATCH_SIZE,) index batches into `n_train` images: each epoch a new permutation drawn
    from `order`, cut into batches; an epoch's short last batch is dropped (its images would weigh more)."""
    while True:
        for idx in torch.randperm(n_train, generator=order).split(BATCH_SIZE):
            if len(idx) == BATCH_SIZE:
                yield idx


def lr_factor(fraction: float) -> float:
    """The learning rate's share of PEAK_LR at `fraction` (0..1) of the budget spent: a linear
    warm-up over the first WARMUP, then a cosine down to LM_FLOOR (the text strategies' floor).

    >>> [round(lr_factor(f), 3) for f in (0.0, 0.025, 0.05, 0.525, 1.0)]
    [0.0, 0.5, 1.0, 0.55, 0.1]
    """
    if fraction < WARMUP:
        return fraction / WARMUP
    progress = min(1.0, (fraction - WARMUP) / (1 - WARMUP))
    return LM_FLOOR + (1 - LM_FLOOR) * 0.5 * (1 + math.cos(math.pi * progress))


@torch.no_grad()
def accuracy(model: torch.nn.Module, normalise: Callable, images: torch.Tensor, labels: torch.Tensor) -> float:
    """(M, 1, 28, 28) uint8 images, (M,) labels -> the fraction `model` classifies right, in eval mode."""
    model.eval()
    right = 0
    for start in range(0, len(labels), EVAL_BATCH):
        logits = model(normalise(images[start : start + EVAL_BATCH]))
        right += int((logits.argmax(-1) == labels[start : start + EVAL_BATCH]).sum())
    return right / len(labels)


@torch.no_grad()
def latency_ms(model: ViT, images: torch.Tensor, device: str) -> float:
    """Median milliseconds of one forward pass on one image (B = 1), over all but the first 3 of
    `images` (M, C, H, W): those warm the caches and the allocator up."""
    model.eval()
    times = []
    for i in range(len(images)):
        start = time.perf_counter()
        model(images[i : i + 1])
        _sync(device)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times[3:])


@lru_cache(maxsize=4)
def pixel_baseline(n_train: int, n_test: int) -> float:
    """Test accuracy of `BASELINE` trained on the first `n_train` training images, scored on the
    first `n_test` test images: the scale the ViTs are read against (the dataset's authors report
    84% for a logistic regression). Deterministic, so cached per setting."""
    train_x, train_y = image_tensors("train", n_train, "cpu")
    test_x, test_y = image_tensors("test", n_test, "cpu")
    normalise = normaliser(train_x)
    x, xt = normalise(train_x).flatten(1), normalise(test_x).flatten(1)  # (n, 784)
    weight = torch.zeros(x.shape[1], len(CLASSES), requires_grad=True)
    bias = torch.zeros(len(CLASSES), requires_grad=True)
    optimizer = torch.optim.LBFGS(
        [weight, bias], max_iter=BASELINE_ITERATIONS, history_size=10, line_search_fn="strong_wolfe"
    )

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = F.cross_entropy(x @ weight + bias, train_y) + BASELINE_L2 * weight.square().sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    with torch.no_grad():
        return int(((xt @ weight + bias).argmax(-1) == test_y).sum()) / n_test


def image_tensors(split: str, n: int, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The first n images of `split` as (n, 1, 28, 28) uint8 and (n,) int64 tensors on `device`;
    kept as bytes (a quarter of float32's memory) and normalised a batch at a time."""
    images, labels = load_fashion(split, limit=n)
    x = torch.tensor(images).unsqueeze(1)  # (n, 1, 28, 28): one channel, grayscale
    return x.to(device), torch.tensor(labels).to(device)


def normaliser(train_pixels: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
    """The map uint8 pixels -> float32 in [0, 1] -> zero mean and unit spread over `train_pixels`.

    The mean and standard deviation come from a histogram of the 256 grey levels: exact, and no
    float copy of the training set (60,000 images: mean 0.286, std 0.353).
    """
    counts = torch.bincount(train_pixels.flatten(), minlength=256).double()  # (256,)
    levels = torch.arange(256, dtype=torch.float64, device=counts.device) / 255
    mean = float((counts * levels).sum() / counts.sum())
    std = float(((counts * (levels - mean) ** 2).sum() / counts.sum()).sqrt())
    return lambda pixels: (pixels.float() / 255 - mean) / std


def _check_device(device: str) -> str:
    device = check_choice("device", device, DEVICES)
    if device == "cuda" and not torch.cuda.is_available():
        raise InvalidValueError("device 'cuda' asked for, but torch sees no CUDA device here")
    return device


def _sync(device: str) -> None:
    # CUDA runs asynchronously: without a sync the clock would stop before the GPU had finished.
    if device == "cuda":
        torch.cuda.synchronize()
