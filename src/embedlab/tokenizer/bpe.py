"""A readable reference BPE: learn merges over a word-frequency table with incremental counts.

Byte Pair Encoding starts from an alphabet (characters, or the 256 byte values) and repeatedly
merges the most frequent adjacent pair into a new token. The lessons' hand calculation:

    >>> bpe = BPE(mode="char", split="none")
    >>> [(m.left, m.right, m.count) for m in bpe.train("the cat sat on the mat the cat", num_merges=3)]
    [('a', 't', 4), ('t', 'h', 3), ('th', 'e', 3)]

Training does not rescan the corpus after each merge. The text is cut into chunks (`split`),
identical chunks are counted once with their frequency, and a merge rewrites only the chunks
that contain the merged pair, adjusting the pair counts by the difference (pairs.PairIndex).

Ties between pairs of equal count are broken by `tie`:
    "first"    the pair that occurs first in the text wins (the lessons' hand calculation, minbpe)
    "hf"       the pair of smaller ids wins, ids being special tokens, then the alphabet by code
               point, then merges in creation order (HuggingFace `tokenizers`' BpeTrainer)
    "lexical"  the lexicographically greater pair of strings wins
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import regex

from embedlab.errors import InvalidValueError, MissingDataError, check_choice, check_int
from embedlab.files import atomic_write_text
from embedlab.tokenizer.bytes import as_piece, bytes_to_unicode, piece_bytes
from embedlab.tokenizer.pairs import Pair, PairIndex, merge

FORMAT = "embedlab-bpe"  # the "format" field of a saved file: how load_tokenizer tells it apart
MODES = ("char", "byte")
TIES = ("first", "hf", "lexical")

# GPT-2's pre-tokenizer: contractions, letters, digits, other symbols, each with one optional
# leading space, and runs of whitespace. Merges never cross these chunk boundaries.
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
SPLITTERS = {  # split name -> text -> chunks
    "gpt2": regex.compile(GPT2_PATTERN).findall,
    "whitespace": regex.compile(r"\S+|\s+").findall,  # words and the spaces between them
    "none": lambda text: [text] if text else [],  # one sequence: merges may cross spaces
}
SPLITS = tuple(SPLITTERS)


@dataclass(frozen=True)
class Merge:
    """One learned merge: `left` + `right` -> `token` (as text), id `id`, seen `count` times."""

    left: str
    right: str
    token: str
    id: int
    count: int


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
        stats = PairIndex(words, list(chunk_counts.values()))
        for _ in range(num_merges):
            tied = stats.pop_most_frequent()
            if not tied:
                break  # every chunk is a single token: nothing left to merge
            pair = self._break_tie(tied, stats)
            stats.push_back(tied - {pair})
            stats.merge(pair, self._add_merge(pair, stats.counts[pair]).id)
            if trace:
                self._cache.clear()  # subtle: chunks encoded before this merge would keep their old pieces
                self.trace.append([self.piece(i) for i in self.encode(sample)])
            if on_merge is not None:
                on_merge(self.history[-1])
        self.counts = stats.token_counts(len(self.vocab))
        return self.history

    def _add_merge(self, pair: Pair, count: int) -> Merge:
        """Give `pair` the next id: a new token, its merge rule, and its place in `history`."""
        new_id = len(self.vocab)
        self.vocab.append(self.vocab[pair[0]] + self.vocab[pair[1]])
        self.merges[pair] = new_id
        self.history.append(Merge(self.piece(pair[0]), self.piece(pair[1]), self.piece(new_id), new_id, count))
        return self.history[-1]

    def _count_chunks(self, lines: Iterable[str]) -> tuple[Counter[str], str]:
        """Chunk -> frequency over all lines (dict order = first appearance), and the text's
        first 200 characters (the default trace sample)."""
        split = SPLITTERS[self.split]
        if self.split == "none":
            lines = ["".join(lines)]  # one sequence: merges may cross line ends
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

    def _break_tie(self, tied: set[Pair], stats: PairIndex) -> Pair:
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
        for chunk in SPLITTERS[self.split](text):
            ids = self._cache.get(chunk)
            if ids is None:
                ids = self._encode_chunk(self._symbols(chunk))
                if len(self._cache) < 100_000:
                    self._cache[chunk] = ids
            out.extend(ids)
        return out

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        """Many texts -> their ids (one after another; FastTokenizer's runs in parallel)."""
        return [self.encode(text) for text in texts]

    def _encode_chunk(self, ids: list[int]) -> list[int]:
        """Merge the earliest-learned pair present until none of the pairs has a merge."""
        while len(ids) >= 2:
            pair = min(pairwise(ids), key=lambda p: self.merges.get(p, len(self.vocab)))
            if pair not in self.merges:
                break
            ids = merge(ids, pair, self.merges[pair])
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
        return as_piece(value)

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
            "format": FORMAT,
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
            if data.get("format") != FORMAT:
                raise ValueError("not an embedlab BPE file")
            bpe = cls(data["mode"], data["split"], data["tie"], data["special_tokens"])
            symbols = [piece_bytes(s) if bpe.mode == "byte" else s for s in data["alphabet"]]
            bpe._set_alphabet(symbols)
            by_piece = {bpe.piece(i): i for i in range(len(bpe.vocab))}
            for left, right, count in data["merges"]:
                merged = bpe._add_merge((by_piece[left], by_piece[right]), count)
                by_piece[merged.token] = merged.id
            bpe.counts = [int(c) for c in data.get("counts", [])]
            if bpe.counts and len(bpe.counts) != len(bpe.vocab):
                raise ValueError(f"{len(bpe.counts)} counts for {len(bpe.vocab)} tokens")
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as err:
            raise InvalidValueError(f"{path} is not a valid embedlab BPE file: {err}") from None
        return bpe
