"""Webster 1913 (Debian's dict-gcide) read as a dictionary rather than as running text: its entries, each
entry's first definition, and the senses it marks with a subject label such as "(Zool.)". Two offline
instruments are built from them (vectors.instruments):

    reverse_dictionary_pairs()   [(headword, definition)]: 5,000 common headwords, each with its first
                                 definition, the headword's own forms removed from it
    domain_definitions()         [(label, definition, held_out)]: every labelled sense's text, classes of
                                 300 examples or more, a fixed fifth held out by the text's md5
    unscored_paragraphs()        the paragraphs neither instrument is made of: text to train on that
                                 no figure is measured on

Both are derived from the installed dictionary at run time (nothing ships), parsed once a process.

    >>> clean_definition("To renounce upon oath; to forswear; as, to abjure allegiance. --Shak.")
    'To renounce upon oath; to forswear'
    >>> without_headword("One who abjures the realm; abjuring", "abjure")
    'One who the realm'
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from embedlab.data.corpora import GCIDE_PATH, HEADWORD, clean_gcide, gcide_paragraphs, open_corpus

REVERSE_PAIRS = 5000
MIN_HEADWORD_COUNT = 20  # a headword this often in the dictionary's own text is a common word (see below)
MIN_DOMAIN_EXAMPLES = 300  # a subject label with fewer definitions is not a class
HELD_OUT = 5  # md5(text) % 5 == 0: the held-out fifth


@dataclass(frozen=True)
class Entry:
    """One entry: its headword as printed ("Abjure"; letter marks resolved) and its paragraphs as plain
    text, the first without the headword and pronunciation ("v. t. [imp. & p. p. Abjured ...] 1. To ...")."""

    headword: str
    paragraphs: tuple[str, ...]


def gcide_entries(path: Path = GCIDE_PATH) -> Iterator[Entry]:
    """Every entry of the dictionary in file order (about 200,000; homographs are entries of their own)."""
    headword, paragraphs = None, []
    for paragraph in gcide_paragraphs(path):
        head = HEADWORD.match(paragraph[0])
        if head:
            if headword is not None:
                yield Entry(headword, tuple(paragraphs))
            headword = clean_gcide(paragraph[0][: paragraph[0].index("\\")])
            paragraphs = [clean_gcide(" ".join([paragraph[0][head.end() :], *paragraph[1:]]))]
        elif headword is not None:
            paragraphs.append(clean_gcide(" ".join(paragraph)))
    if headword is not None:
        yield Entry(headword, tuple(paragraphs))


# What precedes a definition: part of speech ("v. t."), etymology and inflections in brackets, a subject
# label, a sense number ("1." or WordNet's "1. 1"), another spelling of the headword ("Colour ,").
_LEAD = re.compile(
    r"^(?:[\s,;:]+|\d+\.(?=\s)|\d+(?=\s+[a-z])|[a-z]{1,6}\.(?=[\s,])"
    r"|\[(?:[^\[\]]|\[[^\]]*\])*\]|\([^)]*\)|[A-Z][\w'-]* ,)+"
)
# Where the first definition ends: a citation, an example ("as, ..."), a tag, the next sentence or sense.
_END = re.compile(r"\s--|[;:,]\s*as,|\.\s|\s\[|\s\(\w+\.\)|\s\d+\.\s|\bSyn:|$")
SUBJECT = re.compile(r"\(([A-Z][a-z]+\.(?: [A-Z][a-z]+\.)?)\)\s")  # "(Zool.) ", "(Physiol. Chem.) "


def clean_definition(text: str) -> str:
    """The first definition in a paragraph: what leads it stripped, cut where it ends."""
    text = _LEAD.sub("", text)
    return text[: _END.search(text).start()].strip(" .;,:")


def first_definition(entry: Entry) -> str:
    """The entry's first definition ("" if it has none: a cross-reference, a header alone)."""
    for paragraph in entry.paragraphs[:2]:  # a header paragraph may hold no definition; the next one does
        definition = clean_definition(paragraph)
        if definition:
            return definition
    return ""


def without_headword(definition: str, headword: str) -> str:
    """`definition` without the words that are forms of `headword` (is_form)."""
    kept = [w for w in definition.split() if not is_form(w.lower().strip("\"'(),.;:"), headword.lower())]
    return " ".join(kept).strip(" .;,:")


