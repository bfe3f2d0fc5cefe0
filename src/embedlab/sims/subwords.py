"""A ladder of byte-level BPE vocabularies (1K, 8K, 32K pieces) on one corpus, trained once and
kept on disk, with how often each piece occurs in that corpus.

    ladder = VocabularyLadder.open(open_corpus("enwiki-sample"), cache_dir() / "subwords")
    for split in ladder.split("unhappiness"):          # one Split per size, smallest first
        [(p.text, p.count) for p in split.pieces]      # [("␣un", 1191), ("ha", 366), ...]
    ladder.splits("unhappiness")                       # TextSplits: the same with the text, as the lab page shows it
    vocabularies(cache_dir() / "subwords")             # Vocabularies: which corpora are here, which sizes trained

The vocabularies see only the corpus's training part: split_lines holds out every 10th line, so
sims.subword_table can measure them on text they were not trained on. Piece counts are taken
over the training part too.

Each size is its own trainer run, but the trainer picks merges without looking at where it will
stop, so a smaller vocabulary's merges are the first merges of a bigger one (the tests check).
Hence a word's pieces under 32K are each a run of its pieces under 1K: never more pieces.

Files in the folder, per corpus and size (CORPUS is the corpus's name, vN the CACHE_VERSION):
    CORPUS-SIZE-vN.json          tokenizer.json, readable by FastTokenizer.load
    CORPUS-SIZE-vN.counts.json   piece id -> occurrences in the training part (FastTokenizer.save)
    CORPUS-SIZE-vN.meta.json     VocabularyInfo; written last, so its presence means the rest is whole
Every file is written atomically, and an exclusive lock on CORPUS.lock makes a second process (or
thread) that opens the same ladder wait for the first one's training and then load its files.
"""

from __future__ import annotations

import fcntl
import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from embedlab.data.corpora import Corpus, missing_corpora, split_lines
from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_int
from embedlab.files import atomic_write_text
from embedlab.files.reading import read_json
from embedlab.sims.unseen_word import MAX_K, MAX_WORD
from embedlab.tokenizer.bytes import piece_bytes
from embedlab.tokenizer.fast import FastTokenizer
from embedlab.tokenizer.vocab import piece_counts
from embedlab.vectors.frequency import BANDS, band

log = logging.getLogger("embedlab")

SIZES = (1_000, 8_000, 32_000)  # the lesson's ladder: tiny, BERT-like, Llama-like
MAX_SIZE = 100_000  # the lesson's largest rung (GPT-4-like); gcide's training part supports it
# subtle: version 1 files (CORPUS-SIZE.json, no version) were trained on the whole corpus, held-out
# lines included; a new name makes the ladder train again instead of reading them.
CACHE_VERSION = 2
MAX_TEXT = 100  # characters of a word or a short phrase on the lab page
# The lab page's bounds, listed by /api/config: characters of the text split, the count the colour
# ramp tops out at, and the unseen-word panel's (sims.unseen_word) word length and neighbours.
LIMITS: dict[str, Any] = {"text": MAX_TEXT, "frequent": BANDS[0][0], "word": MAX_WORD, "k": [1, MAX_K]}

_VISIBLE = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"})


def readable(piece: str) -> str:
    """A byte-level piece as text a person can read: a space is "␣" (the vocabulary stores it as
    "Ġ"), and a byte that is only part of a UTF-8 character is written \\xNN.

    >>> readable("Ġcat"), readable("Ã")
    ('␣cat', '\\\\xc3')
    """
    return piece_bytes(piece).decode("utf-8", errors="backslashreplace").translate(_VISIBLE)


@dataclass(frozen=True)
class Piece:
    """One piece of a split text."""

    piece: str  # as the vocabulary stores it (GPT-2's byte stand-ins: "Ġ" is a space)
    text: str  # readable(piece)
    id: int
    count: int  # occurrences when the training part is encoded with this vocabulary
    band: str  # vocab.band(count): "very frequent" ... "rare"


@dataclass(frozen=True)
class Split:
    """A text's pieces under one vocabulary of the ladder."""

    size: int  # vocab_size asked for
    vocab_size: int  # vocab_size reached (less than `size` on a corpus with fewer possible merges)
    pieces: list[Piece]


