"""/api/size: a preset's whole layout, sent back as the page sends it, is what embedlab.sizing counts for
the preset (ViT and BERT's segments included); an image layout; the answer's documented fields."""

from __future__ import annotations

import pytest

from embedlab.files import json_safe
from embedlab.sizing import PRESETS, count


@pytest.mark.parametrize("dtype", ["fp32", "int8"])
@pytest.mark.parametrize("name", PRESETS)
def test_a_presets_layout_sent_back_is_its_count(client, name, dtype):
    layout = client.get("/api/size/presets").json()[name]
    r = client.get("/api/size", params={**layout, "dtype": dtype})
    assert r.status_code == 200, r.text
    assert r.json() == json_safe(count(PRESETS[name], dtype))


def test_the_issues_two_presets(client):
    presets = client.get("/api/size/presets").json()
    bert = client.get("/api/size", params=presets["bert-base"]).json()
    assert bert["total_params"] == 23_835_648 and bert["segment_params"] == 1_536  # the segment table counts
    vit16, vit32 = (client.get("/api/size", params=presets[name]).json() for name in ("vit-b-16", "vit-b-32"))
    assert (vit16["n_patches"], vit32["n_patches"]) == (196, 49) and vit16["token_params"] == 0
    assert vit16["total_params"] - vit32["total_params"] == (197 - 50) * 768 + 3 * (16**2 - 32**2) * 768


def test_the_answer_is_documented_field_by_field(client):
    spec = client.get("/openapi.json").json()
    report = spec["components"]["schemas"]["SizeReport"]["properties"]
    assert report["n_patches"]["description"] == "N = (H / P)², 0 for text"
    assert set(report) == set(json_safe(count(PRESETS["gpt2"])))
    layout = spec["components"]["schemas"]["EmbeddingLayout"]["properties"]
    assert set(layout) == set(client.get("/api/size/presets").json()["gpt2"])


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"vocab_size": 0, "image_size": 224, "patch_size": 15}, 400, "image_size must be a multiple of patch_size 15"),
        ({"image_size": 224, "patch_size": 16}, 400, "vocab_size must be 0 for an image layout"),
        ({"patch_size": -1}, 422, "patch_size: "),
        ({"in_channels": 0}, 422, "in_channels: "),
    ],
)
def test_bad_layouts_are_4xx_naming_the_field(client, params, status, message):
    r = client.get("/api/size", params=params)
    assert r.status_code == status and message in r.json()["error"], r.text
