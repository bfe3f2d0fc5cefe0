"""sims.size: a layout sent back field by field is counted as sizing counts it, for every preset;
the page's bounds are refused naming the field; the activations X (B, T, D) are B·T·D values, worked
by hand for BERT-base and ViT-B/16, beside the tables' bytes."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from embedlab.errors import InvalidValueError
from embedlab.sims.size import (
    HIGHS,
    LIMITS,
    MAX_BATCH,
    MAX_DIM,
    MAX_IMAGE,
    MAX_VOCAB,
    activations,
    layout,
    presets,
    table_size,
)
from embedlab.sizing import BYTES_PER_PARAM, PRESETS, EmbeddingLayout, count


@pytest.mark.parametrize("dtype", BYTES_PER_PARAM)
@pytest.mark.parametrize("name", PRESETS)
def test_a_presets_layout_field_by_field_is_its_count(name, dtype):
    layout = dataclasses.asdict(presets()[name])
    # the page sizes full tables; a huge vocabulary's table kinds are `embedlab size`'s, and no preset uses one
    page = set(inspect.signature(table_size).parameters) - {"dtype"}
    default = dataclasses.asdict(EmbeddingLayout(vocab_size=1, dim=1))
    assert all(layout[field] == default[field] for field in layout.keys() - page), name
    assert table_size(**{k: layout[k] for k in page}, dtype=dtype) == count(PRESETS[name], dtype)


def test_the_lessons_numbers():
    bert = table_size(768, 30522, "learned", max_len=512, n_segments=2)
    assert bert.total_params == 23_835_648 and bert.segment_params == 2 * 768  # not 23,834,112: segments count
    vit = table_size(768, positions="learned", image_size=224, patch_size=16)
    assert (vit.n_patches, vit.position_params, vit.patch_params) == (196, 197 * 768, 3 * 16 * 16 * 768 + 768)
    assert table_size(768, positions="learned", image_size=224, patch_size=32).n_patches == 49  # ViT-B/32: 7 × 7


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"dim": MAX_DIM + 1, "vocab_size": 10}, f"dim must be <= {MAX_DIM}; got {MAX_DIM + 1}"),
        ({"dim": 8, "vocab_size": MAX_VOCAB + 1}, f"vocab_size must be <= {MAX_VOCAB}; got {MAX_VOCAB + 1}"),
        ({"dim": 8, "image_size": 2 * MAX_IMAGE, "patch_size": 16}, f"image_size must be <= {MAX_IMAGE}"),
        ({"dim": 8, "vocab_size": 10, "image_size": 224, "patch_size": 16}, "vocab_size must be 0 for an image layout"),
        ({"dim": 8, "vocab_size": 0}, "vocab_size must be >= 1 for a text layout; got 0"),
    ],
)
def test_bad_layouts_name_the_field(fields, message):
    with pytest.raises(InvalidValueError, match=message):
        table_size(**fields)


def test_every_bound_is_a_limit_the_page_reads():
    for name, high in HIGHS.items():
        assert LIMITS[name][1] == high, name
    assert presets() == PRESETS and presets() is not PRESETS  # a copy: the page cannot change sizing's presets


def test_activations_worked_by_hand():
    bert = activations(layout(768, 30522, "learned", max_len=512, n_segments=2), batch=32, seq=512)
    # 32·512·768 values, 4 bytes each in fp32: about half the tables' 23,835,648 · 4 bytes
    assert (bert.values, bert.bytes, bert.param_bytes) == (12_582_912, 50_331_648, 95_342_592)
    vit = activations(layout(768, positions="learned", image_size=224, patch_size=16), batch=8, dtype="fp16")
    assert (vit.seq, vit.values, vit.bytes) == (197, 8 * 197 * 768, 8 * 197 * 768 * 2)  # T = N + 1 = 196 + CLS


@pytest.mark.parametrize(
    "made, batch, seq, message",
    [
        (layout(64, 100, "learned", max_len=128), 2, 129, "seq must be at most max_len 128"),
        (layout(64, 100), 2, None, "a text layout needs seq"),
        (layout(64, patch_size=16, image_size=32), 2, 5, r"an image layout's T is fixed, N \+ 1 = 5"),
        (layout(64, 100), MAX_BATCH + 1, 8, f"batch must be between 1 and {MAX_BATCH}; got {MAX_BATCH + 1}"),
        (layout(64, 100), 0, 8, "batch must be between 1 and .*; got 0"),
    ],
)
def test_bad_activations_name_the_value(made, batch, seq, message):
    with pytest.raises(InvalidValueError, match=message):
        activations(made, batch, seq)
