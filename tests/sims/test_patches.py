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
from embedlab.sims.patches import cut_patch, patch_view, photo_png, png_bytes, seeded_patch_embedding, tiling

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
