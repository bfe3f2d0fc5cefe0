"""A readable reference BPE: learn merges over a word-frequency table with incremental counts.

Byte Pair Encoding starts from an alphabet (characters, or the 256 byte values) and repeatedly
merges the most frequent adjacent pair into a new token. The lessons' hand calculation:

    >>> bpe = BPE(mode="char", split="none")
    >>> [(m.left, m.right, m.count) for m in bpe.train("the cat sat on the mat the cat", num_merges=3)]
    [('a', 't', 4), ('t', 'h', 3), ('th', 'e', 3)]

Training does not rescan the corpus after each merge. The text is cut into chunks (`split`),
identical chunks are counted once with their frequency, and a merge rewrites only the chunks
that contain the merged pair, adjusting the pair counts by the difference.

Ties between pairs of equal count are broken by `tie`:
    "first"    the pair that occurs first in the text wins (the lessons' hand calculation, minbpe)
    "hf"       the pair of smaller ids wins, ids being special tokens, then the alphabet by code
               point, then merges in creation order (HuggingFace `tokenizers`' BpeTrainer)
    "lexical"  the lexicographically greater pair of strings wins
"""

from __future__ import annotations

import heapq
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

import regex

from embedlab.errors import InvalidValueError, MissingDataError, check_choice, check_int
from embedlab.files import atomic_write_text

MODES = ("char", "byte")
SPLITS = ("gpt2", "whitespace", "none")
TIES = ("first", "hf", "lexical")

# GPT-2's pre-tokenizer: contractions, letters, digits, other symbols, each with one optional
# leading space, and runs of whitespace. Merges never cross these chunk boundaries.
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_SPLITTERS = {
    "gpt2": regex.compile(GPT2_PATTERN).findall,
    "whitespace": regex.compile(r"\S+|\s+").findall,  # words and the spaces between them
    "none": lambda text: [text] if text else [],  # one sequence: merges may cross spaces
}

Pair = tuple[int, int]


@dataclass(frozen=True)
class Merge:
    """One learned merge: `left` + `right` -> `token` (as text), id `id`, seen `count` times."""

    left: str
    right: str
    token: str
    id: int
    count: int


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's printable stand-in character for each byte (how byte-level vocabularies are saved).

    Printable Latin-1 bytes stand for themselves; the other 68 take code points from 256 up.
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


