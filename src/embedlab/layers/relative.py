"""T5's relative position bias: nothing is added to the token rows; each head adds a learned number,
looked up by the key's offset from the query, to the attention score of that query and key.

Offsets are grouped into buckets (Raffel et al. 2020, "Exploring the Limits of Transfer Learning",
section 2.1: 32 buckets whose ranges grow logarithmically up to an offset of 128, all offsets
beyond sharing one; each head has its own values, shared across layers). T5's Mesh TensorFlow
code splits them so: half of a direction's buckets hold one small distance each, the other half
cover the distances up to `max_distance` in logarithmically growing steps. So the bias tells "next
word" from "two words back" exactly but "40" from "50" not at all, and a model trained on short
texts still has a bucket for any longer offset.

    bias = RelativePositionBias(n_heads=12)                  # encoder: keys on both sides
    scores = q @ k.transpose(-2, -1) + bias(T, T)           # (B, H, T, T) + (1, H, T, T)
    causal = RelativePositionBias(n_heads=12, bidirectional=False)  # decoder: keys behind only

The table is (num_buckets, n_heads): one scalar per bucket and head, 32 × 12 = 384 numbers for
T5-base, shared by every layer of the stack (T5 computes it in the first layer and passes it on).
"""

from __future__ import annotations

import functools
import math

import torch
from torch import nn

from embedlab.errors import InvalidValueError, check_float, check_int, check_integer_dtype, describe

NUM_BUCKETS = 32  # T5's relative_attention_num_buckets
MAX_DISTANCE = 128  # T5's relative_attention_max_distance: offsets this far or farther share a bucket


def relative_position_bucket(
    relative_position: torch.Tensor,
    bidirectional: bool = True,
    num_buckets: int = NUM_BUCKETS,
    max_distance: int = MAX_DISTANCE,
) -> torch.Tensor:
    """(...) int offsets key − query -> (...) int64 bucket ids in [0, num_buckets).

    Bidirectional (encoder): keys behind the query (offset ≤ 0) use buckets [0, n), keys ahead
    [n, 2n), with n = num_buckets // 2. Causal (decoder): all num_buckets = n describe keys behind;
    keys ahead are masked anyway and share bucket 0 with offset 0. Within a direction, distance
    d = |offset| takes bucket d while d < n/2 (exact), then

        n/2 + ⌊(n − n/2) · ln(d / (n/2)) / ln(max_distance / (n/2))⌋, at most n − 1.

    Worked by hand with the defaults (32 buckets, max distance 128). Bidirectional, n = 16, exact
    below 8: a key 20 back is in 8 + ⌊8 · ln(20/8) / ln(128/8)⌋ = 8 + ⌊8 · 0.916 / 2.773⌋ = 8 + ⌊2.64⌋
    = 10; 16 ahead is 16 + 8 + ⌊8 · ln 2 / ln 16⌋ = 16 + 8 + 2 = 26; 200 ahead is the last, 31.
    Causal, n = 32, exact below 16: 20 back is 16 + ⌊16 · ln(20/16) / ln(128/16)⌋ = 16 + ⌊1.72⌋ = 17.

    The floor is decided in whole numbers (see _log_bucket_starts), not on a float32 logarithm as
    transformers and Mesh TensorFlow take it. The two agree at every distance for T5's own settings;
    they part only where the quotient lies within float32 rounding of a whole number (83 causal
    buckets, max distance 1000, distance 796: 38.999998, which float32 rounds up to bucket 41 + 39).

    >>> offsets = torch.tensor([-200, -20, -1, 0, 1, 8, 16, 200])
    >>> relative_position_bucket(offsets).tolist()
    [15, 10, 1, 0, 17, 24, 26, 31]
    >>> relative_position_bucket(offsets, bidirectional=False).tolist()
    [31, 17, 1, 0, 0, 0, 0, 0]
    """
    if not isinstance(relative_position, torch.Tensor):
        raise InvalidValueError(f"relative_position must be an integer tensor; got {describe(relative_position)}")
    check_integer_dtype(relative_position, "relative position")
    n, exact = _sizes(bidirectional, num_buckets, max_distance)
    offset = relative_position.long()
    if bidirectional:
        base = torch.where(offset > 0, n, 0)  # keys ahead of the query use the upper half
        distance = offset.abs()
    else:
        base = torch.zeros_like(offset)
        distance = (-offset).clamp(min=0)  # keys ahead: distance 0, bucket 0
    starts = torch.tensor(_log_bucket_starts(n, exact, max_distance), dtype=torch.long, device=offset.device)
    log_bucket = exact + torch.searchsorted(starts, distance, right=True)  # how many log buckets start at or below d
    return base + torch.where(distance < exact, distance, log_bucket)


