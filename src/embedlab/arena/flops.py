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
    - with concatenated token and position rows (LMConfig.combine "concat") the blocks and the head
      are W = 2·D wide: every D above is then W, and the concatenation itself is a copy (0 FLOPs);
    - the huge-vocabulary tables (models/tables.py, `table_flops`): a hashed table's lookup is 0, as
      a full one's; hash embeddings' weighted sum of k rows is a batched matmul, 2·T·k·D; a
      quotient-remainder row's product (or sum) of two rows is element-wise, left out as below;
      adaptive input maps a band-i token's row up to D, 2·(D/div^i)·D, counted as if every token
      were in band 1 (an upper bound: band 0 needs no map, and it holds most of the text);
    - ALBERT's factorised table maps each token's E-wide row up to D, 2·E·D; the head tied to it maps
      h down to E and scores the V narrow rows, 2·D·E + 2·E·V a token, where a full head costs 2·D·V;
    - a head tied to a hashed or quotient-remainder table composes all V rows once per forward pass
      (not per token): 2·V·k·D for hash embeddings, 0 for the others;
    - an adaptive softmax head, as torch computes it when every id is scored (log_prob): the head
      over c0 + n_clusters rows, 2·T·D·(c0 + n), and for each cluster its projection 2·T·D·w_i
      and rows 2·T·w_i·V_i. Training scores each target in its own cluster only, so it does less:
      the count is an upper bound, the same for every step and seed;
    - the ViT's patch projection is a matmul of each patch's C·P·P pixels by D, 2·N·C·P²·D; its
      classifier reads the CLS row only, 2·D·classes;
    - the small CNN's (models/cnn.py) 3×3 convolution from c to c' channels at side s is a matmul
      per pixel, 2·s²·9·c·c'; its classifier 2·c_last·classes; the pools and the average are left out;
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
from embedlab.models.cnn import KERNEL, CNNConfig
from embedlab.models.lm import LMConfig
from embedlab.models.vit import ViTConfig
from embedlab.sizing import adaptive_bands

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


def table_flops(config: LMConfig, tokens: int) -> tuple[int, int, int]:
    """Forward FLOPs of TinyLM's token table and head over one sequence of `tokens`, by kind
    (the module docstring's rules): (the table's, per sequence; the head's, per sequence; the
    head's, once per forward pass however many sequences it holds).

    >>> table_flops(LMConfig(10, 4, 1, 2, 3, True), 3)  # a full table: a lookup, then 2·3·4·10
    (0, 240, 0)
    >>> from embedlab.models.tables import TableConfig
    >>> adaptive = TableConfig("adaptive", cutoffs=(20, 60))  # bands (20, 64), (40, 16), (40, 4)
    >>> table_flops(LMConfig(100, 64, 1, 2, 3, True, table=adaptive), 3)  # head 8,448, clusters 9,984 + 2,496
    (6144, 20928, 0)
    """
    T, D, V, c = tokens, config.dim, config.vocab_size, config.table
    if c.kind == "adaptive":
        bands = adaptive_bands(V, D, c.cutoffs, c.div_value)  # [(rows, width)], band 0 first
        table = 2 * T * bands[1][1] * D  # every token mapped up from band 1: the most a token costs
        head = 2 * T * D * (c.cutoffs[0] + len(c.cutoffs))
        clusters = sum(2 * T * D * width + 2 * T * width * rows for rows, width in bands[1:])
        return table, head + clusters, 0
    if c.kind == "factorized":
        E = c.factor_dim
        head = 2 * T * D * E + 2 * T * E * V if config.tied else 2 * T * D * V
        return 2 * T * E * D, head, 0
    table = 2 * T * c.hash_count * D if c.kind == "hash-embedding" else 0  # hashed, QR: lookups, element-wise ops
    head = 2 * T * config.width * V  # an untied head, or a tied one over V composed rows: one (W, V) matmul
    compose = 2 * V * c.hash_count * D if (config.tied and c.kind == "hash-embedding") else 0
    return table, head, compose


def lm_forward_flops(config: LMConfig, tokens: int, batch_size: int = 1) -> int:
    """Forward FLOPs of TinyLM over `batch_size` sequences of `tokens` (<= config.context).

    >>> lm_forward_flops(LMConfig(10, 4, 1, 2, 3, True), 3)  # a block, then the head 2·3·4·10
    1536
    """
    T = check_int("tokens", tokens, low=1, high=config.context)
    B = check_int("batch_size", batch_size, low=1)
    table, head, once = table_flops(config, T)
    return B * (table + config.n_layers * block_flops(T, config.width) + head) + once


def lm_step_flops(config: LMConfig, batch_size: int) -> int:
    """Training FLOPs of one TinyLM step on (batch_size, config.context + 1) windows: 3 × forward."""
    return (1 + BACKWARD_FACTOR) * lm_forward_flops(config, config.context, batch_size)


def vit_forward_flops(config: ViTConfig) -> int:
    """Forward FLOPs of the ViT on one image: patches, blocks over N + 1 tokens, the CLS classifier.

    >>> vit_forward_flops(ViTConfig(4, 2, 1, dim=4, n_layers=1, n_heads=2, n_classes=3))  # 4 patches + CLS
    2472
    """
    patches = config.n_tokens - 1
    projection = 2 * patches * config.in_channels * config.patch_size**2 * config.dim
    classifier = 2 * config.dim * config.n_classes
    return projection + config.n_layers * block_flops(config.n_tokens, config.dim) + classifier


def cnn_forward_flops(config: CNNConfig) -> int:
    """Forward FLOPs of the small CNN on one image: its convolutions and its classifier.

    >>> cnn_forward_flops(CNNConfig(4, 1, (2, 3), n_classes=5))  # 2·16·9·1·2 + 2·4·9·2·3 + 2·3·5
    1038
    """
    widths = (config.in_channels, *config.channels)
    convs = sum(
        2 * side**2 * KERNEL**2 * c_in * c_out
        for side, c_in, c_out in zip(config.sides, widths, widths[1:], strict=False)
    )
    return convs + 2 * config.channels[-1] * config.n_classes


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
