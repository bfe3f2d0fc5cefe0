"""The patches simulation: Pillow's PNG decoder, torch's conv2d and a plain matmul as oracles."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

from embedlab.data.images import image_tensor, sample_image
from embedlab.errors import InvalidValueError
from embedlab.layers.patch import PatchEmbedding
from embedlab.sims.patches import (
    cut_patch,
    patch_variance,
    patch_view,
    photo_png,
    png_bytes,
    seeded_patch_embedding,
    tiling,
    variance_view,
)

# A (C·P·P,) · (C·P·P,) dot in float32, taken by conv2d and by a matmul in different orders:
# at 3,072 terms of size ≤ 1 the rounding differences stay far below 1e-5.
CONV_ATOL = 1e-5
# One uniform draw's std is bound/√3; over ≥ 36,000 draws its estimate is within ~0.5% of that.
STD_RTOL = 0.03
# Lanczos resizing keeps an image's mean colour to within a grey level or two (of 255).
MEAN_LEVELS = 2.0
PATCH_SIZES = (8, 14, 16, 32)


def test_png_decodes_to_the_same_pixels():
    pixels = sample_image("china", 96)
    decoded = np.asarray(Image.open(io.BytesIO(png_bytes(pixels))))
    np.testing.assert_array_equal(decoded, pixels)


def test_seeded_embedding_is_reproducible_and_leaves_global_rng_alone():
    state = torch.get_rng_state()
    a = seeded_patch_embedding(224, 16, 192, seed=0)
    b = seeded_patch_embedding(224, 16, 192, seed=0)
    c = seeded_patch_embedding(224, 16, 192, seed=1)
    assert torch.equal(torch.get_rng_state(), state)
    torch.testing.assert_close(a.proj.weight, b.proj.weight, rtol=0, atol=0)
    torch.testing.assert_close(a.proj.bias, b.proj.bias, rtol=0, atol=0)
    assert not torch.allclose(a.proj.weight, c.proj.weight)


def test_seeded_embedding_has_conv2ds_init_distribution():
    embed = seeded_patch_embedding(224, 16, 192, seed=0)
    bound = 1 / math.sqrt(3 * 16 * 16)  # Conv2d's U(±1/√fan_in)
    w = embed.proj.weight
    assert w.shape == (192, 3, 16, 16) and w.abs().max() <= bound
    assert w.std().item() == pytest.approx(bound / math.sqrt(3), rel=STD_RTOL)
    assert embed.proj.bias.abs().max() <= bound
    # Oracle: torch's own Conv2d init, drawn from the global generator.
    torch.manual_seed(0)
    reference = PatchEmbedding(224, 16, 3, 192).proj.weight
    assert reference.abs().max() <= bound
    assert w.std().item() == pytest.approx(reference.std().item(), rel=STD_RTOL)


@pytest.mark.parametrize("patch_size", PATCH_SIZES)
def test_tiling_of_the_default_image(patch_size):
    t = tiling(224, patch_size, 384)
    side = 224 // patch_size
    assert 224 % patch_size == 0 and t.grid == (side, side)
    assert t.num_patches == side * side and t.attention_scores == t.num_patches**2
    assert t.patch_dim == 3 * patch_size * patch_size
    module = PatchEmbedding(224, patch_size, 3, 384, device="meta")
    assert t.projection_params == sum(p.numel() for p in module.parameters())


def test_lesson_numbers_and_non_dividing_patch():
    t = tiling(224, 16, 768)
    assert (t.num_patches, t.attention_scores, t.patch_dim) == (196, 38_416, 768)
    assert tiling(224, 14, 768).num_patches == 256
    with pytest.raises(InvalidValueError, match="not divisible by patch_size 15"):
        tiling(224, 15, 768)


@pytest.mark.parametrize("patch_size", PATCH_SIZES)
def test_cut_patch_is_the_region_and_its_projection(patch_size):
    pixels = sample_image("china", 224)
    x = image_tensor(pixels)
    embed = seeded_patch_embedding(224, patch_size, 192, seed=3)
    side = 224 // patch_size
    row, col = side - 2, 1
    patch = cut_patch(x, embed, row, col)
    P = patch_size
    assert (patch.index, patch.top, patch.left) == (row * side + col, row * P, col * P)

    # Pixels: the (P, P) square at (top, left), all of red, then green, then blue, row by row.
    region = pixels[row * P : (row + 1) * P, col * P : (col + 1) * P]  # (P, P, 3)
    expected = region.transpose(2, 0, 1).reshape(-1) / 255
    np.testing.assert_allclose(patch.pixels, expected, rtol=0, atol=1e-7)

    # Embedding: the conv's output equals flattened pixels @ Wᵀ + b, and the conv on that square alone.
    w, b = embed.proj.weight.detach(), embed.proj.bias.detach()
    embedding = torch.from_numpy(patch.embedding)
    by_matmul = torch.from_numpy(patch.pixels) @ w.flatten(1).T + b
    torch.testing.assert_close(embedding, by_matmul, atol=CONV_ATOL, rtol=0)
    square = x[:, :, row * P : (row + 1) * P, col * P : (col + 1) * P]
    torch.testing.assert_close(embedding, F.conv2d(square, w, b).flatten(), atol=CONV_ATOL, rtol=0)


def test_the_labs_patch_is_the_seeded_cut():
    view = patch_view("flower", 224, 14, 384, row=5, col=9, seed=2)
    alone = cut_patch(image_tensor(sample_image("flower", 224)), seeded_patch_embedding(224, 14, 384, 2), 5, 9)
    assert (view.image, view.size, view.patch_size, view.dim, view.seed) == ("flower", 224, 14, 384, 2)
    assert view.patch.index == alone.index == 5 * 16 + 9 and view.order == "channel, row, column (C, P, P)"
    assert np.array_equal(view.patch.pixels, alone.pixels) and np.array_equal(view.patch.embedding, alone.embedding)
    assert Image.open(io.BytesIO(photo_png("flower", 64))).size == (64, 64)


def test_cut_patch_outside_the_grid_names_the_range():
    x = image_tensor(sample_image("china", 224))
    embed = seeded_patch_embedding(224, 16, 8)
    with pytest.raises(InvalidValueError, match="patch row must be between 0 and 13; got 14"):
        cut_patch(x, embed, 14, 0)
    with pytest.raises(InvalidValueError, match="patch column must be between 0 and 13; got -1"):
        cut_patch(x, embed, 0, -1)
    with pytest.raises(InvalidValueError, match="one image"):
        cut_patch(torch.cat([x, x]), embed, 0, 0)


def _variance_by_slices(pixels: np.ndarray, P: int) -> np.ndarray:
    """The oracle: np.var of each channel over each patch's slice of the image, averaged over the channels."""
    h, w = pixels.shape[:2]
    return np.array(
        [
            [np.var(pixels[r : r + P, c : c + P] / 255, axis=(0, 1)).mean() for c in range(0, w, P)]
            for r in range(0, h, P)
        ]
    )


