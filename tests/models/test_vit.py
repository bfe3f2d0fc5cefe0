"""The small ViT: token counts and parameter counts against embedlab.sizing and a hand count,
one forward and backward pass, and configs that cannot be built."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from embedlab.arena.strategies import STRATEGIES
from embedlab.errors import InvalidValueError
from embedlab.models.vit import ViT, ViTConfig
from embedlab.sizing import EmbeddingLayout, count


def _config(patch_size: int = 4, **changes) -> ViTConfig:
    fields = dict(image_size=28, patch_size=patch_size, in_channels=1, dim=64, n_layers=2, n_heads=4, n_classes=10)
    return ViTConfig(**{**fields, **changes})


@pytest.mark.parametrize(("patch_size", "tokens"), [(2, 197), (4, 50), (7, 17), (28, 2)])
def test_tokens_are_the_patches_and_cls(patch_size, tokens):
    config = _config(patch_size)
    assert config.n_tokens == tokens == (28 // patch_size) ** 2 + 1
    model = ViT(config)
    assert model.embed(torch.zeros(3, 1, 28, 28)).shape == (3, tokens, 64)
    assert model(torch.zeros(3, 1, 28, 28)).shape == (3, 10)


@pytest.mark.parametrize("name", ["patch-16", "patch-32"])
def test_embedding_params_are_sizings_patch_count(name):
    layout = STRATEGIES[name].arena
    model = ViT(_config(layout.patch_size, dim=layout.dim, in_channels=layout.in_channels))
    assert model.embedding_params == count(layout).patch_params == STRATEGIES[name].arena_params
    assert model.embedding_params == layout.patch_size**2 * 64 + 64  # C·P·P·D + D, C = 1


def test_parameter_count_by_hand():
    # Embedding: C·P·P·D + D (projection) + D (CLS) + (N + 1)·D (positions), as sizing counts it
    # with learned positions. A pre-norm block: attention 4·D² + 4·D, MLP 8·D² + 5·D, two
    # LayerNorms 4·D, so 12·D² + 13·D. Then a final LayerNorm 2·D and the classifier D·K + K.
    D, K, layers = 64, 10, 2
    model = ViT(_config(4))
    layout = EmbeddingLayout(dim=D, image_size=28, patch_size=4, in_channels=1, positions="learned")
    embedding = count(layout).total_params
    assert embedding == 16 * D + D + D + 50 * D
    assert model.parameter_count() == embedding + layers * (12 * D * D + 13 * D) + 2 * D + D * K + K


def test_classifier_starts_at_zero_and_every_part_learns():
    torch.manual_seed(0)
    model = ViT(_config(2, n_layers=1))
    images, labels = torch.randn(8, 1, 28, 28), torch.arange(8)
    logits = model(images)
    assert torch.equal(logits, torch.zeros(8, 10))  # every class equally likely before training
    # With a zero classifier only the head gets gradient; after one step the patch projection does.
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        F.cross_entropy(model(images), labels).backward()
        optimizer.step()
    grads = {name: p.grad for name, p in model.named_parameters()}
    assert all(g is not None and g.abs().sum() > 0 for g in grads.values()), [n for n, g in grads.items() if g is None]
    assert model.patch_projection.weight.grad.shape == (64, 1, 2, 2)


def test_cls_state_sees_every_patch():
    # No mask: changing one corner patch changes the CLS output.
    torch.manual_seed(0)
    model = ViT(_config(4)).eval()
    torch.nn.init.normal_(model.head.weight)
    images = torch.randn(1, 1, 28, 28)
    changed = images.clone()
    changed[..., 24:, 24:] += 1.0  # the last patch
    assert not torch.allclose(model(images), model(changed))


def test_bad_configs_and_inputs():
    with pytest.raises(InvalidValueError, match="image height 28 is not divisible by patch_size 5"):
        _config(5)
    with pytest.raises(InvalidValueError, match=r"dim must be a multiple of n_heads \(4\); got 66"):
        _config(dim=66)
    with pytest.raises(InvalidValueError, match="n_classes must be >= 2; got 1"):
        _config(n_classes=1)
    with pytest.raises(InvalidValueError, match="n_layers must be >= 0; got -1"):
        _config(n_layers=-1)
    with pytest.raises(InvalidValueError, match=r"input image 3x28x28 does not match the model's 1x28x28"):
        ViT(_config(4))(torch.zeros(1, 3, 28, 28))
