"""/api/size: a preset's whole layout, sent back as the page sends it, is what embedlab.sizing counts for
the preset (ViT and BERT's segments included); an image layout; the answer's documented fields; the
activations X (B, T, D) beside the tables, as embedlab.sizing.activation_bytes counts them."""

from __future__ import annotations

import pytest

from embedlab.files import json_safe
from embedlab.sizing import PRESETS, activation_bytes, count


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


@pytest.mark.parametrize("dtype", ["fp32", "fp16"])
@pytest.mark.parametrize("name", PRESETS)
def test_a_presets_activations_are_sizings(client, name, dtype):
    layout = client.get("/api/size/presets").json()[name]
    seq = None if PRESETS[name].is_image else min(512, PRESETS[name].max_len or 512)
    params = {**layout, "dtype": dtype, "batch": 4} | ({} if seq is None else {"seq": seq})
    r = client.get("/api/size/activations", params=params)
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["bytes"] == activation_bytes(PRESETS[name], 4, seq, dtype)
    assert got["param_bytes"] == count(PRESETS[name], dtype).bytes and got["values"] == 4 * got["seq"] * got["dim"]
    assert got["seq"] == (PRESETS[name].n_patches + 1 if seq is None else seq)


def test_bert_base_activations_by_hand(client):
    bert = client.get("/api/size/presets").json()["bert-base"]
    got = client.get("/api/size/activations", params={**bert, "batch": 32, "seq": 512}).json()
    assert got == {
        "batch": 32,
        "seq": 512,
        "dim": 768,
        "dtype": "fp32",
        "values": 12_582_912,
        "bytes": 50_331_648,
        "param_bytes": 95_342_592,
    }


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"max_len": 512, "batch": 2, "seq": 513}, 400, "seq must be at most max_len 512"),
        ({"batch": 2}, 400, "a text layout needs seq"),
        ({"vocab_size": 0, "image_size": 224, "patch_size": 16, "batch": 2, "seq": 8}, 400, "N + 1 = 197"),
        ({"batch": 0, "seq": 8}, 422, "batch: "),
        ({"batch": 2, "seq": 0}, 422, "seq: "),
    ],
)
def test_bad_activations_are_4xx_naming_the_value(client, params, status, message):
    r = client.get("/api/size/activations", params=params)
    assert r.status_code == status and message in r.json()["error"], r.text


@pytest.mark.parametrize(("dsub", "qnorm"), [(2, False), (8, True), (5, False)])
def test_the_token_table_stored_is_sizings(client, dsub, qnorm):
    from embedlab.sizing import stored_bytes

    bert = client.get("/api/size/presets").json()["bert-base"]
    r = client.get("/api/size/stored", params={**bert, "dsub": dsub, "qnorm": qnorm})
    assert r.status_code == 200, r.text
    assert r.json() == json_safe(stored_bytes(30522, 768, dsub, qnorm))
    q = r.json()["quantized"]
    assert q["bytes"] == 30522 * -(-768 // dsub) + 256 * 768 * 4 + (30522 + 1024 if qnorm else 0)


def test_the_token_table_stored_refuses_what_it_cannot_size(client):
    small = client.get("/api/size/stored", params={"vocab_size": 100, "dim": 8}).json()
    assert small["fp32"] == 3200 and small["quantized"] is None  # too few rows for 256 centroids
    r = client.get("/api/size/stored", params={"vocab_size": 0, "image_size": 224, "patch_size": 16})
    assert r.status_code == 400 and "an image layout has no token table" in r.json()["error"], r.text
    r = client.get("/api/size/stored", params={"dim": 8, "dsub": 9})
    assert r.status_code == 400 and "dsub must be between 1 and 8; got 9" in r.json()["error"], r.text
    spec = client.get("/openapi.json").json()["components"]["schemas"]
    assert spec["QuantizedBytes"]["properties"]["codes"]["description"] == "rows · nsubq"
