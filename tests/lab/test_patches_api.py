"""/api/patches: the photograph, the tiling a patch size implies, one patch's pixels and embedding, every
patch's pixel variance; scikit-learn's pixels, Pillow's decoder, a float64 matmul and np.var as oracles, and
bad input as 4xx JSON."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from sklearn.datasets import load_sample_image

from embedlab.layers.patch import PatchEmbedding
from embedlab.sims.patches import seeded_patch_embedding

# The route's conv runs in float32; the oracle's matmul in float64 over ≤ 3,072 terms of size ≤ 1.
EMBED_ATOL = 1e-5
# JSON carries float32 pixel values k/255 exactly enough to compare at this tolerance.
PIXEL_ATOL = 1e-7
PATCH_SIZES = (8, 14, 16, 32)


def _png(client, **params) -> np.ndarray:
    r = client.get("/api/patches/image.png", params=params)
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    return np.asarray(Image.open(io.BytesIO(r.content)).convert("RGB"))


def test_options_list_the_page_choices(client):
    r = client.get("/api/patches/options").json()
    assert r["images"] == ["china", "flower"] and r["patch_sizes"] == list(PATCH_SIZES)
    assert all(r["size"] % p == 0 for p in r["patch_sizes"])  # every choice works with the default image


def test_image_is_sklearns_photograph(client):
    full = load_sample_image("flower.jpg")  # (427, 640, 3)
    left = (640 - 427) // 2
    np.testing.assert_array_equal(_png(client, image="flower", size=427), full[:, left : left + 427])
    assert _png(client).shape == (224, 224, 3)


@pytest.mark.parametrize("patch_size", PATCH_SIZES)
def test_tiling_counts(client, patch_size):
    r = client.get("/api/patches/tiling", params={"size": 224, "patch_size": patch_size, "dim": 384}).json()
    n = (224 // patch_size) ** 2
    assert r["num_patches"] == n and r["attention_scores"] == n * n
    assert r["grid"] == [224 // patch_size] * 2 and r["patch_dim"] == 3 * patch_size**2
    module = PatchEmbedding(224, patch_size, 3, 384, device="meta")
    assert r["projection_params"] == sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("patch_size", PATCH_SIZES)
def test_patch_pixels_are_the_region_and_embedding_is_their_projection(client, patch_size):
    side = 224 // patch_size
    row, col = side - 1, side // 2
    params = {"image": "china", "size": 224, "patch_size": patch_size, "dim": 192, "row": row, "col": col, "seed": 7}
    answer = client.get("/api/patches/patch", params=params).json()
    assert {k: answer[k] for k in ("image", "size", "patch_size", "dim", "seed")} == {
        k: params[k] for k in ("image", "size", "patch_size", "dim", "seed")
    }
    r, P = answer["patch"], patch_size
    assert (r["index"], r["row"], r["col"], r["top"], r["left"]) == (row * side + col, row, col, row * P, col * P)

    image = _png(client, image="china", size=224)  # what the page shows
    region = image[row * P : (row + 1) * P, col * P : (col + 1) * P]  # (P, P, 3)
    pixels = np.array(r["pixels"])
    np.testing.assert_allclose(pixels, region.transpose(2, 0, 1).reshape(-1) / 255, atol=PIXEL_ATOL, rtol=0)

    embed = seeded_patch_embedding(224, P, 192, seed=7)
    w = embed.proj.weight.detach().double().numpy().reshape(192, -1)  # (D, C·P·P)
    b = embed.proj.bias.detach().double().numpy()
    np.testing.assert_allclose(r["embedding"], pixels @ w.T + b, atol=EMBED_ATOL, rtol=0)


def test_the_seed_and_image_change_the_answer(client):
    base = {"patch_size": 16, "row": 5, "col": 5}

    def patch(**params):
        return client.get("/api/patches/patch", params={**base, **params}).json()["patch"]

    a = patch()
    assert patch()["embedding"] == a["embedding"]
    assert patch(seed=1)["embedding"] != a["embedding"]
    assert patch(image="flower")["pixels"] != a["pixels"]


@pytest.mark.parametrize("image, patch_size", [("china", 16), ("flower", 8), ("china", 32)])
def test_variance_is_numpys_over_each_patch_of_the_shown_image(client, image, patch_size):
    r = client.get("/api/patches/variance", params={"image": image, "size": 224, "patch_size": patch_size}).json()
    assert (r["image"], r["size"], r["patch_size"]) == (image, 224, patch_size)
    shown, P = _png(client, image=image, size=224) / 255, patch_size  # what the page shows
    expected = np.array(
        [[np.var(shown[y : y + P, x : x + P], axis=(0, 1)).mean() for x in range(0, 224, P)] for y in range(0, 224, P)]
    )
    variance = np.array(r["variance"])
    assert variance.shape == (224 // P, 224 // P)
    np.testing.assert_allclose(variance, expected, rtol=1e-9, atol=0)
    for cell, index in ((r["lowest"], expected.argmin()), (r["highest"], expected.argmax())):
        assert (cell["row"], cell["col"]) == np.unravel_index(index, expected.shape)
        assert cell["variance"] == variance[cell["row"], cell["col"]]


@pytest.mark.parametrize(
    "path, params, status, message",
    [
        ("/api/patches/patch", {"image": "cat"}, 404, "unknown image 'cat'; known: china, flower"),
        ("/api/patches/patch", {"image": "x" * 41}, 422, "image: "),
        ("/api/patches/patch", {"size": 1000}, 422, "size: Input should be less than or equal to 448"),
        ("/api/patches/patch", {"size": 16}, 422, "size: Input should be greater than or equal to 32"),
        ("/api/patches/patch", {"patch_size": 15}, 400, "not divisible by patch_size 15"),
        ("/api/patches/patch", {"patch_size": 64}, 422, "patch_size: Input should be less than or equal to 32"),
        ("/api/patches/patch", {"patch_size": 16, "row": 14}, 400, "patch row must be between 0 and 13; got 14"),
        ("/api/patches/patch", {"patch_size": 32, "col": 7}, 400, "patch column must be between 0 and 6; got 7"),
        ("/api/patches/patch", {"col": -1}, 422, "col: "),
        ("/api/patches/patch", {"dim": 0}, 422, "dim: "),
        ("/api/patches/patch", {"dim": 769}, 422, "dim: Input should be less than or equal to 768"),
        ("/api/patches/tiling", {"size": 100, "patch_size": 16}, 400, "image height 100 is not divisible"),
        ("/api/patches/image.png", {"image": "../../etc/passwd"}, 404, "unknown image"),
        ("/api/patches/variance", {"patch_size": 15}, 400, "not divisible by patch_size 15"),
        ("/api/patches/variance", {"image": "cat"}, 404, "unknown image 'cat'"),
        ("/api/patches/variance", {"size": 1000}, 422, "size: Input should be less than or equal to 448"),
    ],
)
def test_bad_input_is_a_json_4xx_naming_the_limit(client, path, params, status, message):
    r = client.get(path, params=params)
    assert r.status_code == status, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text
