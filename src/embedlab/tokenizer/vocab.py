"""Word-level vocabularies with special tokens and an OOV policy, and the frequency statistics
behind the lessons' rare-token problem.

    vocab = Vocab.build(open_corpus("gcide"), min_count=5, max_size=50_000)
    vocab.encode("the cat sat")          # word ids; unseen words -> [UNK]
    vocab.count("cat")                   # corpus count: how many updates its row would get

A whole-word table gives every unseen word the same [UNK] row and every rare word a row that
is barely trained. `oov="subword"` instead spells an unseen word with a subword tokenizer's
pieces, whose ids follow the word ids.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from embedlab.errors import InvalidValueError, check_choice, check_int

# Special tokens at fixed ids 0..6, in this order, in every Vocab.
SPECIALS = ("[PAD]", "[UNK]", "[BOS]", "[EOS]", "[CLS]", "[SEP]", "[MASK]")
PAD, UNK, BOS, EOS, CLS, SEP, MASK = range(len(SPECIALS))
OOV_POLICIES = ("unk", "subword")


class SubwordTokenizer(Protocol):
    """What a Vocab needs from a subword tokenizer (BPE and FastTokenizer both qualify)."""

    vocab_size: int

    def encode(self, text: str) -> list[int]: ...

    def piece(self, token_id: int) -> str: ...


def count_words(lines: Iterable[str], lowercase: bool = False) -> Counter[str]:
    """Whitespace-separated word counts over a stream of lines."""
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update((line.lower() if lowercase else line).split())
    return counts


class Vocab:
    """Token <-> id for whole words: SPECIALS first, then words by descending count.

    Args:
        counts: word -> corpus count.
        min_count: words seen fewer times are left out (they would be [UNK]).
        max_size: at most this many ids in all, specials included (None: no limit).
        oov: "unk" maps an unknown word to [UNK]; "subword" spells it with `subword`'s pieces,
            given ids len(words) + piece id.
        subword: the tokenizer for oov="subword".
        lowercase: lower-case words before lookup (set when the counts were lower-cased).
    """

    def __init__(
        self,
        counts: Counter[str],
        min_count: int = 1,
        max_size: int | None = None,
        oov: str = "unk",
        subword: SubwordTokenizer | None = None,
        lowercase: bool = False,
    ) -> None:
        min_count = check_int("min_count", min_count, low=1)
        if max_size is not None:
            check_int("max_size", max_size, low=len(SPECIALS))
        self.oov = check_choice("oov", oov, OOV_POLICIES)
        if oov == "subword" and subword is None:
            raise InvalidValueError('oov="subword" needs a subword tokenizer (subword=...)')
        self.subword, self.lowercase = subword, lowercase
        kept = [(w, c) for w, c in counts.most_common() if c >= min_count and w not in SPECIALS]
        if max_size is not None:
            kept = kept[: max_size - len(SPECIALS)]
        self.index_to_key: list[str] = [*SPECIALS, *(w for w, _ in kept)]
        self.key_to_index: dict[str, int] = {w: i for i, w in enumerate(self.index_to_key)}
        self.counts: list[int] = [0] * len(SPECIALS) + [c for _, c in kept]  # per id

    @classmethod
    def build(cls, lines: Iterable[str], lowercase: bool = False, **kwargs) -> Vocab:
        """Count the words of a corpus, then Vocab(counts, ...)."""
        counts = count_words(lines, lowercase)
        if not counts:
            raise InvalidValueError("the corpus has no words")
        return cls(counts, lowercase=lowercase, **kwargs)

    def __len__(self) -> int:
        """Word ids (specials included); subword ids, if any, come after these."""
        return len(self.index_to_key)

    def __contains__(self, word: str) -> bool:
        return self._key(word) in self.key_to_index

    def count(self, word: str) -> int:
        """Corpus count of a word (0 for an unknown word)."""
        i = self.key_to_index.get(self._key(word))
        return 0 if i is None else self.counts[i]

    def encode(self, text: str) -> list[int]:
        """Whitespace-split words -> ids, unknown words by the OOV policy."""
        ids: list[int] = []
        for word in text.split():
            i = self.key_to_index.get(self._key(word))
            if i is not None:
                ids.append(i)
            elif self.oov == "unk":
                ids.append(UNK)
            else:
                ids.extend(len(self) + p for p in self.subword.encode(word))
        return ids

    def token(self, i: int) -> str:
        """The word (or, past len(self), the subword piece) of an id."""
        size = len(self) + (self.subword.vocab_size if self.subword is not None else 0)
        if not isinstance(i, int) or not 0 <= i < size:
            raise InvalidValueError(f"token id {i!r} is out of range: vocab_size is {size}")
        return self.index_to_key[i] if i < len(self) else self.subword.piece(i - len(self))

    def tokens(self, text: str) -> list[str]:
        """The pieces `encode` chooses, as strings."""
        return [self.token(i) for i in self.encode(text)]

    def _key(self, word: str) -> str:
        return word.lower() if self.lowercase else word


# ----- frequency statistics -------------------------------------------------------------------


def pieces_per_word(tokenizer: SubwordTokenizer, word_counts: Counter[str]) -> float:
    """Average pieces per running word (each distinct word encoded once, weighted by count).

    Words are encoded with a leading space, as they stand in running text for byte-level BPE.
    """
    total = sum(word_counts.values())
    if not total:
        raise InvalidValueError("no words to measure")
    pieces = sum(len(tokenizer.encode(" " + w)) * c for w, c in word_counts.items())
    return pieces / total


def piece_counts(tokenizer: SubwordTokenizer, lines: Iterable[str]) -> list[int]:
    """How often each token id occurs when the corpus is encoded: (vocab_size,) counts.

    This is the number of gradient updates the token's embedding row would get per epoch.
    """
    counts = [0] * tokenizer.vocab_size
    for line in lines:
        for i in tokenizer.encode(line):
            counts[i] += 1
    return counts


@dataclass(frozen=True)
class FrequencyBands:
    """Token ids split by corpus count at `threshold`."""

    threshold: int
    well_trained: list[int]  # ids seen at least `threshold` times
    rare: list[int]  # ids seen fewer times (never-seen ids included)

    @property
    def rare_share(self) -> float:
        return len(self.rare) / (len(self.rare) + len(self.well_trained))


def frequency_bands(counts: list[int], threshold: int) -> FrequencyBands:
    """Split ids into well-trained (count >= threshold) and rare rows.

    >>> frequency_bands([500, 3, 0, 120], threshold=100).rare
    [1, 2]
    """
    threshold = check_int("threshold", threshold, low=1)
    well = [i for i, c in enumerate(counts) if c >= threshold]
    rare = [i for i, c in enumerate(counts) if c < threshold]
    return FrequencyBands(threshold, well, rare)


# Named bands of corpus count, most frequent first: how well a row can be trained.
BANDS = ((100_000, "very frequent"), (10_000, "frequent"), (1_000, "common"), (100, "uncommon"), (0, "rare"))


def band(count: int) -> str:
    """The name of the band a corpus count falls in.

    >>> band(250_000), band(42)
    ('very frequent', 'rare')
    """
    return next(name for floor, name in BANDS if count >= floor)
