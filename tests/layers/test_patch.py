"""PatchEmbedding, ViTEmbedding: the lesson image, conv vs unfold, einsum and HF oracles."""

from __future__ import annotations

import pytest
import torch
from transformers import ViTConfig
from transformers.models.vit.modeling_vit import ViTEmbeddings, ViTPatchEmbeddings

from embedlab.errors import InvalidValueError
from embedlab.layers.patch import IMPLS, PatchEmbedding, ViTEmbedding, patch_grid, patchify

# conv and unfold+matmul add the same float32 products in different orders: rounding only.
IMPL_ATOL = 1e-5
# Against an oracle computing the same float32 sums another way (einsum, transformers' conv).
ORACLE_ATOL = 1e-5
# std of 197·768 = 151k draws from N(0, 0.02²): its own standard error is ~0.02/√(2·151k) ≈ 4e-5.
INIT_STD_TOL = 1e-3
# Weight gradients sum the same products over B·N = 32 patches in two orders; magnitudes ~10.
GRAD_ATOL = 1e-4

# (img_size, patch_size, in_channels, dim): square and non-square, grayscale and RGB.
SIZES = [
    (6, 3, 1, 4),
    ((6, 9), 3, 1, 5),
    ((32, 48), 8, 3, 16),
    ((12, 20), 4, 3, 7),
    (64, 16, 3, 32),
    (224, 16, 3, 64),
]

# The lesson's 6×6 grayscale image (pixel values 0-9).
LESSON_IMAGE = [
    [1, 2, 3, 7, 8, 9],
    [4, 5, 0, 6, 5, 4],
    [7, 8, 1, 3, 2, 1],
    [2, 3, 4, 8, 7, 6],
    [5, 6, 7, 5, 4, 3],
    [8, 9, 0, 2, 1, 0],
]
# Its four 3×3 patches read row by row, written out by hand from the image above.
LESSON_PATCHES = [
    [1, 2, 3, 4, 5, 0, 7, 8, 1],  # patch 0: top-left
    [7, 8, 9, 6, 5, 4, 3, 2, 1],  # patch 1: top-right
    [2, 3, 4, 5, 6, 7, 8, 9, 0],  # patch 2: bottom-left
    [8, 7, 6, 5, 4, 3, 2, 1, 0],  # patch 3: bottom-right
]


def _image(img_size, in_channels, batch=2, seed=0):
    h, w = (img_size, img_size) if isinstance(img_size, int) else img_size
    return torch.randn(batch, in_channels, h, w, generator=torch.Generator().manual_seed(seed))


def _cut_patches_by_hand(images: torch.Tensor, p: int) -> torch.Tensor:
    """(B, C, H, W) -> (B, N, C, P, P) by explicit slicing, row-major over the grid."""
    _, _, h, w = images.shape
    blocks = [images[:, :, i : i + p, j : j + p] for i in range(0, h, p) for j in range(0, w, p)]
    return torch.stack(blocks, dim=1)


# --- sizes --------------------------------------------------------------------------------


