"""Training compute counted from a model's shapes: the arena's budgets are FLOPs, not seconds.

    lm_step_flops(LMConfig(2_000, 64, 2, 4, 98, True), batch_size=32)     # one TinyLM training step
    vit_step_flops(ViTConfig(28, 4, 1, 64, 2, 4, 10), batch_size=64)     # one ViT training step

The count, written once here for TinyLM (models/lm.py) and the arena's ViT (models/vit.py):
    - a matmul of (m, k) by (k, n) is 2·m·n·k FLOPs (a multiply and an add each);
    - a block over T tokens of width D: the Q, K, V and output projections 2·T·D·4D, the
      feed-forward's two layers (D -> 4D -> D) 2·T·D·8D, together 24·T·D²; attention's Q·Kᵀ and
      its weights times V, 2·T·T·D each over all heads together (4·T²·D), counted in full although
      TinyLM's mask is causal (torch computes every score, and so does torch's FLOP counter);
    - TinyLM's token lookup is 0 FLOPs (a row read); its output head is a matmul, 2·T·D·V;
    - the ViT's patch projection is a matmul of each patch's C·P·P pixels by D, 2·N·C·P²·D; its
      classifier reads the CLS row only, 2·D·classes;
    - left out: biases, LayerNorm, softmax, GELU, residual adds, the position add and the loss:
      O(T·D) or O(T²) element-wise work, a few per cent of the total at these widths;
    - training = 3 × forward, the usual convention (Kaplan et al. 2020): the backward pass does
      two matmuls for each of the forward's, one for the input's gradient and one for the weight's.
      (The ViT's patch projection needs no gradient for its pixels, so autograd does one matmul
      fewer there: 2·N·C·P²·D FLOPs a step, which the convention counts and torch does not.)

tests/arena/test_flops.py checks these against a count worked by hand and against
torch.utils.flop_counter.FlopCounterMode on a real forward and backward step.
"""

from __future__ import annotations

from collections.abc import Callable

from embedlab.errors import InvalidValueError, check_choice, check_float, check_int
from embedlab.models.lm import LMConfig
from embedlab.models.vit import ViTConfig

CLOCKS = ("flops", "wall")  # what a budget counts: training FLOPs, or seconds on this machine
BACKWARD_FACTOR = 2  # backward FLOPs per forward FLOP: gradients of the inputs and of the weights


def block_flops(tokens: int, dim: int) -> int:
    """Forward FLOPs of one pre-norm transformer block over one sequence of `tokens` at width `dim`.

    >>> block_flops(3, 4)  # 24·3·16 in the projections and feed-forward, 4·9·4 in attention
    1296
    """
    T, D = check_int("tokens", tokens, low=1), check_int("dim", dim, low=1)
    projections = 2 * T * D * 4 * D  # Q, K, V and the output projection
    feed_forward = 2 * T * D * 4 * D * 2  # D -> 4D and 4D -> D
    attention = 2 * T * T * D * 2  # Q·Kᵀ (T × T scores per head, d_k = D / H) and weights · V
    return projections + feed_forward + attention


def lm_forward_flops(config: LMConfig, tokens: int) -> int:
    """Forward FLOPs of TinyLM over one sequence of `tokens` (<= config.context).

    >>> lm_forward_flops(LMConfig(10, 4, 1, 2, 3, True), 3)  # a block, then the head 2·3·4·10
    1536
    """
    T = check_int("tokens", tokens, low=1, high=config.context)
    head = 2 * T * config.dim * config.vocab_size  # tied or not, the head is one (D, V) matmul
    return config.n_layers * block_flops(T, config.dim) + head


def lm_step_flops(config: LMConfig, batch_size: int) -> int:
    """Training FLOPs of one TinyLM step on (batch_size, config.context + 1) windows: 3 × forward."""
    B = check_int("batch_size", batch_size, low=1)
    return (1 + BACKWARD_FACTOR) * B * lm_forward_flops(config, config.context)


def vit_forward_flops(config: ViTConfig) -> int:
    """Forward FLOPs of the ViT on one image: patches, blocks over N + 1 tokens, the CLS classifier.

    >>> vit_forward_flops(ViTConfig(4, 2, 1, dim=4, n_layers=1, n_heads=2, n_classes=3))  # 4 patches + CLS
    2472
    """
    patches = config.n_tokens - 1
    projection = 2 * patches * config.in_channels * config.patch_size**2 * config.dim
    classifier = 2 * config.dim * config.n_classes
    return projection + config.n_layers * block_flops(config.n_tokens, config.dim) + classifier


def vit_step_flops(config: ViTConfig, batch_size: int) -> int:
    """Training FLOPs of one ViT step on `batch_size` images: 3 × forward."""
    B = check_int("batch_size", batch_size, low=1)
    return (1 + BACKWARD_FACTOR) * B * vit_forward_flops(config)


def steps_bought(budget_flops: float, step_flops: int) -> int:
    """The whole training steps `budget_flops` pays for at `step_flops` a step (at least one).

    >>> steps_bought(1e6, 300_000)
    3
    """
    check_int("step_flops", step_flops, low=1)
    steps = int(budget_flops // step_flops)
    if steps < 1:
        raise InvalidValueError(f"a budget of {budget_flops:.3g} FLOPs buys no step of {step_flops:,} FLOPs")
    return steps


def budget_meter(
    clock: str, budget_flops: float, budget_seconds: float, step_flops: int
) -> Callable[[int, float], float]:
    """(steps done, training seconds spent) -> the share of the budget spent, 1 or more when it is.

    Clock "flops": steps / steps_bought, the same at every load; clock "wall": seconds / budget_seconds.

    >>> spent = budget_meter("flops", 1e6, 60.0, 300_000)
    >>> spent(0, 0.0), spent(3, 1.5)
    (0.0, 1.0)
    """
    if check_choice("clock", clock, CLOCKS) == "flops":
        bought = steps_bought(budget_flops, step_flops)
        return lambda steps, elapsed: steps / bought
    seconds = check_float("seconds", budget_seconds, low=1e-3)
    return lambda steps, elapsed: elapsed / seconds
