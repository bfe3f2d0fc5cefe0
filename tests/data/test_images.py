"""Built-in photographs and patches: scikit-learn's own pixels, Pillow's PNG decoder, torch's
conv2d and a plain matmul as oracles."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.datasets import load_sample_image

from embedlab.data.images import SAMPLE_IMAGES, image_tensor, sample_image
from embedlab.errors import InvalidValueError, UnknownNameError

# A (C·P·P,) · (C·P·P,) dot in float32, taken by conv2d and by a matmul in different orders:
# at 3,072 terms of size ≤ 1 the rounding differences stay far below 1e-5.
CONV_ATOL = 1e-5
# One uniform draw's std is bound/√3; over ≥ 36,000 draws its estimate is within ~0.5% of that.
STD_RTOL = 0.03
# Lanczos resizing keeps an image's mean colour to within a grey level or two (of 255).
MEAN_LEVELS = 2.0
PATCH_SIZES = (8, 14, 16, 32)


def _sklearn_square(name: str) -> np.ndarray:
    """The oracle: scikit-learn's pixels, with the largest centred square cut out by hand."""
    full = load_sample_image(f"{name}.jpg")  # (427, 640, 3)
    h, w, _ = full.shape
    side = min(h, w)
    top, left = (h - side) // 2, (w - side) // 2
    return full[top : top + side, left : left + side]


@pytest.mark.parametrize("name", SAMPLE_IMAGES)
def test_full_size_square_is_sklearns_pixels(name):
    square = _sklearn_square(name)
    assert square.shape == (427, 427, 3)
    np.testing.assert_array_equal(sample_image(name, 427), square)  # no resampling at the file's size


@pytest.mark.parametrize("name", SAMPLE_IMAGES)
def test_resized_image_is_the_same_picture(name):
    pixels = sample_image(name, 224)
    assert pixels.shape == (224, 224, 3) and pixels.dtype == np.uint8
    assert not pixels.flags.writeable  # the cached array is shared
    mean = pixels.reshape(-1, 3).mean(0)
    np.testing.assert_allclose(mean, _sklearn_square(name).reshape(-1, 3).mean(0), atol=MEAN_LEVELS)


def test_the_two_photographs_differ():
    assert np.abs(sample_image("china").astype(int) - sample_image("flower").astype(int)).mean() > 20


@pytest.mark.parametrize("size, message", [(31, "between 32 and 448; got 31"), (449, "got 449"), (2.5, "integer")])
def test_size_outside_limits_names_them(size, message):
    with pytest.raises(InvalidValueError, match=message):
        sample_image("china", size)


def test_unknown_image_lists_the_known():
    with pytest.raises(UnknownNameError, match="unknown image 'cat'; known: china, flower"):
        sample_image("cat")


def test_image_tensor_is_channel_first_in_unit_range():
    pixels = sample_image("flower", 64)
    x = image_tensor(pixels)
    assert x.shape == (1, 3, 64, 64) and x.dtype == torch.float32
    assert 0.0 <= x.min() and x.max() <= 1.0
    y, col = 10, 40
    for c in range(3):
        assert x[0, c, y, col].item() == pytest.approx(pixels[y, col, c] / 255)
    with pytest.raises(InvalidValueError, match="uint8"):
        image_tensor(pixels.astype(np.float32))
