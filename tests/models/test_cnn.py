"""The small CNN (the ViT's rival in arena.data_scale): its parameters counted by hand, its forward
pass against the same layers spelt out with torch.nn.functional, and configs that cannot be built."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError
from embedlab.models.cnn import CNNConfig, SmallCNN
from embedlab.models.vit import ViT, ViTConfig


def test_the_parameters_counted_by_hand_are_about_the_small_vits():
    model = SmallCNN(CNNConfig(28, 1, (32, 64, 128), n_classes=10))
    convs = (9 * 1 * 32 + 32) + (9 * 32 * 64 + 64) + (9 * 64 * 128 + 128)  # 3×3 kernels and biases
    assert model.parameter_count() == convs + 128 * 10 + 10 == 93_962
    vit = ViT(ViTConfig(28, 4, 1, dim=64, n_layers=2, n_heads=4, n_classes=10))
    assert vit.parameter_count() == 105_098
    assert 0.85 < model.parameter_count() / vit.parameter_count() < 0.95  # "of about its size"


def test_the_forward_pass_is_conv_relu_pool_then_an_average_and_a_linear_map():
    torch.manual_seed(0)
    config = CNNConfig(9, 2, (3, 4, 5), n_classes=6)  # 9 -> 4 -> 2 px: odd sides floor-halved
    assert config.sides == (9, 4, 2)
    model = SmallCNN(config)
    images = torch.randn(7, 2, 9, 9)
    x = images
    for i, conv in enumerate(model.convs):
        x = F.relu(F.conv2d(x, conv.weight, conv.bias, padding=1))
        if i < 2:
            x = F.max_pool2d(x, 2)
    assert x.shape == (7, 5, 2, 2)
    expected = x.mean(dim=(2, 3)) @ model.head.weight.T + model.head.bias
    torch.testing.assert_close(model(images), expected)


def test_one_training_step_reaches_every_parameter():
    model = SmallCNN(CNNConfig(28, 1, (8, 16), n_classes=10))
    loss = F.cross_entropy(model(torch.randn(4, 1, 28, 28)), torch.tensor([0, 3, 9, 5]))
    loss.backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"channels": ()}, "channels must be one or more positive ints"),
        ({"channels": (8, 0)}, "channels must be one or more positive ints"),
        ({"image_size": 3, "channels": (4, 4, 4)}, "image_size 3 is too small for 2 halvings; it must be at least 4"),
        ({"n_classes": 1}, "n_classes"),
    ],
)
def test_configs_that_cannot_be_built_are_refused(changes, message):
    fields = {"image_size": 28, "in_channels": 1, "channels": (8, 16), "n_classes": 10}
    with pytest.raises(InvalidValueError, match=message):
        CNNConfig(**{**fields, **changes})
