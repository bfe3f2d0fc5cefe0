"""Adjacent-pair counts for BPE training, kept current as merges rewrite the words.

    index = PairIndex(words=[[1, 2, 3], [1, 2]], freqs=[5, 2])
    index.counts[(1, 2)]           7: the pair's occurrences, each word weighted by its frequency
    index.pop_most_frequent()      {(1, 2)}: every pair of the highest count, taken off the heap
    index.merge((1, 2), 4)         words [[4, 3], [4]]: only words holding (1, 2) are touched

Recounting every pair of every word after each merge (minbpe's `get_stats`) costs a pass over the
whole corpus per merge. A merge changes only the pairs that touch a merged position, and only in
the words that hold the merged pair, so the index remembers which words hold each pair and
adjusts the counts by the difference: a merge costs about as much as the words it rewrites.
`merge` is the plain rewrite, which encoding uses too.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from itertools import pairwise

Pair = tuple[int, int]


def merge(ids: list[int], pair: Pair, new_id: int) -> list[int]:
    """Replace every non-overlapping occurrence of `pair`, left to right.

    >>> merge([1, 2, 3, 1, 2], (1, 2), 4)
    [4, 3, 4]
    >>> merge([7, 7, 7], (7, 7), 8)
    [8, 7]
    """
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def merge_with_neighbours(ids: list[int], pair: Pair, new_id: int) -> tuple[list[int], list[Pair], list[Pair]]:
    """`merge`, plus the pairs that disappear and appear: those touching a merged position.

    >>> merge_with_neighbours([5, 1, 2, 6], (1, 2), 9)
    ([5, 9, 6], [(5, 1), (1, 2), (2, 6)], [(5, 9), (9, 6)])
    """
    a, b = pair
    n = len(ids)
    new: list[int] = []
    old_at: set[int] = set()  # indices of old pairs that touch a merge
    new_at: set[int] = set()  # indices of new pairs that touch the merged token
    i = 0
    while i < n:
        if ids[i] == a and i + 1 < n and ids[i + 1] == b:
            old_at.update((i - 1, i, i + 1))
            new_at.update((len(new) - 1, len(new)))
            new.append(new_id)
            i += 2
        else:
            new.append(ids[i])
            i += 1
    removed = [(ids[j], ids[j + 1]) for j in sorted(old_at) if 0 <= j < n - 1]
    added = [(new[j], new[j + 1]) for j in sorted(new_at) if 0 <= j < len(new) - 1]
    return new, removed, added


class PairIndex:
    """Adjacent-pair counts over a word-frequency table, kept current as merges rewrite words.

    Args:
        words: each distinct word (a pre-tokenized chunk) as token ids; rewritten in place.
        freqs: how often each word occurs in the corpus.

    >>> index = PairIndex([[1, 2, 3], [1, 2]], [5, 2])
    >>> index.counts[(1, 2)], index.counts[(2, 3)]
    (7, 5)
    >>> index.pop_most_frequent()
    {(1, 2)}
    >>> index.merge((1, 2), 4)
    >>> index.words, dict(index.counts)
    ([[4, 3], [4]], {(4, 3): 5})
    """

    def __init__(self, words: list[list[int]], freqs: list[int]) -> None:
        self.words, self.freqs = words, freqs
        self.counts: Counter[Pair] = Counter()  # pair -> occurrences weighted by word frequency
        # pair -> indices of words that hold or once held it (a superset: pruning it would cost
        # more than skipping the few words that no longer hold the pair)
        self.where: dict[Pair, set[int]] = defaultdict(set)
        for w, ids in enumerate(words):
            for pair in pairwise(ids):
                self.counts[pair] += freqs[w]
                self.where[pair].add(w)
        # (-count, pair) max-heap. An entry is pushed whenever a count grows; an entry whose count
        # has shrunk since is re-pushed with the current count when it surfaces.
        self.heap = [(-c, pair) for pair, c in self.counts.items()]
        heapq.heapify(self.heap)

    def pop_most_frequent(self) -> set[Pair]:
        """Remove and return every pair that has the highest count (empty when none is left)."""
        heap, counts = self.heap, self.counts
        tied: set[Pair] = set()
        best = 0
        while heap:
            count, pair = -heap[0][0], heap[0][1]
            if tied and count < best:
                break
            heapq.heappop(heap)
            current = counts.get(pair, 0)
            if current == count:
                best = count
                tied.add(pair)
            elif 0 < current < count:
                heapq.heappush(heap, (-current, pair))  # shrank since pushed: requeue as it is now
            # current > count: a fresher entry for this pair is in the heap; drop this one
        return tied

    def push_back(self, pairs: set[Pair]) -> None:
        """Return popped pairs that were not merged to the heap."""
        for pair in pairs:
            heapq.heappush(self.heap, (-self.counts[pair], pair))

    def merge(self, pair: Pair, new_id: int) -> None:
        """Rewrite every word holding `pair`; only the pairs around each merge change count."""
        counts, grown = self.counts, set()
        for w in sorted(self.where.pop(pair)):
            ids = self.words[w]
            if pair[1] not in ids:  # cheap C-level scan: a stale entry of `where`
                continue
            new, removed, added = merge_with_neighbours(ids, pair, new_id)
            if not removed:
                continue  # stale too: the word holds both ids, but not side by side
            self.words[w] = new
            f = self.freqs[w]
            for p in removed:
                counts[p] -= f
                if counts[p] <= 0:
                    del counts[p]
            for p in added:
                counts[p] += f
                self.where[p].add(w)
            grown.update(added)
        counts.pop(pair, None)
        for p in grown:  # once per pair and merge, not once per word
            if p in counts:
                heapq.heappush(self.heap, (-counts[p], p))

    def token_counts(self, size: int) -> list[int]:
        """(size,) how often each token id occurs over all words, weighted by word frequency.

        >>> PairIndex([[1, 2, 1], [2]], [3, 5]).token_counts(4)
        [0, 6, 8, 0]
        """
        counts = [0] * size
        for ids, freq in zip(self.words, self.freqs, strict=True):
            for i in ids:
                counts[i] += freq
        return counts

    def first_position(self, pair: Pair) -> tuple[int, int]:
        """(index of the first word holding `pair`, position of its first occurrence there).

        >>> PairIndex([[1, 2], [3, 1, 2]], [1, 1]).first_position((1, 2))
        (0, 0)
        """
        for w in sorted(self.where[pair]):
            for i, p in enumerate(pairwise(self.words[w])):
                if p == pair:
                    return w, i
        raise AssertionError(f"pair {pair} has a count but no word holds it")  # internal invariant
