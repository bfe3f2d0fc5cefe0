"""Text corpora streamed line by line: built-in ones cleaned to plain text, and any text file.

    for line in open_corpus("gcide"):          # Webster 1913 (Debian's dict-gcide), cleaned
    for line in open_corpus("enwiki-sample"):  # gensim's shortened Wikipedia dump, markup removed
    for line in open_corpus("notes.txt"):      # any UTF-8 text file
    train, held = split_lines(open_corpus("gcide"))   # every 10th line held out, for measuring

Nothing is read into memory whole: each corpus is a re-iterable stream of lines, so counting
tables are the only thing that grows with the corpus. (The one exception is small: a Wikipedia
dump's parsed paragraphs are kept, in memory once a process and as text in the cache folder once a
machine, since parsing its markup takes seconds.)
"""

from __future__ import annotations

import bz2
import functools
import gzip
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from embedlab.data.benchmarks import gensim_test_file
from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_int
from embedlab.files import atomic_write_text, cache_dir, check_path
from embedlab.files.reading import file_exists, file_kind

log = logging.getLogger("embedlab")

GCIDE_PATH = Path("/usr/share/dictd/gcide.dict.dz")
ENWIKI_FILE = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"


@dataclass(frozen=True)
class Corpus:
    """A named, re-iterable stream of text lines (without their line breaks)."""

    name: str
    path: Path
    reader: Callable[[Path], Iterator[str]]

    def __iter__(self) -> Iterator[str]:
        return self.reader(self.path)

    @property
    def plain_file(self) -> Path | None:
        """The file itself when its lines are the corpus (a text file), None for a parsed dump."""
        return self.path if self.reader is text_lines else None


def open_corpus(name_or_path: str | Path) -> Corpus:
    """A built-in corpus by name ("gcide", "enwiki-sample") or a text file by path."""
    key = str(name_or_path)
    if key == "gcide":
        if not GCIDE_PATH.is_file():
            raise MissingDataError(f"gcide needs Debian's dict-gcide ({GCIDE_PATH}): apt-get install dict-gcide")
        return Corpus("gcide", GCIDE_PATH, gcide_lines)
    if key == "enwiki-sample":
        return Corpus("enwiki-sample", gensim_test_file(ENWIKI_FILE, "the enwiki-sample corpus"), wiki_lines)
    path = Path(check_path(name_or_path, "a corpus's name or path"))
    if not file_exists(path, "a corpus of UTF-8 text"):
        raise MissingDataError(f"corpus {key!r} is neither a built-in name ({', '.join(CORPORA)}) nor a file")
    if path.stat().st_size == 0:
        raise InvalidValueError(f"corpus file {path} is empty")
    kind = file_kind(path)
    if kind != "text":  # a few bytes that are not UTF-8 are replaced (text_lines); a binary file is refused
        raise FileFormatError(
            f"{path}: expected a corpus of UTF-8 text, one sentence or paragraph a line; found {kind}"
        )
    return Corpus(path.name, path, text_lines)


CORPORA = ("enwiki-sample", "gcide")
HELD_OUT = 10  # every 10th line of a corpus is held out: never trained on, kept for measuring


def missing_corpora() -> dict[str, str | None]:
    """Each built-in corpus -> None if it can be read here, else the message saying what to install."""
    missing = {}
    for name in CORPORA:
        try:
            open_corpus(name)
            missing[name] = None
        except MissingDataError as err:
            missing[name] = str(err)
    return missing


# ----- any text file -------------------------------------------------------------------------


def text_lines(path: Path) -> Iterator[str]:
    """Lines of a UTF-8 file; each invalid byte becomes U+FFFD and one warning counts them.

    Decoding line by line is safe: the newline byte never occurs inside a UTF-8 sequence.
    """
    bad = 0
    with path.open("rb") as f:
        for raw in f:
            # surrogateescape maps each undecodable byte to one code point in U+DC80..U+DCFF
            line, n = _ESCAPED.subn("\ufffd", raw.decode("utf-8", errors="surrogateescape"))
            bad += n
            yield line.rstrip("\r\n")
    if bad:
        log.warning("%s: replaced %d invalid UTF-8 byte(s) with U+FFFD", path, bad)


_ESCAPED = re.compile("[\udc80-\udcff]")


# ----- Wikipedia (gensim's test dump) -------------------------------------------------------


def wiki_lines(path: Path) -> Iterator[str]:
    """Paragraphs of article text from a MediaWiki XML dump (.bz2), markup removed."""
    stat = path.stat()
    yield from _wiki_paragraphs(path, stat.st_size, stat.st_mtime_ns)


WIKI_PARSE_VERSION = 1  # part of the cached text's name: raise it when _plain_wiki's output changes