@dataclass(frozen=True)
class TextSplits:
    """A text's pieces under every vocabulary of a ladder, smallest first."""

    corpus: str  # the corpus the vocabularies were trained on
    text: str
    leading_space: bool  # whether it was encoded after a space, as in running text
    vocabularies: tuple[Split, ...]


@dataclass(frozen=True)
class VocabularyInfo:
    """How one vocabulary of a ladder was made (CORPUS-SIZE.meta.json)."""

    corpus: str
    size: int  # asked for
    vocab_size: int  # reached
    lines: int  # training lines it was trained on and counted over
    held_out: int  # lines held out (every HELD_OUT-th): neither trained on nor counted
    train_seconds: float  # BPE training
    count_seconds: float  # encoding the training part once to count the pieces


@dataclass(frozen=True)
class VocabularyState:
    """One size of a corpus's ladder: trained (and stored) or not yet."""

    size: int  # asked for
    trained: bool
    info: VocabularyInfo | None  # how it was made, once trained


@dataclass(frozen=True)
class CorpusVocabularies:
    """A built-in corpus: whether it can be read here, and which sizes of its ladder are trained."""

    name: str
    available: bool
    missing: str | None  # why it cannot be read here (what to install)
    vocabularies: tuple[VocabularyState, ...]


@dataclass(frozen=True)
class Vocabularies:
    """The built-in corpora's ladders in one folder, as the lab page offers them."""

    sizes: tuple[int, ...]  # the ladder's sizes, SIZES
    default: str  # the corpus a page starts with
    corpora: tuple[CorpusVocabularies, ...]


def vocabularies(folder: str | Path, default: str = "enwiki-sample") -> Vocabularies:
    """Every built-in corpus, whether it can be read here, and which ladder sizes `folder` holds."""
    corpora = []
    for name, missing in missing_corpora().items():
        infos = [stored(folder, name, size) for size in SIZES]
        states = tuple(VocabularyState(size, info is not None, info) for size, info in zip(SIZES, infos, strict=True))
        corpora.append(CorpusVocabularies(name, missing is None, missing, states))
    return Vocabularies(SIZES, default, tuple(corpora))


class VocabularyLadder:
    """Byte-level BPE tokenizers of several sizes on one corpus, with their piece counts."""

    def __init__(self, corpus: str, tokenizers: dict[int, FastTokenizer], infos: dict[int, VocabularyInfo]) -> None:
        self.corpus = corpus
        self.tokenizers = tokenizers  # size asked for -> tokenizer (counts loaded), ascending
        self.infos = infos  # size asked for -> how it was made

    @classmethod
    def open(cls, corpus: Corpus, folder: str | Path, sizes: tuple[int, ...] = SIZES) -> VocabularyLadder:
        """Load the ladder from `folder`, training and saving first the sizes not stored there.

        Files are named after `corpus.name`: two different corpora must not share a name and a folder.
        """
        sizes = _check_sizes(sizes)
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        with _exclusive(folder / f"{corpus.name}.lock"):
            tokenizers = {size: _load(folder, corpus.name, size) for size in sizes}
            missing = [size for size, tokenizer in tokenizers.items() if tokenizer is None]
            if missing:
                lines, held = split_lines(corpus)  # read once for every size (enwiki-sample: 2.9M characters)
                for size in missing:
                    _train(corpus.name, lines, len(held), size, folder)
                    tokenizers[size] = FastTokenizer.load(cache_file(folder, corpus.name, size, "json"))
        infos = {size: stored(folder, corpus.name, size) for size in sizes}
        return cls(corpus.name, tokenizers, infos)

    def splits(self, text: str, leading_space: bool = True) -> TextSplits:
        """split(text) with the text and how it was encoded: the lab page's answer."""
        return TextSplits(self.corpus, text, leading_space, tuple(self.split(text, leading_space)))

    def split(self, text: str, leading_space: bool = True) -> list[Split]:
        """`text`'s pieces under each vocabulary, smallest vocabulary first.

        leading_space: encode " " + text, as a word stands in running text. Byte-level BPE learns
        "Ġword" (after a space) apart from "word" (at the start of a line), and the first is the
        common one.
        """
        if not isinstance(text, str):
            raise InvalidValueError(f"text must be a string; got {type(text).__name__}")
        text = " " + text if leading_space else text
        splits = []
        for size, tokenizer in self.tokenizers.items():
            pieces = []
            for i in tokenizer.encode(text):
                piece, count = tokenizer.piece(i), tokenizer.counts[i]
                pieces.append(Piece(piece, readable(piece), i, count, band(count)))
            splits.append(Split(size, tokenizer.vocab_size, pieces))
        return splits


