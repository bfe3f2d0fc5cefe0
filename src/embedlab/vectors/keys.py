"""A word's key in any table, and the themed words a table holds.

    resolve_key(vectors, "king")     'king', or 'Ġking' in a byte-level BPE table (an lm run's), else
                                     UnknownKeyError naming the closest keys
    themed_keys(vectors, ["animals"])   [(word, key, theme), ...] for each themed word the table holds

A table trained by `embedlab train --method lm` keys its rows by byte-level pieces, where a word
after a space is "Ġ" + word (tokenizer.bytes.word_key); resolving through here lets the same word
find its row in a word2vec table, a BERT table and an lm's.
"""

from __future__ import annotations

from collections.abc import Iterable

from embedlab.data.themes import THEMES, pick_themes
from embedlab.tokenizer.bytes import word_key
from embedlab.vectors.table import Vectors


def resolve_key(vectors: Vectors, word: str) -> str:
    """The key of `word`: itself, else "Ġ" + word; UnknownKeyError (naming close keys) if neither.

    >>> resolve_key(Vectors(["Ġking", "Ġqueen"], [[1.0, 0.0], [0.0, 1.0]]), "king")
    'Ġking'
    """
    key = word_key(word, vectors)
    if key is None:
        vectors.index_of(word)  # raises for a word the table lacks, naming close keys
    return key


def themed_keys(vectors: Vectors, themes: Iterable[str] | None = None) -> list[tuple[str, str, str]]:
    """(word, key, theme) for every word of the THEMES groups named (default: all) that the table
    holds, in THEMES order."""
    found = []
    for theme in pick_themes(themes):
        for word in THEMES[theme]:
            key = word_key(word, vectors)
            if key is not None:
                found.append((word, key, theme))
    return found
