"""What BPE starts from: the chunks text is cut into (`split`) and the symbols that spell them
(the alphabet, by `mode`).

    SPLITTERS["gpt2"]("the cat's")        ['the', ' cat', "'s"]     GPT-2's regex
    SPLITTERS["whitespace"]("the  cat")   ['the', '  ', 'cat']      words and the runs of space between
    SPLITTERS["none"]("the cat")          ['the cat']               one sequence: merges may cross words
    alphabet("char", ["the cat"])         [' ', 'a', 'c', 'e', 'h', 't']
    alphabet("byte", ["the cat"])         all 256 bytes, in the order of GPT-2's stand-in characters

Merges never cross a chunk boundary, so the split decides which pieces can ever become tokens:
with "gpt2" and "whitespace" a token never spans two words; with "none" "e c" can be one. The
regex patterns are kept as text too (SPLIT_PATTERNS) so that the HuggingFace trainer in fast.py
splits with the very same rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import regex

from embedlab.tokenizer.bytes import bytes_to_unicode

# GPT-2's pre-tokenizer: contractions, letters, digits, other symbols, each with one optional
# leading space, and runs of whitespace.
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# Runs of non-space, and runs of space on their own: a word never carries its neighbour's space
# (unlike GPT-2's " cat"), so "cat" is the same piece wherever it stands in a line.
WHITESPACE_PATTERN = r"\S+|\s+"
SPLIT_PATTERNS = {"gpt2": GPT2_PATTERN, "whitespace": WHITESPACE_PATTERN}
SPLITTERS = {  # split name -> text -> chunks
    **{name: regex.compile(pattern).findall for name, pattern in SPLIT_PATTERNS.items()},
    "none": lambda text: [text] if text else [],
}
SPLITS = tuple(SPLITTERS)
MODES = ("char", "byte")  # the alphabet: the text's characters, or the 256 byte values
HEAD_CHARS = 200  # how much of the text count_chunks keeps as a sample


def count_chunks(lines: Iterable[str], split: str) -> tuple[Counter[str], str]:
    """Chunk -> frequency over all lines (dict order = first appearance), and the text's first
    HEAD_CHARS characters.

    Lines are taken as given: with "gpt2" and "whitespace" each line is cut apart, so a line end
    is a boundary whether or not the line keeps its "\\n"; with "none" the lines are joined into
    one sequence, so lines without their "\\n" run into each other.

    >>> count_chunks(["the cat ", "the hat"], "whitespace")[0]
    Counter({' ': 3, 'the': 2, 'cat': 1, 'hat': 1})
    >>> count_chunks(["the cat ", "the hat"], "none")[0]
    Counter({'the cat the hat': 1})
    """
    splitter = SPLITTERS[split]
    if split == "none":
        lines = ["".join(lines)]
    counts: Counter[str] = Counter()
    head = ""
    for line in lines:
        counts.update(splitter(line))
        if len(head) < HEAD_CHARS:
            head = (head + line)[:HEAD_CHARS]
    return counts, head


def alphabet(mode: str, chunks: Iterable[str]) -> list[bytes | str]:
    """The symbols every chunk is spelled in, in id order.

    "char": the distinct characters of the chunks, by code point. "byte": the 256 byte values,
    ordered by GPT-2's printable stand-in characters, which is the order HuggingFace gives a
    byte-level alphabet (so that ids, and the "hf" tie rule that compares them, agree).

    >>> alphabet("char", ["the cat"])
    [' ', 'a', 'c', 'e', 'h', 't']
    >>> symbols = alphabet("byte", [])
    >>> len(symbols), symbols[0], symbols[-1]
    (256, b'!', b'\\xad')
    """
    if mode == "byte":
        stand_in = bytes_to_unicode()
        return [bytes([b]) for b in sorted(range(256), key=stand_in.get)]
    return sorted({ch for chunk in chunks for ch in chunk})
