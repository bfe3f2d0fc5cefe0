"""Training FLOPs counted from shapes (arena/flops.py): against a count worked by hand, and against
torch's own FLOP counter on a real forward and backward step of TinyLM and the ViT."""

from __future__ import annotations

import pytest
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

from embedlab.arena.flops import (
    cnn_forward_flops,
    lm_forward_flops,
    lm_step_flops,
    vit_forward_flops,
    vit_step_flops,
)
from embedlab.errors import InvalidValueError
from embedlab.models.cnn import CNNConfig, SmallCNN
from embedlab.models.lm import LMConfig, TinyLM
from embedlab.models.tables import TableConfig
from embedlab.models.vit import ViT, ViTConfig


def test_a_tiny_lm_counted_by_hand():
    # V = 10, D = 4, one layer, T = 3, batch 2
    config = LMConfig(vocab_size=10, dim=4, n_layers=1, n_heads=2, context=3, tied=True)
    qkv = 2 * 3 * 4 * 12  # (3, 4) @ (4, 12): 288
    out = 2 * 3 * 4 * 4  # (3, 4) @ (4, 4): 96
    ff = 2 * 3 * 4 * 16 + 2 * 3 * 16 * 4  # (3, 4) @ (4, 16), then (3, 16) @ (16, 4): 768
    scores = 2 * (2 * 3 * 3 * 2)  # two heads, each (3, 2) @ (2, 3): 72
    mix = 2 * (2 * 3 * 3 * 2)  # two heads, each (3, 3) @ (3, 2): 72
    head = 2 * 3 * 4 * 10  # (3, 4) @ (4, 10): 240; the lookup costs nothing
    forward = qkv + out + ff + scores + mix + head
    assert forward == 1536 == lm_forward_flops(config, 3)
    assert lm_step_flops(config, batch_size=2) == 3 * 2 * 1536  # backward: two matmuls for each


def test_a_tiny_vit_counted_by_hand():
    # a 4-px grey image in 2-px patches: 4 patches + CLS = 5 tokens, D = 4, one layer, 3 classes
    config = ViTConfig(image_size=4, patch_size=2, in_channels=1, dim=4, n_layers=1, n_heads=2, n_classes=3)
    patches = 2 * 4 * 4 * 4  # (4 patches, 4 pixels) @ (4, 4): 128
    block = 2 * 5 * 4 * 12 + 2 * 5 * 4 * 4 + 2 * 5 * 4 * 16 + 2 * 5 * 16 * 4  # 1,920
    attention = 2 * (2 * 2 * 5 * 5 * 2)  # scores and mix, two heads of (5, 2) by (2, 5) and back: 400
    classifier = 2 * 4 * 3  # the CLS row only: 24
    assert vit_forward_flops(config) == patches + block + attention + classifier == 2472
    assert vit_step_flops(config, batch_size=5) == 3 * 5 * 2472


def _counted(step) -> dict[str, int]:
    """torch's FLOP count of `step()`, by operator. The math attention backend spells Q·Kᵀ and the
    mix as bmm, which the counter knows; the fused CPU kernel it would pick otherwise it does not count."""
    with sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as counter:
        step()
    return {str(op): flops for op, flops in counter.get_flop_counts()["Global"].items()}


@pytest.mark.parametrize(("tied", "layers", "combine"), [(True, 2, "add"), (False, 1, "add"), (False, 2, "concat")])
def test_tinylm_agrees_with_torchs_counter(tied, layers, combine):
    config = LMConfig(vocab_size=50, dim=16, n_layers=layers, n_heads=4, context=12, tied=tied, combine=combine)
    model = TinyLM(config)
    batch = torch.randint(0, 50, (3, 13))
    forward = _counted(lambda: model.loss(batch))
    assert sum(forward.values()) == 3 * lm_forward_flops(config, 12)
    step = _counted(lambda: model.loss(batch).backward())
    assert sum(step.values()) == lm_step_flops(config, batch_size=3)  # every matmul's backward is two


def test_the_vit_agrees_with_torchs_counter():
    config = ViTConfig(image_size=28, patch_size=4, in_channels=1, dim=16, n_layers=2, n_heads=4, n_classes=10)
    model = ViT(config)
    images = torch.randn(3, 1, 28, 28)
    forward = _counted(lambda: model(images))
    assert sum(forward.values()) == 3 * vit_forward_flops(config)
    step = _counted(lambda: model(images).sum().backward())
    # the pixels need no gradient, so torch does the patch projection's backward once, not twice
    projection = forward["aten.convolution"]
    assert projection == 3 * 2 * 49 * 16 * 16
    assert sum(step.values()) == vit_step_flops(config, batch_size=3) - projection