@functools.cache
def _log_bucket_starts(n: int, exact: int, max_distance: int) -> tuple[int, ...]:
    """The first distance of each logarithmic bucket after the first, exact + 1 .. n − 1, as whole
    numbers: bucket exact + j starts at the least d with ln(d/exact) / ln(max_distance/exact) ≥ j/m,
    m = n − exact, i.e. d^m · exact^j ≥ max_distance^j · exact^m (compared in Python's exact integers,
    so a quotient that is a whole number, like 8 · ln 2 / ln 16 = 2, is never floored to 1 by rounding).

    >>> _log_bucket_starts(16, 8, 128)   # buckets 9..15; bucket 8 holds 8..11, bucket 15 holds 91 and beyond
    (12, 16, 23, 32, 46, 64, 91)
    """
    m = n - exact
    starts = []
    for j in range(1, m):
        d = max(exact, math.ceil(exact * (max_distance / exact) ** (j / m)) - 1)  # the float guess, one low
        while d**m * exact**j < max_distance**j * exact**m:  # walk up to the exact start
            d += 1
        starts.append(d)
    return tuple(starts)


def _sizes(bidirectional: bool, num_buckets: int, max_distance: int) -> tuple[int, int]:
    """Validate the settings; return the buckets per direction and how many of them are exact."""
    if not isinstance(bidirectional, bool):
        raise InvalidValueError(f"bidirectional must be True or False; got {bidirectional!r}")
    # each direction needs an exact bucket and a logarithmic one: 2 buckets, 4 if they are split
    num_buckets = check_int("num_buckets", num_buckets, low=4 if bidirectional else 2)
    n = num_buckets // 2 if bidirectional else num_buckets
    exact = n // 2
    # the logarithmic buckets run from `exact` to max_distance, so it must lie beyond them
    check_int("max_distance", max_distance, low=exact + 1)
    return n, exact


class RelativePositionBias(nn.Module):
    """(query_length, key_length) -> (1, H, q, k) float bias, added to the attention scores.

    Holds `relative_attention_bias`, an nn.Embedding (num_buckets, n_heads) named as T5 names it,
    so a T5 checkpoint's weight loads as is. Initialised normal with `std` (T5 uses d_model^-0.5).
    `offset` is the number of tokens before the first query (decoding with a cache: query i sits
    at position offset + i, the keys at 0..key_length-1).

    >>> bias = RelativePositionBias(n_heads=2)
    >>> bias(3, 5).shape
    torch.Size([1, 2, 3, 5])
    >>> bias.buckets(2, 3).tolist()   # query 0: keys at offsets 0, 1, 2; query 1: -1, 0, 1
    [[0, 17, 18], [1, 0, 17]]
    """

    def __init__(
        self,
        n_heads: int,
        bidirectional: bool = True,
        num_buckets: int = NUM_BUCKETS,
        max_distance: int = MAX_DISTANCE,
        std: float = 0.02,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.n_heads = check_int("n_heads", n_heads, low=1)
        _sizes(bidirectional, num_buckets, max_distance)
        self.bidirectional = bidirectional
        self.num_buckets = num_buckets
        self.max_distance = max_distance
        self.relative_attention_bias = nn.Embedding(num_buckets, n_heads, device=device, dtype=dtype)
        nn.init.normal_(self.relative_attention_bias.weight, std=check_float("std", std, low=0.0))

    def buckets(self, query_length: int, key_length: int, offset: int = 0) -> torch.Tensor:
        """(q, k) int64 bucket of each query and key: query i at offset + i, key j at j."""
        check_int("query_length", query_length, low=1)
        check_int("key_length", key_length, low=1)
        check_int("offset", offset, low=0)
        device = self.relative_attention_bias.weight.device
        query = torch.arange(offset, offset + query_length, device=device)  # (q,)
        key = torch.arange(key_length, device=device)  # (k,)
        relative = key[None, :] - query[:, None]  # (q, k) key − query: negative looks back
        return relative_position_bucket(relative, self.bidirectional, self.num_buckets, self.max_distance)

    def forward(self, query_length: int, key_length: int, offset: int = 0) -> torch.Tensor:
        """(query_length, key_length) -> (1, H, q, k): broadcasts over a batch of (B, H, q, k) scores."""
        values = self.relative_attention_bias(self.buckets(query_length, key_length, offset))  # (q, k, H)
        return values.permute(2, 0, 1)[None]  # (1, H, q, k)

    def extra_repr(self) -> str:
        direction = "bidirectional" if self.bidirectional else "causal"
        return f"n_heads={self.n_heads}, {direction}, num_buckets={self.num_buckets}, max_distance={self.max_distance}"


__all__ = ["MAX_DISTANCE", "NUM_BUCKETS", "RelativePositionBias", "relative_position_bucket"]
