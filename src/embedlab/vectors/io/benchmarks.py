"""Benchmark files: word pairs with a human score, and analogy questions under section headers.

    read_pairs(path)       [(word1, word2, score), ...] from "word1<TAB>word2<TAB>score" lines
    read_analogies(path)   [(section, [(a, b, c, d), ...]), ...] from ": section" and "a b c d" lines

The rules of what is skipped are gensim's (KeyedVectors.evaluate_word_pairs and
evaluate_word_analogies), so a file counts the same questions here as there.
"""

from __future__ import annotations

import io
from pathlib import Path

from embedlab.errors import FileFormatError
from embedlab.vectors.io.text import decode

PAIRS = "word pairs: 'word1<TAB>word2<TAB>score' a line"
ANALOGIES = "analogy questions: ': section' lines, then 'a b c d' lines"


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