def test_the_cnn_agrees_with_torchs_counter():
    # the data-scale comparison's CNN: 28 -> 14 -> 7 px, the convolutions and the classifier counted
    config = CNNConfig(28, 1, (32, 64, 128), n_classes=10)
    by_hand = 2 * 28 * 28 * 9 * 1 * 32 + 2 * 14 * 14 * 9 * 32 * 64 + 2 * 7 * 7 * 9 * 64 * 128 + 2 * 128 * 10
    assert cnn_forward_flops(config) == by_hand == 14_904_832
    forward = _counted(lambda: SmallCNN(config)(torch.randn(3, 1, 28, 28)))
    assert sum(forward.values()) == 3 * by_hand


def test_a_window_longer_than_the_context_is_refused():
    with pytest.raises(InvalidValueError, match="tokens must be between 1 and 3; got 4"):
        lm_forward_flops(LMConfig(10, 4, 1, 2, 3, True), 4)


# The huge-vocabulary tables (models/tables.py): V 100, D 16, one layer, T 12, batch 3
TABLES = {
    "hashed": TableConfig("hashed", rows=10),
    "hash-embedding": TableConfig("hash-embedding", rows=10, hash_count=2),
    "quotient-remainder": TableConfig("quotient-remainder", buckets=10),
    "adaptive": TableConfig("adaptive", cutoffs=(20, 60), div_value=4.0),
    "factorized": TableConfig("factorized", factor_dim=4),
}


def test_the_huge_vocabulary_tables_counted_by_hand():
    T, D, V = 12, 16, 100
    block = lm_forward_flops(LMConfig(V, D, 1, 4, T, True), T) - 2 * T * D * V  # the body alone
    full_head = 2 * T * D * V
    counts = {
        ("hashed", False): 0 + full_head,  # a lookup of a shared row, then an untied (V, D) head
        ("hash-embedding", False): 2 * T * 2 * D + full_head,  # k = 2 rows mixed by 2 weights per token
        ("hash-embedding", True): 2 * T * 2 * D + full_head + 2 * V * 2 * D,  # + all V rows composed, once
        ("quotient-remainder", True): 0 + full_head,  # Q[i // m] * R[i % m]: element-wise, left out
        # bands (20, 16), (40, 4), (40, 1): a token mapped up from band 1 (4 -> 16); head 20 ids + 2
        # clusters; cluster 1: 16 -> 4 -> 40 ids, cluster 2: 16 -> 1 -> 40 ids
        ("adaptive", True): 2 * T * 4 * D
        + 2 * T * D * 22
        + (2 * T * D * 4 + 2 * T * 4 * 40)
        + (2 * T * D + 2 * T * 40),
        # each token's 4-wide row mapped up to 16; tied: h mapped down to 4, then scored on the 100 rows
        ("factorized", True): 2 * T * 4 * D + 2 * T * D * 4 + 2 * T * 4 * V,
        ("factorized", False): 2 * T * 4 * D + full_head,
    }
    for (kind, tied), forward in counts.items():
        config = LMConfig(V, D, 1, 4, T, tied, table=TABLES[kind])
        assert lm_forward_flops(config, T) == block + forward, kind
    adaptive = LMConfig(V, D, 1, 4, T, True, table=TABLES["adaptive"])
    assert lm_forward_flops(adaptive, T) < lm_forward_flops(LMConfig(V, D, 1, 4, T, True), T)  # cheaper than 2·T·D·V
    composed = LMConfig(V, D, 1, 4, T, True, table=TABLES["hash-embedding"])
    assert lm_step_flops(composed, 3) == 3 * (3 * (block + 2 * T * 2 * D + full_head) + 2 * V * 2 * D)


@pytest.mark.parametrize(
    ("kind", "tied"),
    [("hashed", False), ("hash-embedding", False), ("hash-embedding", True), ("quotient-remainder", True),
     ("adaptive", True), ("factorized", True), ("factorized", False)],
)  # fmt: skip
def test_the_huge_vocabulary_tables_agree_with_torchs_counter(kind, tied):
    config = LMConfig(vocab_size=100, dim=16, n_layers=1, n_heads=4, context=12, tied=tied, table=TABLES[kind])
    model = TinyLM(config)
    # inputs from band 1 of the adaptive table (ids 20..59): the count's upper bound, met exactly
    batch = torch.randint(20, 60, (3, 13))

    def scored():  # every id scored: the (B, T, V) scores' cross-entropy
        logits = model(batch[:, :-1])
        return torch.nn.functional.cross_entropy(logits.reshape(-1, 100), batch[:, 1:].reshape(-1))

    assert sum(_counted(scored).values()) == lm_forward_flops(config, 12, batch_size=3)
    assert sum(_counted(lambda: scored().backward()).values()) == lm_step_flops(config, batch_size=3)
    if kind == "adaptive":  # training scores each target within its cluster only: less than the count
        assert sum(_counted(lambda: model.loss(batch).backward()).values()) < lm_step_flops(config, batch_size=3)
