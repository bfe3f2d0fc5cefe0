"""Walking MiniLM's input pipeline: pieces from the real tokenizer, rows from the real tables."""

from __future__ import annotations

import pytest
import torch

from embedlab.errors import InvalidValueError
from embedlab.pipeline import Pipeline

FP32 = 1e-5  # float32 LayerNorm against transformers


@pytest.fixture(scope="module")
def pipe():
    return Pipeline.load("minilm")


def test_walk_pieces_rows_and_norms(pipe, bert_oracle):
    walk = pipe.walk("the cat sat on the mat", pair="a dog")
    assert walk.pieces == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]", "a", "dog", "[SEP]"]
    assert walk.segment_ids == [0] * 8 + [1] * 3  # no padding to the saved tokenizer's 128
    rows = walk.rows()
    T = len(walk.ids)
    assert all(r.shape == (T, 384) for r in rows.values())
    torch.testing.assert_close(rows["total"], rows["token"] + rows["position"] + rows["segment"])
    ids, seg = torch.tensor([walk.ids]), torch.tensor([walk.segment_ids])
    with torch.no_grad():
        expected = bert_oracle.embeddings(ids, token_type_ids=seg)[0]
    torch.testing.assert_close(rows["output"], expected, atol=FP32, rtol=0)
    norms = walk.norms()
    assert norms["token"][2] == pytest.approx(rows["token"][2].norm().item())
    # the same word at two positions: same token row, different position rows
    assert torch.equal(rows["token"][1], rows["token"][5])
    assert not torch.equal(rows["position"][1], rows["position"][5])
    data = walk.to_dict()
    assert data["positions"] == list(range(T)) and len(data["rows"]["output"]) == T


def test_walk_rejects_empty_and_too_long_text(pipe):
    with pytest.raises(InvalidValueError, match="text must be a non-empty string"):
        pipe.walk("   ")
    with pytest.raises(InvalidValueError, match="the text is 602 tokens long; this model takes at most 512"):
        pipe.walk("cat " * 600)