def stored(folder: str | Path, corpus: str, size: int) -> VocabularyInfo | None:
    """How the stored vocabulary of `corpus` and `size` was made, or None if it is not (all) there.
    A record that is damaged (right keys, wrong types: a string where a number goes), or is another
    vocabulary's, is logged and taken as missing: the vocabulary is trained again, never served."""
    path = cache_file(folder, corpus, size, "meta.json")
    try:
        record = read_json(path, "subword vocabulary record", "it is trained again", types=VocabularyInfo)
        info = VocabularyInfo(**record)
    except MissingDataError:
        return None
    except FileFormatError as err:
        log.warning("subword vocabulary %s-%d is damaged, training it again: %s", corpus, size, err)
        return None
    except TypeError:
        return None  # a field this version does not know: from another version of this module, train again
    if (info.corpus, info.size) != (corpus, size):
        log.warning("subword vocabulary %s-%d: %s records %s-%d, training it again", corpus, size, path, info.corpus,
                    info.size)  # fmt: skip
        return None
    return info if cache_file(folder, corpus, size, "json").is_file() else None


def _load(folder: Path, corpus: str, size: int) -> FastTokenizer | None:
    """The stored vocabulary's tokenizer, or None if it is missing or damaged: then it is trained again
    (the cache is the lab's own, so a damaged file there is rebuilt rather than reported)."""
    if stored(folder, corpus, size) is None:
        return None
    try:
        return FastTokenizer.load(cache_file(folder, corpus, size, "json"))
    except FileFormatError as err:
        log.warning("subword vocabulary %s-%d is damaged, training it again: %s", corpus, size, err)
        return None


def _train(corpus: str, lines: list[str], held_out: int, size: int, folder: Path) -> VocabularyInfo:
    start = time.perf_counter()
    tokenizer = FastTokenizer.train(lines, vocab_size=size)
    trained = time.perf_counter()
    tokenizer.counts = piece_counts(tokenizer, lines)
    counted = time.perf_counter()
    tokenizer.save(cache_file(folder, corpus, size, "json"))  # with the counts beside it
    info = VocabularyInfo(corpus, size, tokenizer.vocab_size, len(lines), held_out, trained - start,
                          counted - trained)  # fmt: skip
    meta = cache_file(folder, corpus, size, "meta.json")
    atomic_write_text(meta, json.dumps(asdict(info)))  # last: marks the set whole
    log.info("subword vocabulary %s-%d: %d pieces, trained in %.1f s", corpus, size, info.vocab_size,
             info.train_seconds)  # fmt: skip
    return info


def cache_file(folder: str | Path, corpus: str, size: int, ending: str) -> Path:
    """folder/CORPUS-SIZE-vN.ending, ending "json", "counts.json" or "meta.json" (not
    Path.with_suffix: a corpus named "notes.txt" has a dot).

    >>> cache_file("cache", "gcide", 8000, "json").name
    'gcide-8000-v2.json'
    """
    return Path(folder) / f"{corpus}-{size}-v{CACHE_VERSION}.{ending}"


def _check_sizes(sizes: tuple[int, ...]) -> tuple[int, ...]:
    sizes = tuple(check_int("size", s, low=257, high=MAX_SIZE) for s in sizes)  # 256 bytes + one merge
    if not sizes or list(sizes) != sorted(set(sizes)):
        raise InvalidValueError(f"sizes must be distinct and ascending; got {sizes}")
    return sizes


@contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (made if missing) until the block ends."""
    with path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # released when the file closes, even if the holder dies
        yield