def is_form(word: str, headword: str) -> bool:
    """Whether `word` looks like a form of `headword`: it starts with a headword of 4 letters or fewer, or
    the two share a prefix of 4 letters or more that falls at most 3 letters short of the shorter word
    ("abjuring" of "abjure", "strict" of "strictness", "atmosphere" of "atmospheric").

    >>> [is_form(w, "abjure") for w in ("abjures", "abjuration", "abject")]
    [True, True, False]
    """
    if len(headword) <= 4:
        return word.startswith(headword)
    shared = len(os.path.commonprefix([word, headword]))
    return shared >= 4 and shared >= min(len(word), len(headword)) - 3


@functools.lru_cache(maxsize=1)
def entries() -> tuple[Entry, ...]:
    """gcide_entries() of the installed dictionary, read once a process (about 8 s, 60 MB)."""
    if not GCIDE_PATH.is_file():
        open_corpus("gcide")  # raises the message that says what to install
    return tuple(gcide_entries())


def word_counts() -> Counter:
    """How often each lower-cased word of letters occurs in the dictionary's text (headwords aside)."""
    counts: Counter = Counter()
    for entry in entries():
        for paragraph in entry.paragraphs:
            counts.update(_WORD.findall(paragraph.lower()))
    return counts


_WORD = re.compile(r"[a-z]+")
_POINTER = re.compile(r"(?i)(see|same as|alt\. of)\b")  # a cross-reference, not a definition


@functools.lru_cache(maxsize=1)
def reverse_dictionary_pairs(count: int = REVERSE_PAIRS) -> tuple[tuple[str, str], ...]:
    """`count` (headword, definition) pairs: one a headword (its first entry's first definition), headwords
    of letters alone and 3 or more of them, used at least MIN_HEADWORD_COUNT times in the dictionary's
    text (a common word: the task is then about meaning, not about 1913's rarest words), definitions that
    are no cross-reference ("See ...", "Same as ...") and keep 3 or more words once the headword's own
    forms are out. The `count` are the first in md5 order of the headword: fixed, spread over the alphabet."""
    counts, seen, pairs = word_counts(), set(), []
    for entry in entries():
        word = entry.headword.lower()
        if word in seen or not _WORD.fullmatch(word) or len(word) < 3:
            continue
        seen.add(word)
        definition = first_definition(entry)
        if counts[word] < MIN_HEADWORD_COUNT or _POINTER.match(definition):
            continue
        definition = without_headword(definition, word)
        if len(definition.split()) >= 3:
            pairs.append((word, definition))
    pairs.sort(key=lambda pair: _md5(pair[0]))
    return tuple(pairs[:count])


@functools.lru_cache(maxsize=1)
def domain_definitions() -> tuple[tuple[str, str, bool], ...]:
    """(label, definition, held_out) for every sense that follows a subject label: the text after the label
    to the end of that definition (clean_definition), lower-cased, 3 words or more; a text found under two
    labels is left out, one found twice under one label kept once; labels with fewer than
    MIN_DOMAIN_EXAMPLES texts left out. held_out: md5(text) % HELD_OUT == 0, about a fifth."""
    labels: dict[str, set[str]] = {}
    for entry in entries():
        for paragraph in entry.paragraphs:
            for match in SUBJECT.finditer(paragraph):
                text = clean_definition(paragraph[match.end() :]).lower()
                if len(text.split()) >= 3 and not _POINTER.match(text):
                    labels.setdefault(text, set()).add(match.group(1))
    single = [(next(iter(found)), text) for text, found in labels.items() if len(found) == 1]
    sizes = Counter(label for label, _ in single)
    return tuple(
        sorted(
            (label, text, int(_md5(text), 16) % HELD_OUT == 0)
            for label, text in single
            if sizes[label] >= MIN_DOMAIN_EXAMPLES
        )
    )


DOMAIN_SETS = {"gcide-domains": False, "gcide-domains-test": True}  # name -> held_out: the classifier's built-in sets


def domain_text(held_out: bool) -> str:
    """domain_definitions as fastText's labelled text, one "__label__zool a small fish" line each, in md5
    order of the text (a fixed shuffle: sorted by label, a classifier trained in one pass would see one
    class at a time): the training lines (held_out False) or the held-out fifth."""
    lines = [
        f"__label__{label.lower().rstrip('.').replace('. ', '_')} {text}"
        for label, text, held in domain_definitions()
        if held == held_out
    ]
    return "".join(line + "\n" for line in sorted(lines, key=lambda line: _md5(line.split(" ", 1)[1])))


def unscored_paragraphs() -> Iterator[str]:
    """Every paragraph of the dictionary but those the two instruments draw on: the entries of the
    reverse dictionary's headwords (any homograph) and every paragraph with a subject label."""
    scored = {headword for headword, _ in reverse_dictionary_pairs()}
    for entry in entries():
        if entry.headword.lower() not in scored:
            yield from (p for p in entry.paragraphs if not SUBJECT.search(p))


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()
