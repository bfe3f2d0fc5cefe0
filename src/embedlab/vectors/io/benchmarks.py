"""Benchmark files: word pairs with a human score, and analogy questions under section headers.

    read_pairs(path)                [(word1, word2, score), ...] from "word1<TAB>word2<TAB>score" lines
    read_pair_table(path)           the same from a CSV file whose header names word1, word2, similarity
    read_tsv_pairs(path, columns)   the same from a headerless tab-separated file, columns at given positions
    read_benchmark_pairs("rw")      the pairs of a built-in word-pair benchmark, each read as its format is
    read_analogies(path)            [(section, [(a, b, c, d), ...]), ...] from ": section" and "a b c d" lines

The rules of what read_pairs and read_analogies skip are gensim's (KeyedVectors.evaluate_word_pairs
and evaluate_word_analogies), so a file counts the same questions here as there. The CSV files
(RW, MEN, SimVerb-3500, MTurk-771) and the TSV files (WordSim-353 rel, CARD-660), see
data/benchmark_files/README.md, are read strictly: they ship with embedlab, so a row that does not
parse is a broken file, not a line to skip.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from embedlab.data.benchmarks import ALL_PAIR_BENCHMARKS, FROM_GENSIM, POS_TAGGED, TSV_COLUMNS, benchmark_path
from embedlab.errors import FileFormatError, unknown_name
from embedlab.vectors.io.text import decode

PAIRS = "word pairs: 'word1<TAB>word2<TAB>score' a line"
PAIR_TABLE = "word pairs as CSV: a header naming the columns word1, word2 and similarity, then a row per pair"
TSV_PAIRS = "word pairs as tab-separated lines without a header"
ANALOGIES = "analogy questions: ': section' lines, then 'a b c d' lines"
COLUMNS = ("word1", "word2", "similarity")  # what a pair table's header must name, in any order
POS_TAGS = ("n", "v", "j")  # MEN's part-of-speech tags: noun, verb, adjective ("sun-n")


def read_pairs(path: Path, delimiter: str = "\t") -> list[tuple[str, str, float]]:
    """(word1, word2, score) of every usable line of a word-pair file: lines starting with "#",
    without exactly 3 fields or whose score is no number are skipped, as gensim does.

    A file "# WordSim\\ntiger\\tcat\\t7.35\\nbad line\\n" -> [("tiger", "cat", 7.35)].
    """
    pairs = []
    with io.StringIO(decode(Path(path), PAIRS), newline=None) as lines:  # newline=None: line ends as open()'s
        for line in lines:
            fields = line.split(delimiter)
            if line.startswith("#") or len(fields) != 3:
                continue
            try:
                pairs.append((fields[0], fields[1], float(fields[2])))
            except ValueError:
                continue
    return pairs


def read_pair_table(path: Path, *, pos_tagged: bool = False) -> list[tuple[str, str, float]]:
    """(word1, word2, score) of every row of a CSV file whose header names the columns word1, word2 and
    similarity, found by name (SimVerb-3500 puts similarity first; other columns, such as the row
    index the built-in files start with, are ignored). With `pos_tagged` each word must end in a
    part-of-speech tag of POS_TAGS, "sun-n", which is stripped: MEN's words.

    A file ",word1,word2,similarity\\n0,sun-n,sunlight-n,50.0\\n" with pos_tagged -> [("sun", "sunlight", 50.0)].
    """
    path = Path(path)
    with io.StringIO(decode(path, PAIR_TABLE), newline="") as text:  # newline="": as the csv module asks
        rows = csv.reader(text)
        header = next(rows, [])
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise FileFormatError(f"{path}: the header {header} lacks {', '.join(missing)}; expected {PAIR_TABLE}")
        at = [header.index(c) for c in COLUMNS]
        pairs = []
        for number, row in enumerate(rows, start=2):
            try:
                a, b, score = (row[i] for i in at)
                pairs.append((*(_untag(w) if pos_tagged else w for w in (a, b)), float(score)))
            except (IndexError, ValueError) as err:
                reason = (
                    str(err) if isinstance(err, FileFormatError) else "a missing field or a score that is no number"
                )
                raise FileFormatError(f"{path}, line {number}: {reason}; expected {PAIR_TABLE}") from None
    return pairs


def read_tsv_pairs(path: Path, columns: tuple[int, int, int]) -> list[tuple[str, str, float]]:
    """(word1, word2, score) of every line of a headerless tab-separated file, taken from the fields at
    `columns` (word1's, word2's, the score's); every line must have them (a FileFormatError names it).

    A file "0\tcomputer\tkeyboard\t7.62\n" with columns (1, 2, 3) -> [("computer", "keyboard", 7.62)].
    """
    path = Path(path)
    pairs = []
    with io.StringIO(decode(path, TSV_PAIRS), newline=None) as lines:
        for number, line in enumerate(lines, start=1):
            fields = line.rstrip("\n").split("\t")
            try:
                a, b, score = (fields[i] for i in columns)
                pairs.append((a, b, float(score)))
            except (IndexError, ValueError):
                raise FileFormatError(
                    f"{path}, line {number}: a missing field or a score that is no number; expected {TSV_PAIRS}, "
                    f"word1, word2 and the score in fields {', '.join(str(i + 1) for i in columns)}"
                ) from None
            if not (a and b):
                raise FileFormatError(f"{path}, line {number}: an empty word; expected {TSV_PAIRS}")
    return pairs


def read_benchmark_pairs(name: str) -> list[tuple[str, str, float]]:
    """The (word1, word2, score) pairs of a built-in word-pair benchmark (data.benchmarks.ALL_PAIR_BENCHMARKS):
    gensim's files by read_pairs, the CSV files by read_pair_table (MEN's tags stripped), the TSV files
    by read_tsv_pairs (CARD-660's multi-word terms keep their "_": "formic_acid").

    >>> read_benchmark_pairs("men")[0]
    ('sun', 'sunlight', 50.0)
    >>> read_benchmark_pairs("wordsim353rel")[0]
    ('computer', 'keyboard', 7.62)
    """
    if name not in ALL_PAIR_BENCHMARKS:
        raise unknown_name("word-pair benchmark", name, ALL_PAIR_BENCHMARKS)
    path = benchmark_path(name)
    if name in FROM_GENSIM:
        return read_pairs(path)
    if name in TSV_COLUMNS:
        return read_tsv_pairs(path, TSV_COLUMNS[name])
    return read_pair_table(path, pos_tagged=name in POS_TAGGED)


def _untag(word: str) -> str:
    """MEN's "sun-n" -> "sun"; a word without a tag of POS_TAGS is a FileFormatError (a ValueError)."""
    stem, dash, tag = word.rpartition("-")
    if not (dash and stem and tag in POS_TAGS):
        raise FileFormatError(f"{word!r} lacks a part-of-speech tag ({', '.join('-' + t for t in POS_TAGS)})")
    return stem


def read_analogies(path: Path) -> list[tuple[str, list[tuple[str, ...]]]]:
    """[(section, [(a, b, c, d), ...]), ...] of an analogy file, in file order. Lines that are not
    4 words are skipped; a question before the first ": section" line is a FileFormatError (blank
    lines there are skipped, where gensim raises).

    A file ": capitals\\nathens greece paris france\\n" -> [("capitals", [("athens", "greece", "paris", "france")])].
    """
    sections: list[tuple[str, list[tuple[str, ...]]]] = []
    with io.StringIO(decode(Path(path), ANALOGIES), newline=None) as lines:
        for number, line in enumerate(lines, start=1):
            if line.startswith(": "):
                sections.append((line.lstrip(": ").strip(), []))  # subtle: strips every leading ":" and " ", as gensim
            elif not sections and line.strip():
                raise FileFormatError(
                    f"{path}, line {number}: a question before the first ': section' line; expected {ANALOGIES}"
                )
            elif len(words := line.split()) == 4:
                sections[-1][1].append(tuple(words))
    return sections