class BPE:
    """A BPE tokenizer: train(), encode(), decode(), save(), load().

    Args:
        mode: "char" (the alphabet is the characters of the training text; an unseen character
            cannot be encoded) or "byte" (the alphabet is all 256 byte values: nothing is ever
            out of vocabulary).
        split: how text is cut into chunks before merging: "gpt2" (GPT-2's regex), "whitespace"
            (words and runs of spaces), or "none" (the whole text is one sequence).
        tie: how ties between equally frequent pairs are broken (see the module docstring).
        special_tokens: reserved tokens given the first ids (e.g. "<pad>"); never merged.
    """

    def __init__(
        self, mode: str = "byte", split: str = "gpt2", tie: str = "first", special_tokens: Iterable[str] = ()
    ) -> None:
        self.mode = check_choice("mode", mode, MODES)
        self.split = check_choice("split", split, SPLITS)
        self.tie = check_choice("tie", tie, TIES)
        self.special_tokens = list(special_tokens)
        self.vocab: list[bytes | str] = []  # id -> piece (bytes in byte mode, str in char mode)
        self.merges: dict[Pair, int] = {}  # (left id, right id) -> merged id, in creation order
        self.history: list[Merge] = []  # every merge, in order, with its count
        self.trace: list[list[str]] = []  # a sample's pieces after each merge, if requested
        self.counts: list[int] = []  # id -> occurrences in the training text after all merges
        self._ids: dict[bytes | str, int] = {}  # alphabet symbol -> id
        self._cache: dict[str, list[int]] = {}  # chunk -> ids, for encode

    # ----- training -------------------------------------------------------------------------

    def train(
        self,
        text_or_corpus: str | Iterable[str],
        vocab_size: int | None = None,
        num_merges: int | None = None,
        trace: bool = False,
        sample: str | None = None,
        on_merge: Callable[[Merge], None] | None = None,
    ) -> list[Merge]:
        """Learn merges from a string or an iterable of lines; returns the merges (also `history`).

        Give exactly one of `vocab_size` (specials + alphabet + merges) or `num_merges`. With
        `trace`, `self.trace[k]` holds the pieces of `sample` (default: the first 200 characters
        of the text) after merge k + 1. `on_merge` is called with each merge as it is made (for
        progress bars). Training stops early when no adjacent pair is left. Afterwards
        `self.counts[i]` is how often token i occurs in the training text: how many gradient
        updates its embedding row would get per epoch.
        """
        if (vocab_size is None) == (num_merges is None):
            raise InvalidValueError("give exactly one of vocab_size and num_merges")
        lines = [text_or_corpus] if isinstance(text_or_corpus, str) else text_or_corpus
        chunk_counts, head = self._count_chunks(lines)
        self._build_alphabet(chunk_counts)
        if vocab_size is not None:
            check_int("vocab_size", vocab_size, low=1)
            if vocab_size < len(self.vocab):
                raise InvalidValueError(
                    f"vocab_size {vocab_size} is below the alphabet size {len(self.vocab)} "
                    f"({len(self.special_tokens)} specials + {len(self.vocab) - len(self.special_tokens)} symbols)"
                )
            num_merges = vocab_size - len(self.vocab)
        num_merges = check_int("num_merges", num_merges, low=0)
        if sample is None:
            sample = head
        self.merges, self.history, self.trace, self._cache = {}, [], [], {}

        words = [self._symbols(chunk) for chunk in chunk_counts]  # distinct chunks, first-seen order
        stats = _PairIndex(words, list(chunk_counts.values()))
        for _ in range(num_merges):
            tied = stats.pop_most_frequent()
            if not tied:
                break  # every chunk is a single token: nothing left to merge
            pair = self._break_tie(tied, stats)
            stats.push_back(tied - {pair})
            new_id = len(self.vocab)
            self.vocab.append(self.vocab[pair[0]] + self.vocab[pair[1]])
            self.merges[pair] = new_id
            left, right, token = self.piece(pair[0]), self.piece(pair[1]), self.piece(new_id)
            self.history.append(Merge(left, right, token, new_id, stats.counts[pair]))
            stats.merge(pair, new_id)
            if trace:  # subtle: not encode(): its cache would keep pieces from earlier merges
                ids = [i for chunk in _SPLITTERS[self.split](sample) for i in self._encode_chunk(self._symbols(chunk))]
                self.trace.append([self.piece(i) for i in ids])
            if on_merge is not None:
                on_merge(self.history[-1])
        self.counts = [0] * len(self.vocab)
        for ids, freq in zip(stats.words, stats.freqs, strict=True):
            for i in ids:
                self.counts[i] += freq
        return self.history

    def _count_chunks(self, lines: Iterable[str]) -> tuple[Counter[str], str]:
        """Chunk -> frequency over all lines (dict order = first appearance), and the text's
        first 200 characters (the default trace sample)."""
        split = _SPLITTERS[self.split]
        if self.split == "none":
            text = "".join(lines)
            return Counter(split(text)), text[:200]
        counts: Counter[str] = Counter()
        head = ""
        for line in lines:
            counts.update(split(line))
            if len(head) < 200:
                head = (head + line)[:200]
        return counts, head

    def _build_alphabet(self, chunk_counts: Counter[str]) -> None:
        """Ids: specials first, then the alphabet ordered by code point (by GPT-2's printable
        stand-in characters in byte mode, as HuggingFace orders a byte-level alphabet)."""
        if not chunk_counts:
            raise InvalidValueError("the training text is empty")
        if self.mode == "byte":
            stand_in = bytes_to_unicode()
            symbols: list[bytes | str] = [bytes([b]) for b in sorted(range(256), key=stand_in.get)]
        else:
            symbols = sorted({ch for chunk in chunk_counts for ch in chunk})
        self._set_alphabet(symbols)

    def _set_alphabet(self, symbols: list[bytes | str]) -> None:
        """vocab = specials, then the alphabet symbols; no merges yet."""
        specials = [t.encode("utf-8") if self.mode == "byte" else t for t in self.special_tokens]
        self.vocab = [*specials, *symbols]
        self._ids = {s: i for i, s in enumerate(self.vocab) if i >= len(specials)}

    def _symbols(self, chunk: str) -> list[int]:
        """A chunk as alphabet ids (bytes of its UTF-8 in byte mode, characters in char mode)."""
        if self.mode == "byte":
            return [self._ids[bytes([b])] for b in chunk.encode("utf-8")]
        try:
            return [self._ids[ch] for ch in chunk]
        except KeyError as err:
            raise InvalidValueError(
                f"character {err.args[0]!r} is not in this tokenizer's alphabet (char mode); "
                "byte mode covers every string"
            ) from None

    def _break_tie(self, tied: set[Pair], stats: _PairIndex) -> Pair:
        """One pair among equally frequent ones, by `self.tie`."""
        if self.tie == "hf":
            return min(tied)  # ids already follow HF's order: specials, alphabet, merges
        if self.tie == "lexical":
            return max(tied, key=lambda p: (self.piece(p[0]), self.piece(p[1])))
        return min(tied, key=stats.first_position)

    # ----- using a trained tokenizer ------------------------------------------------------

    def encode(self, text: str) -> list[int]:
        """str -> ids: split into chunks, then apply the merges in the order they were learned."""
        if not self.vocab:
            raise InvalidValueError("this BPE is not trained yet: call train() or BPE.load()")
        out: list[int] = []
        for chunk in _SPLITTERS[self.split](text):
            ids = self._cache.get(chunk)
            if ids is None:
                ids = self._encode_chunk(self._symbols(chunk))
                if len(self._cache) < 100_000:
                    self._cache[chunk] = ids
            out.extend(ids)
        return out

    def _encode_chunk(self, ids: list[int]) -> list[int]:
        """Merge the earliest-learned pair present until none of the pairs has a merge."""
        while len(ids) >= 2:
            pair = min(pairwise(ids), key=lambda p: self.merges.get(p, len(self.vocab)))
            if pair not in self.merges:
                break
            ids = _merge(ids, pair, self.merges[pair])
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        """ids -> str. In byte mode, bytes that do not form valid UTF-8 become U+FFFD."""
        pieces = []
        for i in ids:
            if not isinstance(i, int) or not 0 <= i < len(self.vocab):
                raise InvalidValueError(f"token id {i!r} is out of range: vocab_size is {len(self.vocab)}")
            pieces.append(self.vocab[i])
        if self.mode == "byte":
            return b"".join(pieces).decode("utf-8", errors="replace")
        return "".join(pieces)

    def piece(self, token_id: int) -> str:
        """The text of one token; in byte mode written with GPT-2's printable stand-ins."""
        value = self.vocab[token_id]
        if isinstance(value, str):
            return value
        if token_id < len(self.special_tokens):
            return self.special_tokens[token_id]
        stand_in = bytes_to_unicode()
        return "".join(stand_in[b] for b in value)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    # ----- files ---------------------------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        """Write the tokenizer as JSON, atomically (a temporary file renamed into place)."""
        if not self.vocab:
            raise InvalidValueError("nothing to save: this BPE is not trained yet")
        n_alpha = len(self.vocab) - len(self.merges)
        data = {
            "format": "embedlab-bpe",
            "version": 1,
            "mode": self.mode,
            "split": self.split,
            "tie": self.tie,
            "special_tokens": self.special_tokens,
            "alphabet": [self.piece(i) for i in range(len(self.special_tokens), n_alpha)],
            "merges": [[m.left, m.right, m.count] for m in self.history],
            "counts": self.counts,
        }
        return atomic_write_text(path, json.dumps(data, ensure_ascii=False))

    @classmethod
    def load(cls, path: str | Path) -> BPE:
        """Read a file written by save(); a corrupt file raises an error naming it."""
        path = Path(path)
        if not path.is_file():
            raise MissingDataError(f"no tokenizer file at {path}")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != "embedlab-bpe":
                raise ValueError("not an embedlab BPE file")
            bpe = cls(data["mode"], data["split"], data["tie"], data["special_tokens"])
            unstand = {c: b for b, c in bytes_to_unicode().items()}
            symbols = [bytes(unstand[c] for c in s) if bpe.mode == "byte" else s for s in data["alphabet"]]
            bpe._set_alphabet(symbols)
            by_piece = {bpe.piece(i): i for i in range(len(bpe.vocab))}
            for left, right, count in data["merges"]:
                pair = (by_piece[left], by_piece[right])
                new_id = len(bpe.vocab)
                bpe.vocab.append(bpe.vocab[pair[0]] + bpe.vocab[pair[1]])
                bpe.merges[pair] = new_id
                by_piece[bpe.piece(new_id)] = new_id
                bpe.history.append(Merge(left, right, bpe.piece(new_id), new_id, count))
            bpe.counts = [int(c) for c in data.get("counts", [])]
            if bpe.counts and len(bpe.counts) != len(bpe.vocab):
                raise ValueError(f"{len(bpe.counts)} counts for {len(bpe.vocab)} tokens")
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as err:
            raise InvalidValueError(f"{path} is not a valid embedlab BPE file: {err}") from None
        return bpe