@functools.lru_cache(maxsize=1)
def _wiki_paragraphs(path: Path, size: int, mtime_ns: int) -> tuple[str, ...]:
    """The dump's paragraphs for the file as it is now (its size and time are the key), parsed once a
    machine: parsing markup takes seconds (about 5 for enwiki-sample), reading its few megabytes of
    text back a few hundredths. The text is kept in cache_dir()/corpora, named by the dump, its size
    and time, gensim's version (whose parser made it) and WIKI_PARSE_VERSION."""
    cached = (
        cache_dir() / "corpora" / f"{path.name}.{size}.{mtime_ns}.gensim-{version('gensim')}.v{WIKI_PARSE_VERSION}.txt"
    )
    paragraphs = _read_paragraphs(cached)
    if paragraphs is None:
        paragraphs = _parse_wiki(path)
        try:  # a cache that cannot be written costs the next process time, not its answer
            cached.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(cached, f"{len(paragraphs)}\n" + "".join(f"{p}\n" for p in paragraphs))
        except (OSError, InvalidValueError) as err:  # InvalidValueError: a folder where the file goes
            log.debug("could not keep the parsed dump in %s: %s", cached, err)
    return paragraphs


def _read_paragraphs(path: Path) -> tuple[str, ...] | None:
    """The paragraphs kept in `path` (their count, then one a line), or None for a missing, unreadable
    or damaged file, which is parsed again. No paragraph holds a line break (_plain_wiki splits them)."""
    try:
        count, *paragraphs = path.read_text(encoding="utf-8").split("\n")[:-1]
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return tuple(paragraphs) if count == str(len(paragraphs)) else None


def _parse_wiki(path: Path) -> tuple[str, ...]:
    """Every article's paragraphs in the dump at `path`, markup removed, redirects left out."""
    from gensim.corpora.wikicorpus import extract_pages, filter_wiki  # the dump's own parser

    paragraphs = []
    with bz2.open(path, "rt", encoding="utf-8") as f:
        for _title, text, _ in extract_pages(f, filter_namespaces=("0",)):
            if not text.lstrip().lower().startswith("#redirect"):
                paragraphs.extend(_plain_wiki(filter_wiki(text)))
    return tuple(paragraphs)


_WIKI_HEADING = re.compile(r"^=+\s*(.*?)\s*=+$")
_WIKI_EMPHASIS = re.compile(r"'{2,}")


def _plain_wiki(text: str) -> Iterator[str]:
    """filter_wiki's output -> clean paragraphs: no headings' '=', no bold quotes, no list marks."""
    for line in text.splitlines():
        line = _WIKI_EMPHASIS.sub("", line).strip()
        heading = _WIKI_HEADING.match(line)
        if heading:
            continue  # section titles are not running text
        line = line.lstrip("*#:;| ").strip()
        if len(line.split()) >= 3:  # drop table debris and one-word leftovers
            yield line


# ----- GCIDE (Webster 1913) -----------------------------------------------------------------

HEADWORD = re.compile(r"^\S[^\\]*\\[^\\]+\\")  # "Abscess \Ab"scess\ ..." starts an entry
_PRONUNCIATION = re.compile(r"\\[^\\]*\\|\((?=[^)]*\[[^\]\s]{1,4}\])[^)]*\)")  # \Ab"scess\ and ([a^]b"s[e^]s)
_SOURCE_TAG = re.compile(r"\[(?:[^\]]*(?:Webster|WordNet|PJC|Century|Supp)[^\]]*|[A-Z]{2,4})(?:\]|$)")  # some lack "]"
_CHAR_MARK = re.compile(r"\[[\"^=.`'~,]?([A-Za-z]{1,2})[\"^=.`'~,]?\]")  # co["o]rdinate, [ae]
_BRACES = re.compile(r"[{}]")


def gcide_lines(path: Path) -> Iterator[str]:
    """Entries of the dictionary as plain English: one paragraph per line, markup removed."""
    for paragraph in gcide_paragraphs(path):
        yield clean_gcide(" ".join(paragraph))


def gcide_paragraphs(path: Path) -> Iterator[list[str]]:
    """The dictionary's paragraphs as they are in the file: each a list of its lines, stripped, markup
    kept (data.gcide reads entries from them); the licence blocks before each letter left out."""
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        in_entries, paragraph = False, []
        for raw in f:
            line = raw.rstrip("\n")
            if "Begin file" in line and "of 26" in line:
                in_entries = False  # a licence block precedes each letter
            elif HEADWORD.match(line):
                in_entries = True
            if not in_entries:
                continue
            if not line.strip():
                if paragraph:
                    yield paragraph
                    paragraph = []
                continue
            paragraph.append(line.strip())
        if paragraph:
            yield paragraph


def clean_gcide(text: str) -> str:
    """A paragraph of the file as plain text: pronunciations, source tags, letter marks and braces removed."""
    text = _PRONUNCIATION.sub("", text)
    text = _SOURCE_TAG.sub("", text)
    text = _CHAR_MARK.sub(r"\1", text)
    text = _BRACES.sub("", text)
    return re.sub(r"\s+", " ", text).strip()


def split_lines(lines: Iterable[str], every: int = HELD_OUT) -> tuple[list[str], list[str]]:
    """(training lines, held-out lines): line i is held out when i % every == every - 1, so the
    split depends on nothing but the order of the lines, and the held-out part is spread over the
    whole corpus rather than being its last articles.

    >>> split_lines(["a", "b", "c", "d", "e", "f", "g"], every=3)
    (['a', 'b', 'd', 'e', 'g'], ['c', 'f'])
    """
    every = check_int("every", every, low=2)
    train: list[str] = []
    held: list[str] = []
    for i, line in enumerate(lines):
        (held if i % every == every - 1 else train).append(line)
    return train, held
