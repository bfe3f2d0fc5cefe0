"""A readable reference BPE: learn merges over a word-frequency table with incremental counts.

Byte Pair Encoding starts from an alphabet (characters, or the 256 byte values) and repeatedly
merges the most frequent adjacent pair into a new token. The lessons' hand calculation:

    >>> bpe = BPE(mode="char", split="none")
    >>> [(m.left, m.right, m.count) for m in bpe.train("the cat sat on the mat the cat", num_merges=3)]
    [('a', 't', 4), ('t', 'h', 3), ('th', 'e', 3)]
    >>> bpe.history[1].tied, bpe.history[1].passed_over
    (4, (('h', 'e'), ('e', ' '), ('at', ' ')))

Training does not rescan the corpus after each merge. The text is cut into chunks (`split`,
pretokenize.py), identical chunks are counted once with their frequency, and a merge rewrites
only the chunks that contain the merged pair, adjusting the pair counts by the difference
(pairs.PairIndex).

Pairs of equal count are common (above, four pairs have 3 after the first merge); `tie` picks
one (TIE_RULES), and each Merge records how many pairs tied and which were passed over:
    "first"    the pair whose first occurrence comes first in the text, in reading order: what a
               person counting by hand picks, and minbpe's rule (Python's max over a dict keeps
               the first of equal counts, and pairs enter the dict in reading order)
    "hf"       the pair of smaller ids, compared left id first: specials, then the alphabet by
               code point (bytes by GPT-2's stand-ins), then merges in creation order. This is
               HuggingFace `tokenizers`' BpeTrainer (tested merge for merge against it)
    "lexical"  the greatest pair of strings, left piece first, by code point (pieces as the
               vocabulary writes them, "Ġ" for a space in byte mode): subword-nmt's learn_bpe,
               Sennrich et al.'s reference BPE, takes max over (count, pair)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_choice, check_int, plain
from embedlab.files import atomic_write_text
from embedlab.files.reading import file_exists, read_json
from embedlab.tokenizer.bytes import as_piece, piece_bytes
from embedlab.tokenizer.pairs import Pair, PairIndex, merge
from embedlab.tokenizer.pretokenize import MODES, SPLITS, SPLITTERS, alphabet, count_chunks

FORMAT = "embedlab-bpe"  # the "format" field of a saved file: how load_tokenizer tells it apart
_FIELDS = ("format", "mode", "split", "tie", "special_tokens", "alphabet", "merges")  # every saved file has them
RECOVER = "train and save the tokenizer again"  # how to get past a damaged tokenizer file
TIE_RULES = {  # tie rule -> which of several equally frequent pairs is merged (module docstring)
    "first": "the pair seen first in the text",
    "hf": "the pair of smallest ids, as HuggingFace tokenizers",
    "lexical": "the greatest pair of strings, as subword-nmt",
}
TIES = tuple(TIE_RULES)
TIED_KEPT = 5  # passed-over pairs a Merge names: at small counts thousands of pairs may tie


@dataclass(frozen=True)
class Merge:
    """One learned merge: `left` + `right` -> `token` (as text), id `id`, seen `count` times.

    `tied` pairs had that count when it was made (1: no tie); `passed_over` names the first
    TIED_KEPT of the others in the order the tie rule ranked them. Both describe the training
    run only: they are not saved, and merges compare equal without them.
    """

    left: str
    right: str
    token: str
    id: int
    count: int
    tied: int = field(default=1, compare=False)
    passed_over: tuple[tuple[str, str], ...] = field(default=(), compare=False)


class BPE:
    """A BPE tokenizer: train(), encode(), decode(), save(), load().

    Args:
        mode: the alphabet: "char" (the distinct characters of the training text; encoding a
            character outside it raises InvalidValueError) or "byte" (all 256 byte values, of
            the text's UTF-8: nothing is ever out of vocabulary).
        split: how text is cut into chunks before pairs are counted (pretokenize.py): "gpt2"
            (GPT-2's regex: words with one leading space, digits, punctuation), "whitespace"
            (runs of non-space, and runs of space as chunks of their own), or "none" (the whole
            text, spaces and line ends included, is one sequence: merges may cross words).
        tie: which of several equally frequent pairs is merged: "first", "hf" or "lexical"
            (the module docstring says exactly how each decides).
        special_tokens: reserved tokens given the first ids (e.g. "<pad>"); never merged.
    """

    def __init__(
        self, mode: str = "byte", split: str = "gpt2", tie: str = "first", special_tokens: Iterable[str] = ()
    ) -> None:
        self.mode = check_choice("mode", mode, MODES)
        self.split = check_choice("split", split, SPLITS)
        self.tie = check_choice("tie", tie, TIES)  # library default "first": the lessons' rule
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
        progress bars). Training stops early when no adjacent pair is left. With split "none"
        the lines are joined as given: keep their "\\n" if lines should not run together.
        Afterwards `self.counts[i]` is how often token i occurs in the training text: how many
        gradient updates its embedding row would get per epoch.
        """
        if (vocab_size is None) == (num_merges is None):
            raise InvalidValueError("give exactly one of vocab_size and num_merges")
        lines = [text_or_corpus] if isinstance(text_or_corpus, str) else text_or_corpus
        chunk_counts, head = count_chunks(lines, self.split)
        if not chunk_counts:
            raise InvalidValueError("the training text is empty")
        self._set_alphabet(alphabet(self.mode, chunk_counts))
        if vocab_size is not None:
            check_int("vocab_size", vocab_size, low=1)
            if vocab_size < len(self.vocab):
                n_symbols = len(self.vocab) - len(self.special_tokens)
                symbols = "bytes" if self.mode == "byte" else "distinct characters of the text"
                raise InvalidValueError(
                    f"vocab_size {vocab_size} is below the alphabet size {len(self.vocab)} "
                    f"({len(self.special_tokens)} specials + {n_symbols} {symbols})",
                    param="vocab_size",
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
            pair, *passed_over = self._break_tie(tied, stats)
            stats.push_back(tied - {pair})
            stats.merge(pair, self._add_merge(pair, stats.counts[pair], passed_over).id)
            if trace:
                self._cache.clear()  # subtle: chunks encoded before this merge would keep their old pieces
                self.trace.append([self.piece(i) for i in self.encode(sample)])
            if on_merge is not None:
                on_merge(self.history[-1])
        self.counts = stats.token_counts(len(self.vocab))
        return self.history

    def _add_merge(self, pair: Pair, count: int, passed_over: list[Pair] | None = None) -> Merge:
        """Give `pair` the next id: a new token, its merge rule, and its place in `history`."""
        new_id = len(self.vocab)
        self.vocab.append(self.vocab[pair[0]] + self.vocab[pair[1]])
        self.merges[pair] = new_id
        passed_over = passed_over or []
        named = tuple((self.piece(a), self.piece(b)) for a, b in passed_over[:TIED_KEPT])
        left, right, token = self.piece(pair[0]), self.piece(pair[1]), self.piece(new_id)
        self.history.append(Merge(left, right, token, new_id, count, 1 + len(passed_over), named))
        return self.history[-1]

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
                f"character {err.args[0]!r} is not in this tokenizer's alphabet of {len(self._ids)} "
                "characters (those of its training text); a byte-level BPE covers every string"
            ) from None

    def _break_tie(self, tied: set[Pair], stats: PairIndex) -> list[Pair]:
        """Equally frequent pairs ranked by `self.tie`: the one to merge first, then the rest.

        Ranking all of them (not only taking the best) costs the same key per pair, and names the
        pairs passed over in the trace.
        """
        if self.tie == "hf":
            return sorted(tied)  # ids already follow HF's order: specials, alphabet, merges
        if self.tie == "lexical":
            return sorted(tied, key=lambda p: (self.piece(p[0]), self.piece(p[1])), reverse=True)
        return sorted(tied, key=stats.first_position)

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

    def save(self, path: str | Path, replace: bool = True) -> Path:
        """Write the tokenizer as JSON, atomically (a temporary file renamed into place). replace
        False: `path` must be new at the moment it is created, else OutputExistsError (files.atomic_writer)."""
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
        return atomic_write_text(path, json.dumps(data, ensure_ascii=False), replace=replace)

    @classmethod
    def load(cls, path: str | Path) -> BPE:
        """Read a file written by save(); a damaged one raises FileFormatError naming it and how to recover."""
        path = Path(path)
        if not file_exists(path, "an embedlab BPE file"):
            raise MissingDataError(f"no tokenizer file at {path}")
        data = read_json(path, "embedlab BPE file", RECOVER, keys=_FIELDS)
        try:
            if data["format"] != FORMAT:
                raise ValueError(f"its format is not {FORMAT!r}")
            bpe = cls(data["mode"], data["split"], data["tie"], data["special_tokens"])
            symbols = [piece_bytes(s) if bpe.mode == "byte" else s for s in data["alphabet"]]
            bpe._set_alphabet(symbols)
            by_piece = {bpe.piece(i): i for i in range(len(bpe.vocab))}
            for left, right, count in data["merges"]:
                if left not in by_piece or right not in by_piece:
                    raise ValueError(f"merge {len(bpe.history) + 1} joins a piece no earlier one made")
                merged = bpe._add_merge((by_piece[left], by_piece[right]), count)
                by_piece[merged.token] = merged.id
            bpe.counts = [int(c) for c in data.get("counts", [])]
            if bpe.counts and len(bpe.counts) != len(bpe.vocab):
                raise ValueError(f"{len(bpe.counts)} counts for {len(bpe.vocab)} tokens")
        except (ValueError, KeyError, TypeError) as err:
            raise FileFormatError(f"{path}: not a readable embedlab BPE file ({plain(err)}); {RECOVER}") from None
        return bpe