def _merge(ids: list[int], pair: Pair, new_id: int) -> list[int]:
    """Replace every non-overlapping occurrence of `pair`, left to right.

    >>> _merge([1, 2, 3, 1, 2], (1, 2), 4)
    [4, 3, 4]
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


def _merge_with_neighbours(ids: list[int], pair: Pair, new_id: int) -> tuple[list[int], list[Pair], list[Pair]]:
    """_merge, plus the pairs that disappear and appear: those touching a merged position.

    >>> _merge_with_neighbours([5, 1, 2, 6], (1, 2), 9)
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


class _PairIndex:
    """Adjacent-pair counts over a word-frequency table, kept current as merges rewrite words.

    counts: pair -> occurrences weighted by word frequency.
    where: pair -> indices of words that hold or once held it (a superset: pruning it would
        cost more than skipping the few words that no longer hold the pair).
    heap: (-count, pair) max-heap. An entry is pushed whenever a count grows; an entry whose
        count has shrunk since is re-pushed with the current count when it surfaces.
    """

    def __init__(self, words: list[list[int]], freqs: list[int]) -> None:
        self.words, self.freqs = words, freqs
        self.counts: Counter[Pair] = Counter()
        self.where: dict[Pair, set[int]] = defaultdict(set)
        for w, ids in enumerate(words):
            for pair in pairwise(ids):
                self.counts[pair] += freqs[w]
                self.where[pair].add(w)
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
        for pair in pairs:
            heapq.heappush(self.heap, (-self.counts[pair], pair))

    def merge(self, pair: Pair, new_id: int) -> None:
        """Rewrite every word holding `pair`; only the pairs around each merge change count."""
        counts, grown = self.counts, set()
        for w in sorted(self.where.pop(pair)):
            ids = self.words[w]
            if pair[1] not in ids:  # cheap C-level scan: a stale entry of `where`
                continue
            new, removed, added = _merge_with_neighbours(ids, pair, new_id)
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

    def first_position(self, pair: Pair) -> tuple[int, int]:
        """(index of the first word holding `pair`, position of its first occurrence there)."""
        for w in sorted(self.where[pair]):
            for i, p in enumerate(pairwise(self.words[w])):
                if p == pair:
                    return w, i
        raise AssertionError(f"pair {pair} has a count but no word holds it")  # internal invariant
