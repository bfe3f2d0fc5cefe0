"""sims.size: a layout sent back field by field is counted as sizing counts it, for every preset;
the page's bounds are refused naming the field."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from embedlab.errors import InvalidValueError
from embedlab.sims.size import HIGHS, LIMITS, MAX_DIM, MAX_IMAGE, MAX_VOCAB, presets, table_size
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
