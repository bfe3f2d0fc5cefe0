"""The incremental pair index against a full recount after every merge (minbpe's way)."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedlab.tokenizer.pairs import PairIndex, merge, merge_with_neighbours


@pytest.mark.parametrize(
    "ids, pair, expected",
    [
        ([1, 2, 3, 1, 2], (1, 2), [9, 3, 9]),
        ([7, 7, 7], (7, 7), [9, 7]),  # left to right, no overlap
        ([7, 7, 7, 7], (7, 7), [9, 9]),
        ([1, 3, 2], (1, 2), [1, 3, 2]),  # both ids, not side by side
        ([], (1, 2), []),
    ],
)
def test_merge(ids, pair, expected):
    assert merge(ids, pair, 9) == expected


def _recount(words: list[list[int]], freqs: list[int]) -> Counter:
    """Oracle: every adjacent pair of every word, weighted by the word's frequency."""
    counts: Counter = Counter()
    for ids, f in zip(words, freqs, strict=True):
        for pair in pairwise(ids):
            counts[pair] += f
    return counts


WORDS = st.lists(st.lists(st.integers(0, 3), max_size=12), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=16), st.integers(0, 3), st.integers(0, 3))
def test_merge_with_neighbours_reports_exactly_the_pairs_that_change(ids, a, b):
    new, removed, added = merge_with_neighbours(ids, (a, b), 9)
    assert new == merge(ids, (a, b), 9)
    assert Counter(pairwise(ids)) - Counter(removed) + Counter(added) == Counter(pairwise(new))


@settings(max_examples=200, deadline=None)
@given(WORDS, st.data())
def test_counts_stay_equal_to_a_full_recount(words, data):
    freqs = data.draw(st.lists(st.integers(1, 5), min_size=len(words), max_size=len(words)))
    original = [list(w) for w in words]
    index = PairIndex([list(w) for w in words], freqs)
    assert index.counts == _recount(index.words, freqs)
    for new_id in range(10, 16):
        tied = index.pop_most_frequent()
        expected = _recount(index.words, freqs)
        if not expected:
            assert tied == set()
            break
        best = max(expected.values())
        assert tied == {p for p, c in expected.items() if c == best}
        pair = min(tied)
        index.push_back(tied - {pair})
        index.merge(pair, new_id)
        original = [merge(w, pair, new_id) for w in original]
        assert index.words == original  # only words holding the pair changed, each as `merge` would
        assert index.counts == _recount(index.words, freqs)
        for p in index.counts:  # `where` may hold stale words, never miss one
            assert {w for w, ids in enumerate(index.words) if p in pairwise(ids)} <= index.where[p]
    assert index.token_counts(16) == [
        sum(f * ids.count(i) for ids, f in zip(index.words, freqs, strict=True)) for i in range(16)
    ]


def test_first_position_is_the_earliest_word_then_the_earliest_place():
    index = PairIndex([[3, 1, 2], [1, 2, 1, 2], [5]], [1, 9, 1])
    assert index.first_position((1, 2)) == (0, 1)
    assert index.first_position((2, 1)) == (1, 1)
