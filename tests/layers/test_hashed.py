"""Hashed tables: the ids' rows against mmh3, rows composed by hand, and collision counts at a
128,000-id vocabulary in 1/10 of the rows against the birthday formulas."""

from __future__ import annotations

import math

import mmh3
import pytest
import torch

from embedlab.errors import EmbedlabError, InvalidValueError
from embedlab.hashing.murmur import FLORET_SEED
from embedlab.layers import HashedEmbedding, HashEmbedding, hash_ids

V_BIG, ROWS_BIG = 128_000, 12_800  # the example: a 128K vocabulary at 1/10 of the rows
# Poisson counts stay within this many standard deviations of their mean but once in ~10^6 runs.
SIGMAS = 5
TOL = 1e-6  # float32 sums of a few products


def test_hash_ids_are_murmur3_of_the_ids_bytes():
    # Oracle: the mmh3 package's MurmurHash3_x64_128, first 64 bits, seed FLORET_SEED + i.
    ids = hash_ids(50, 7, 3, first=1)
    for w in range(50):
        key = w.to_bytes(8, "little")
        expected = [mmh3.hash64(key, seed=FLORET_SEED + i, x64arch=True, signed=False)[0] % 7 for i in (1, 2, 3)]
        assert ids[w].tolist() == expected


def test_hashed_embedding_reads_each_ids_bucket_row():
    emb = HashedEmbedding(40, 3, rows=8)
    with torch.no_grad():
        emb.weight.copy_(torch.arange(8.0)[:, None].expand(8, 3))  # row r holds r, r, r
    ids = torch.tensor([[0, 5, 39], [7, 7, 1]])
    out = emb(ids)
    assert out.shape == (2, 3, 3)
    assert torch.equal(out[..., 0], hash_ids(40, 8, 1)[:, 0][ids].float())
    # ids hashed to one row get the same vector: the price of the trick
    b = emb.buckets
    same = [(i, j) for i in range(40) for j in range(i + 1, 40) if b[i] == b[j]]
    assert same  # 40 ids in 8 rows must share
    i, j = same[0]
    assert torch.equal(emb(torch.tensor([[i]])), emb(torch.tensor([[j]])))


def test_hash_embedding_is_the_weighted_sum_of_its_rows():
    emb = HashEmbedding(30, 4, rows=6, hash_count=3, importance_rows=5)
    torch.manual_seed(0)
    with torch.no_grad():
        emb.weight.copy_(torch.randn(6, 4))
        emb.importance.copy_(torch.randn(5, 3))
    ids = torch.tensor([[3, 29, 0]])
    out = emb(ids)
    rows, weights = hash_ids(30, 6, 3), hash_ids(30, 5, 1, first=3)[:, 0]  # hash 3 picks the weights
    for t, w in enumerate(ids[0].tolist()):
        expected = sum(emb.importance[weights[w], i] * emb.weight[rows[w, i]] for i in range(3))
        assert torch.allclose(out[0, t], expected, atol=TOL)


def test_hash_embedding_starts_with_a_token_tables_spread():
    emb = HashEmbedding(20_000, 64, rows=2_000, hash_count=4)
    assert torch.equal(emb.importance, torch.full((2_000, 4), 0.5))  # 1/√4
    std = emb(torch.arange(20_000)[None]).std().item()
    assert std == pytest.approx(0.02, rel=0.05)  # the sum of 4 rows with weights 1/√k


def test_gradients_reach_only_the_rows_used():
    emb = HashEmbedding(100, 4, rows=50, hash_count=2, importance_rows=10)
    emb(torch.tensor([[7]])).sum().backward()
    used = set(emb.buckets[7].tolist())
    touched = set(torch.nonzero(emb.weight.grad.abs().sum(-1)).flatten().tolist())
    assert touched == used
    assert torch.count_nonzero(emb.importance.grad.abs().sum(-1)) == 1
    # torch autograd as the oracle for the importance gradient: d e / d p_i = E[h_i]
    assert torch.allclose(emb.importance.grad[emb.importance_ids[7]], emb.weight[emb.buckets[7]].sum(-1), atol=TOL)


def test_the_hashed_ids_are_not_saved_with_the_weights():
    emb = HashEmbedding(100, 4, rows=50)
    assert set(emb.state_dict()) == {"weight", "importance"}
    assert set(HashedEmbedding(100, 4, rows=50).state_dict()) == {"weight"}


def test_collisions_of_the_hashing_trick_at_one_tenth():
    """An id is alone in its row with probability (1 - 1/B)^(V-1): about 5.8 ids of 128,000."""
    rows = hash_ids(V_BIG, ROWS_BIG, 2)
    load = torch.bincount(rows[:, 0], minlength=ROWS_BIG)
    alone = int((load[rows[:, 0]] == 1).sum())
    expected = V_BIG * (1 - 1 / ROWS_BIG) ** (V_BIG - 1)
    assert alone <= expected + SIGMAS * math.sqrt(expected)  # Poisson: mean = variance
    assert int(load.max()) < 40  # 10 ids a row on average: a row of 40 has probability ~1e-11 per row
    # hash embeddings, k 2: an id shares both rows with another with probability ~V/B²: about 100 ids
    pairs = rows[:, 0] * ROWS_BIG + rows[:, 1]
    _, inverse, counts = torch.unique(pairs, return_inverse=True, return_counts=True)
    shared = int((counts[inverse] > 1).sum())
    expected_pairs = V_BIG * (V_BIG - 1) / 2 / ROWS_BIG**2  # colliding pairs, ~Poisson(50); each is 2 ids
    assert abs(shared - 2 * expected_pairs) <= 2 * SIGMAS * math.sqrt(expected_pairs)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: HashedEmbedding(100, 4, rows=0), "rows must be between 1 and 100; got 0"),
        (lambda: HashedEmbedding(100, 4, rows=101), "rows must be between 1 and 100; got 101"),
        (lambda: HashEmbedding(100, 4, rows=10, hash_count=0), "hash_count must be >= 1; got 0"),
        (lambda: HashEmbedding(100, 4, rows=10, importance_rows=0), "importance_rows must be >= 1; got 0"),
        (lambda: HashedEmbedding(0, 4, rows=1), "vocab_size must be >= 1; got 0"),
        (lambda: HashedEmbedding(100, 4, rows=10)(torch.tensor([[100]])), r"token id 100 is out of range.*0\.\.99"),
        (lambda: HashEmbedding(100, 4, rows=10)(torch.tensor([[-1]])), r"token id -1 is out of range.*0\.\.99"),
        (lambda: HashEmbedding(100, 4, rows=10)(torch.tensor([[1.0]])), "integer dtype"),
    ],
)
def test_bad_input(make, message):
    with pytest.raises(InvalidValueError, match=message) as info:
        make()
    assert isinstance(info.value, EmbedlabError)


def test_repr_names_the_sizes():
    assert "rows=50, hash_count=2, importance_rows=50" in repr(HashEmbedding(100, 4, rows=50))
    assert "100, 4, rows=50" in repr(HashedEmbedding(100, 4, rows=50))