@pytest.mark.parametrize(("patch_size", "n", "patch_dim"), [(8, 784, 192), (16, 196, 768), (32, 49, 3072)])
def test_patch_count_on_224(patch_size, n, patch_dim):
    pe = PatchEmbedding(224, patch_size, 3, 8)
    assert pe.num_patches == n
    assert pe.grid_size == (224 // patch_size,) * 2
    assert pe.patch_dim == patch_dim


def test_non_square_grid():
    grid = patch_grid((32, 48), 8, 3)
    assert grid == ((32, 48), (4, 6), 24, 192)
    pe = PatchEmbedding((32, 48), 8, 3, 16)
    assert (pe.grid_size, pe.num_patches, pe.patch_dim) == ((4, 6), 24, 192)
    assert pe(_image((32, 48), 3)).shape == (2, 24, 16)


# --- the lesson's tiny image ------------------------------------------------------------------


def test_lesson_patches_match_the_image_blocks():
    # First check the hand-written blocks against the image itself, with plain lists.
    for idx, expected in enumerate(LESSON_PATCHES):
        r, c = divmod(idx, 2)
        block = [LESSON_IMAGE[3 * r + i][3 * c + j] for i in range(3) for j in range(3)]
        assert block == expected
    image = torch.tensor(LESSON_IMAGE, dtype=torch.float32).view(1, 1, 6, 6)
    patches = patchify(image, 3)  # (1, 4, 9)
    assert patches.shape == (1, 4, 9)
    assert patches[0].tolist() == [[float(v) for v in p] for p in LESSON_PATCHES]


@pytest.mark.parametrize("impl", IMPLS)
def test_lesson_projection_is_patch_times_weight(impl):
    pe = PatchEmbedding(6, 3, 1, 4, impl=impl)
    image = torch.tensor(LESSON_IMAGE, dtype=torch.float32).view(1, 1, 6, 6)
    w = pe.proj.weight.detach().view(4, 9)  # (D, C·P·P): the lesson's W (9, 4) transposed
    expected = torch.tensor(LESSON_PATCHES, dtype=torch.float32) @ w.T + pe.proj.bias.detach()
    assert pe.num_patches == 4 and pe.patch_dim == 9
    torch.testing.assert_close(pe(image)[0], expected, atol=IMPL_ATOL, rtol=0)


# --- conv vs unfold, and the oracles -----------------------------------------------------------


@pytest.mark.parametrize(("img_size", "patch_size", "in_channels", "dim"), SIZES)
def test_conv_and_unfold_agree(img_size, patch_size, in_channels, dim):
    pe = PatchEmbedding(img_size, patch_size, in_channels, dim)
    x = _image(img_size, in_channels)
    conv = pe(x)
    pe.impl = "unfold"
    unfold = pe(x)
    assert conv.shape == unfold.shape == (2, pe.num_patches, dim)
    torch.testing.assert_close(conv, unfold, atol=IMPL_ATOL, rtol=0)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize(("img_size", "patch_size", "in_channels", "dim"), SIZES)
def test_matches_einsum_over_hand_cut_patches(impl, img_size, patch_size, in_channels, dim):
    pe = PatchEmbedding(img_size, patch_size, in_channels, dim, impl=impl)
    x = _image(img_size, in_channels, seed=1)
    blocks = _cut_patches_by_hand(x, patch_size)  # (B, N, C, P, P)
    expected = torch.einsum("bncpq,dcpq->bnd", blocks, pe.proj.weight) + pe.proj.bias
    torch.testing.assert_close(pe(x), expected, atol=ORACLE_ATOL, rtol=0)
    # patchify is the same cut, flattened in (C, P, P) order.
    torch.testing.assert_close(patchify(x, patch_size), blocks.flatten(2), atol=0, rtol=0)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize(("img_size", "patch_size", "in_channels", "dim"), SIZES)
def test_matches_transformers_vit_patch_embeddings(impl, img_size, patch_size, in_channels, dim):
    config = ViTConfig(image_size=img_size, patch_size=patch_size, num_channels=in_channels, hidden_size=dim)
    hf = ViTPatchEmbeddings(config)
    pe = PatchEmbedding(img_size, patch_size, in_channels, dim, impl=impl)
    with torch.no_grad():
        pe.proj.weight.copy_(hf.projection.weight)
        pe.proj.bias.copy_(hf.projection.bias)
    assert pe.num_patches == hf.num_patches
    x = _image(img_size, in_channels, seed=2)
    with torch.no_grad():
        torch.testing.assert_close(pe(x), hf(x), atol=ORACLE_ATOL, rtol=0)


@pytest.mark.parametrize("impl", IMPLS)
def test_without_bias(impl):
    pe = PatchEmbedding((12, 20), 4, 3, 7, impl=impl, bias=False)
    assert pe.proj.bias is None
    x = _image((12, 20), 3)
    expected = torch.einsum("bncpq,dcpq->bnd", _cut_patches_by_hand(x, 4), pe.proj.weight)
    torch.testing.assert_close(pe(x), expected, atol=ORACLE_ATOL, rtol=0)


def test_both_impls_share_one_weight_and_get_the_same_gradient():
    pe = PatchEmbedding(32, 8, 3, 16)
    assert len(list(pe.parameters())) == 2  # proj.weight and proj.bias, whatever the impl
    x = _image(32, 3)
    target = torch.randn(2, 16, 16, generator=torch.Generator().manual_seed(3))
    grads = {}
    for impl in IMPLS:
        pe.impl = impl
        pe.zero_grad()
        ((pe(x) - target) ** 2).sum().backward()
        grads[impl] = (pe.proj.weight.grad.clone(), pe.proj.bias.grad.clone())
    assert grads["conv"][0].abs().sum() > 0
    for g_conv, g_unfold in zip(grads["conv"], grads["unfold"], strict=True):
        torch.testing.assert_close(g_conv, g_unfold, atol=GRAD_ATOL, rtol=0)


@pytest.mark.parametrize("impl", IMPLS)
def test_dtype_is_respected(impl):
    pe = PatchEmbedding(8, 4, 1, 3, impl=impl, dtype=torch.float64)
    out = pe(torch.randn(1, 1, 8, 8, dtype=torch.float64))
    assert out.dtype == torch.float64 and out.shape == (1, 4, 3)


# --- ViTEmbedding -------------------------------------------------------------------------------


def test_vit_embedding_shape_and_parts():
    vit = ViTEmbedding(224, 16, 3, 768)
    assert vit.cls_token.shape == (1, 1, 768)
    assert vit.pos_embed.shape == (1, 197, 768)
    assert vit.patch.num_patches == 196
    x = _image(224, 3)
    out = vit(x)  # (2, 197, 768)
    assert out.shape == (2, 197, 768)
    # Position 0 is the CLS token plus its position; the rest are the patches plus theirs.
    with torch.no_grad():
        cls_row = vit.cls_token[0, 0] + vit.pos_embed[0, 0]  # (D,)
        torch.testing.assert_close(out[:, 0], cls_row.expand(2, -1))
        torch.testing.assert_close(out[:, 1:], vit.patch(x) + vit.pos_embed[:, 1:])


def test_vit_embedding_init_std():
    torch.manual_seed(0)
    vit = ViTEmbedding(224, 16, 3, 768)
    assert abs(vit.pos_embed.std().item() - 0.02) < INIT_STD_TOL
    assert abs(vit.cls_token.std().item() - 0.02) < 0.01  # only 768 draws: a looser bound


def test_vit_embedding_gradient_reaches_cls_and_positions():
    vit = ViTEmbedding((32, 48), 8, 3, 16)
    out = vit(_image((32, 48), 3))  # (2, 25, 16)
    assert out.shape == (2, 25, 16)
    (out**2).sum().backward()
    for p in (vit.cls_token, vit.pos_embed, vit.patch.proj.weight, vit.patch.proj.bias):
        assert p.grad is not None and torch.isfinite(p.grad).all()
        assert p.grad.abs().sum() > 0
    # Every position row is used: each gets a gradient.
    assert (vit.pos_embed.grad[0].abs().sum(dim=-1) > 0).all()


def test_vit_embedding_matches_transformers():
    config = ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=16, hidden_dropout_prob=0.0)
    hf = ViTEmbeddings(config).eval()
    vit = ViTEmbedding(32, 8, 3, 16)
    with torch.no_grad():
        vit.cls_token.copy_(hf.cls_token)
        vit.pos_embed.copy_(hf.position_embeddings)
        vit.patch.proj.weight.copy_(hf.patch_embeddings.projection.weight)
        vit.patch.proj.bias.copy_(hf.patch_embeddings.projection.bias)
        x = _image(32, 3, seed=4)
        torch.testing.assert_close(vit(x), hf(x), atol=ORACLE_ATOL, rtol=0)


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("img_size", "patch_size", "named"),
    [(225, 16, ("225", "16")), ((224, 30), 16, ("30", "16")), (8, 16, ("8", "16"))],
)
def test_indivisible_image_raises_naming_both(img_size, patch_size, named):
    with pytest.raises(InvalidValueError) as err:
        PatchEmbedding(img_size, patch_size, 3, 8)
    for value in named:
        assert value in str(err.value)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize(("shape", "got"), [((1, 3, 225, 224), "3x225x224"), ((1, 1, 224, 224), "1x224x224")])
def test_wrong_image_shape_raises_naming_both(impl, shape, got):
    pe = PatchEmbedding(224, 16, 3, 8, impl=impl)
    with pytest.raises(InvalidValueError) as err:
        pe(torch.zeros(shape))
    assert got in str(err.value) and "3x224x224" in str(err.value)


@pytest.mark.parametrize("impl", IMPLS)
def test_non_4d_input_raises(impl):
    pe = PatchEmbedding(224, 16, 3, 8, impl=impl)
    with pytest.raises(InvalidValueError, match=r"4-D.*\(3, 224, 224\)"):
        pe(torch.zeros(3, 224, 224))


def test_bad_arguments_raise():
    with pytest.raises(InvalidValueError, match="impl"):
        PatchEmbedding(224, 16, 3, 8, impl="linear")
    with pytest.raises(InvalidValueError, match="patch_size"):
        PatchEmbedding(224, 0, 3, 8)
    with pytest.raises(InvalidValueError, match="img_size"):
        PatchEmbedding((224, 224, 3), 16, 3, 8)
    with pytest.raises(InvalidValueError, match="9 is not divisible by patch_size 2"):
        patchify(torch.zeros(1, 1, 8, 9), 2)
