"""Quotient-remainder tables: the paper's uniqueness property, hand-worked rows for each op."""

from __future__ import annotations

import pytest
import torch

from embedlab.errors import InvalidValueError
from embedlab.layers import QuotientRemainderEmbedding


def _set(emb: QuotientRemainderEmbedding, quotient: torch.Tensor, remainder: torch.Tensor) -> None:
    with torch.no_grad():
        emb.quotient.copy_(quotient)
        emb.remainder.copy_(remainder)


def test_the_docstrings_example():
    emb = QuotientRemainderEmbedding(10, 2, buckets=4, op="concat")  # Q (3, 1), R (4, 1)
    _set(emb, torch.tensor([[0.0], [1.0], [2.0]]), torch.tensor([[0.0], [1.0], [2.0], [3.0]]))
    out = emb(torch.tensor([[9, 5, 6]]))
    assert out.tolist() == [[[2.0, 1.0], [1.0, 1.0], [1.0, 2.0]]]  # (quotient, remainder) of 9, 5, 6


@pytest.mark.parametrize("vocab_size", [1, 10, 97, 1000])
@pytest.mark.parametrize("buckets", [1, 3, 31, "sqrt", "all"])
def test_every_id_gets_its_own_pair(vocab_size, buckets):
    """Shi et al.'s property: distinct ids get distinct (quotient, remainder) pairs, so "add" with
    Q[q] = q·m and R[r] = r gives back the id itself, and "mult" with Q[q] = (q + 1, 1) and
    R[r] = (1, r + 1) gives the pair itself, (q + 1, r + 1)."""
    m = {"sqrt": max(int(vocab_size**0.5), 1), "all": vocab_size}.get(buckets, buckets)
    m = min(m, vocab_size)
    ids = torch.arange(vocab_size)[None]  # (1, V)
    add = QuotientRemainderEmbedding(vocab_size, 1, buckets=m, op="add")
    q = torch.arange(add.quotient.shape[0], dtype=torch.float32)[:, None]
    r = torch.arange(m, dtype=torch.float32)[:, None]
    _set(add, q * m, r)
    assert torch.equal(add(ids)[0, :, 0], ids[0].float())
    mult = QuotientRemainderEmbedding(vocab_size, 2, buckets=m, op="mult")
    _set(mult, torch.cat([q + 1, torch.ones_like(q)], 1), torch.cat([torch.ones_like(r), r + 1], 1))
    pairs = mult(ids)[0] - 1  # (V, 2): each id's (quotient, remainder)
    assert torch.equal(pairs[:, 0] * m + pairs[:, 1], ids[0].float())
    assert len(set(map(tuple, pairs.tolist()))) == vocab_size


@pytest.mark.parametrize(("op", "width"), [("mult", 8), ("add", 8), ("concat", 4)])
def test_shapes_and_parameters(op, width):
    emb = QuotientRemainderEmbedding(1000, 8, buckets=32, op=op)
    assert emb.quotient.shape == (32, width)  # ceil(1000 / 32) = 32
    assert emb.remainder.shape == (32, width)
    assert emb(torch.randint(0, 1000, (2, 5))).shape == (2, 5, 8)


@pytest.mark.parametrize("op", ["mult", "add", "concat"])
def test_rows_start_with_a_token_tables_spread(op):
    emb = QuotientRemainderEmbedding(40_000, 64, buckets=200, op=op)
    assert emb(torch.arange(40_000)[None]).std().item() == pytest.approx(0.02, rel=0.1)


def test_mult_gradient_is_the_other_row():
    # torch autograd through e = Q[q] * R[r]: d sum(e) / d Q[q] = R[r]
    emb = QuotientRemainderEmbedding(10, 3, buckets=4)
    emb(torch.tensor([[9]])).sum().backward()
    assert torch.allclose(emb.quotient.grad[2], emb.remainder[1].detach())
    assert torch.allclose(emb.remainder.grad[1], emb.quotient[2].detach())
    assert torch.count_nonzero(emb.quotient.grad.abs().sum(-1)) == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(buckets=0), "qr_buckets must be between 1 and 10; got 0"),
        (dict(buckets=11), "qr_buckets must be between 1 and 10; got 11"),
        (dict(buckets=3, op="dot"), "qr_op must be one of mult, add, concat; got 'dot'"),
        (dict(buckets=3, op="concat", dim=5), "dim must be even for concat .*; got 5"),
    ],
)
def test_bad_sizes(kwargs, message):
    kwargs = {"dim": 4, **kwargs}
    with pytest.raises(InvalidValueError, match=message):
        QuotientRemainderEmbedding(10, **kwargs)


def test_bad_ids():
    emb = QuotientRemainderEmbedding(10, 4, buckets=3)
    with pytest.raises(InvalidValueError, match=r"token id 10 is out of range: vocab_size is 10 \(allowed 0\.\.9\)"):
        emb(torch.tensor([[1, 10]]))
    assert repr(emb) == "QuotientRemainderEmbedding(10, 4, buckets=3, op='mult')"
