"""SegmentEmbedding: a tiny lookup table with its own error wording."""

from __future__ import annotations

import pytest
import torch

from embedlab.errors import InvalidValueError
from embedlab.layers.segment import SegmentEmbedding


def test_lookup_and_gradient():
    seg = SegmentEmbedding(2, 4)
    assert seg.n_segments == 2 and seg.weight.shape == (2, 4)
    ids = torch.tensor([[0, 0, 1], [1, 1, 1]])
    out = seg(ids)
    torch.testing.assert_close(out, seg.weight[ids])
    out.sum().backward()
    torch.testing.assert_close(seg.weight.grad, torch.tensor([[2.0] * 4, [4.0] * 4]))


def test_bad_segment_ids_and_sizes():
    with pytest.raises(InvalidValueError, match=r"segment id 2 is out of range: n_segments is 2 \(allowed 0..1\)"):
        SegmentEmbedding(2, 4)(torch.tensor([0, 2]))
    with pytest.raises(InvalidValueError, match="n_segments must be >= 1; got 0"):
        SegmentEmbedding(0, 4)