@pytest.mark.parametrize("shape, P", [((24, 36, 3), 4), ((24, 36, 3), 12), ((8, 8, 1), 2), ((224, 224, 3), 16)])
def test_patch_variance_is_numpys_over_each_patch(shape, P):
    pixels = np.random.default_rng(0).integers(0, 256, size=shape, dtype=np.uint8)
    variance = patch_variance(pixels, P)
    assert variance.shape == (shape[0] // P, shape[1] // P)
    np.testing.assert_allclose(variance, _variance_by_slices(pixels, P), rtol=1e-12, atol=0)


def test_a_uniform_region_has_no_variance():
    pixels = np.random.default_rng(1).integers(0, 256, size=(32, 32, 3), dtype=np.uint8)
    pixels[:16, 8:24] = [90, 160, 220]  # one colour over patches (0, 1), (0, 2), (1, 1), (1, 2) at P = 8
    variance = patch_variance(pixels, 8)
    flat = np.zeros_like(variance, dtype=bool)
    flat[:2, 1:3] = True
    assert np.all(variance[flat] == 0) and np.all(variance[~flat] > 0)
    assert patch_variance(np.full((16, 16, 3), 7, np.uint8), 4).tolist() == [[0.0] * 4] * 4


def test_patch_variance_refuses_what_it_cannot_cut():
    pixels = np.zeros((24, 36, 3), np.uint8)
    with pytest.raises(InvalidValueError, match="image width 36 is not divisible by patch_size 8"):
        patch_variance(pixels, 8)
    with pytest.raises(InvalidValueError, match="uint8 array"):
        patch_variance(pixels.astype(np.float32), 4)


def test_the_views_lowest_and_highest_are_the_extremes():
    view = variance_view("flower", 224, 14)
    expected = patch_variance(sample_image("flower", 224), 14)
    assert view.variance.shape == (16, 16) and np.array_equal(view.variance, expected)
    for cell, index in ((view.lowest, expected.argmin()), (view.highest, expected.argmax())):
        assert (cell.row, cell.col) == np.unravel_index(index, expected.shape)
        assert cell.variance == expected[cell.row, cell.col]


# The lesson's claim (001 ch. 3) on the photographs at 224 px, P = 16 (docs/lessons.md row 001.3.10).
# Sky, by colour: a patch whose mean is bright (> 0.75 of white) and no less blue than red.
BRIGHT = 0.75


def test_sky_patches_are_flat_and_edges_busy_in_the_photographs():
    china = variance_view("china", 224, 16)
    v = china.variance
    means = sample_image("china", 224).reshape(14, 16, 14, 16, 3).mean(axis=(1, 3)) / 255  # (14, 14, 3)
    sky = (means.mean(axis=-1) > BRIGHT) & (means[..., 2] >= means[..., 0])
    order = np.argsort(v, axis=None, kind="stable")
    tenth = v.size // 10  # 19 of the 196 patches
    assert tenth == 19
    flattest = [np.unravel_index(i, v.shape) for i in order[:tenth]]
    busiest = [np.unravel_index(i, v.shape) for i in order[-tenth:]]
    # The busiest tenth has 2,721 times the variance of the flattest tenth.
    ordered = np.sort(v, axis=None)
    assert round(ordered[-tenth:].mean() / ordered[:tenth].mean()) == 2721
    # The flattest tenth is all sky, in the top 4 rows; the busiest lies on the pagoda (the left half)
    # but for 1 patch of the trees, the busiest of all where a roof edge meets the sky.
    assert all(sky[r, c] and r <= 3 for r, c in flattest)
    assert sum(c <= 7 for _, c in busiest) == 18
    assert (china.lowest.row, china.lowest.col, china.highest.row, china.highest.col) == (0, 13, 4, 6)
    assert (round(china.lowest.variance, 6), round(china.highest.variance, 4)) == (0.00001, 0.0958)
    # flower.jpg has no sky: its flattest patch is the blurred dark background, its busiest the flower's rim.
    flower = variance_view("flower", 224, 16)
    ordered = np.sort(flower.variance, axis=None)
    assert round(ordered[-tenth:].mean() / ordered[:tenth].mean()) == 820
    assert (flower.lowest.row, flower.lowest.col, flower.highest.row, flower.highest.col) == (12, 2, 3, 4)
