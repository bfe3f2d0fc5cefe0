"""Words and word-level vocabularies with special tokens and an OOV policy, and the frequency
statistics behind the lessons' rare-token problem.

    words("The King's men.")             # ['the', "king's", 'men']: the one word tokenizer
    count_words(open_corpus("gcide"))    # Counter of words, in order of first appearance
    most_frequent(counts, min_count=5)   # [(word, count), ...] most frequent first
    vocab = Vocab.build(open_corpus("gcide"), min_count=5, max_size=50_000)
    vocab.encode("the cat sat")          # word ids; unseen words -> [UNK]
    vocab.count("cat")                   # corpus count: how many updates its row would get

`words` is also word2vec's tokenizer (train.corpus builds its WordVocab from count_words and
most_frequent), so a word table trained here and a Vocab built here split text alike.

A whole-word table gives every unseen word the same [UNK] row and every rare word a row that
is barely trained. `oov="subword"` instead spells an unseen word with a subword tokenizer's
pieces, whose ids follow the word ids.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Protocol

from embedlab.errors import InvalidValueError, check_choice, check_int

# Special tokens at fixed ids 0..6, in this order, in every Vocab.
SPECIALS = ("[PAD]", "[UNK]", "[BOS]", "[EOS]", "[CLS]", "[SEP]", "[MASK]")
PAD, UNK, BOS, EOS, CLS, SEP, MASK = range(len(SPECIALS))
OOV_POLICIES = ("unk", "subword")

# A word: a run of letters and digits, with inner apostrophes ("king's", "rock’n’roll") kept.
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


class SubwordTokenizer(Protocol):
    """What a Vocab and the statistics below need from a subword tokenizer (BPE and FastTokenizer
    both qualify)."""

    vocab_size: int

    def encode(self, text: str) -> list[int]: ...

    def encode_batch(self, texts: list[str]) -> list[list[int]]: ...

    def piece(self, token_id: int) -> str: ...


def words(line: str, lowercase: bool = True) -> list[str]:
    """The word tokenizer: runs of letters and digits, inner apostrophes kept, lower-cased
    unless `lowercase=False` (word2vec's tables are trained on lower-cased words).

    >>> words("The King's men -- 3 of them_all -- aren't here.")
    ['the', "king's", 'men', '3', 'of', 'them', 'all', "aren't", 'here']
    """
    return _WORD.findall(line.lower() if lowercase else line)


def count_words(lines: Iterable[str], lowercase: bool = True) -> Counter[str]:
    """Counter of `words` over a stream of lines, in order of first appearance.

    >>> count_words(["The cat sat.", "the CAT"])
    Counter({'the': 2, 'cat': 2, 'sat': 1})
    """
    counter: Counter[str] = Counter()
    lines = iter(lines)
    while batch := list(islice(lines, 1000)):  # one regex pass over 1,000 lines: a third faster than each
        text = "\n".join(batch)  # no word spans a line end: "\n" is not a word character
        counter.update(_WORD.findall(text.lower() if lowercase else text))
    return counter


def most_frequent(counts: Mapping[str, int], min_count: int = 1, max_size: int | None = None) -> list[tuple[str, int]]:
    """(word, count) for words seen at least `min_count` times, most frequent first, ties in the
    order of `counts` (count_words: first appearance), at most `max_size` of them (None: all).

    >>> most_frequent({"cat": 2, "the": 3, "a": 1, "sat": 2}, min_count=2)
    [('the', 3), ('cat', 2), ('sat', 2)]
    """
    min_count = check_int("min_count", min_count, low=1)
    if max_size is not None:
        max_size = check_int("max_size", max_size, low=0)
    kept = [(word, n) for word, n in counts.items() if n >= min_count]
    kept.sort(key=lambda item: -item[1])  # stable: ties keep their order
    return kept[:max_size]


class Vocab:
    """Token <-> id for whole words: SPECIALS first, then words by descending count.

    A tokenizer's word table (specials, OOV policy, text -> ids); word2vec's training rows with
    their subsampling and noise tables are train.corpus.WordVocab, built on the same counting.

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
        words_only = {w: c for w, c in counts.items() if w not in SPECIALS}
        kept = most_frequent(words_only, min_count, None if max_size is None else max_size - len(SPECIALS))
        self.index_to_key: list[str] = [*SPECIALS, *(w for w, _ in kept)]
        self.key_to_index: dict[str, int] = {w: i for i, w in enumerate(self.index_to_key)}
        self.counts: list[int] = [0] * len(SPECIALS) + [c for _, c in kept]  # per id

    @classmethod
    def build(cls, lines: Iterable[str], lowercase: bool = True, **kwargs) -> Vocab:
        """Count the `words` of a corpus (lower-cased, as word2vec's), then Vocab(counts, ...)."""
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
        """`words` -> ids, unknown words by the OOV policy (punctuation is dropped, as in counting)."""
        ids: list[int] = []
        for word in words(text, lowercase=False):  # _key lower-cases if the counts were
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


def piece_counts(tokenizer: SubwordTokenizer, lines: Iterable[str], batch: int = 4096) -> list[int]:
    """How often each token id occurs when the corpus is encoded: (vocab_size,) counts.

    This is the number of gradient updates the token's embedding row would get per epoch. Lines
    are encoded `batch` at a time (FastTokenizer encodes a batch on all cores); keep the result
    as `tokenizer.counts` and FastTokenizer.save writes it beside the tokenizer.
    """
    batch = check_int("batch", batch, low=1)
    counts = [0] * tokenizer.vocab_size
    lines = iter(lines)
    while chunk := list(islice(lines, batch)):
        for ids in tokenizer.encode_batch(chunk):
            for i in ids:
                counts[i] += 1
    return counts
