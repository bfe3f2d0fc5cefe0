"""Themed words: small groups of related words that a trained table should gather together.

    WORDS                 every themed word, in THEMES order (the tokens a training run watches)
    COLOURS["places"]     '#b3261e': each group's colour on the lab's maps, OTHER's too
    theme_of("paris")     'places'; a word in no group -> 'other'

The lab colours maps by these groups and `embedlab train` snapshots their rows, so a page and a
run folder speak of the same words.
"""

from __future__ import annotations

THEMES: dict[str, tuple[str, ...]] = {
    "people": ("king", "queen", "man", "woman", "boy", "girl", "father", "mother", "son", "daughter"),
    "numbers": ("one", "two", "three", "four", "five"),
    "days": ("monday", "tuesday", "friday"),
    "months": ("january", "march"),
    "places": ("france", "england", "paris", "london"),
    "colours": ("red", "blue", "green"),
    "war": ("war", "army"),
    "elements": ("water", "fire"),
}
WORDS: tuple[str, ...] = tuple(word for words in THEMES.values() for word in words)
OTHER = "other"
# One CSS colour per group (and OTHER), the same on every lab page: the pages read it from the API.
COLOURS: dict[str, str] = {
    "people": "#2f6fde", "numbers": "#d9822b", "days": "#2e9d5b", "months": "#3a9fb0", "places": "#b3261e",
    "colours": "#7b4fc9", "war": "#8c6d46", "elements": "#d45d9e", OTHER: "#9aa3b2",
}  # fmt: skip

_THEME_OF = {word: theme for theme, words in THEMES.items() for word in words}


def theme_of(word: str) -> str:
    """The THEMES group of `word`, OTHER for a word in none.

    >>> theme_of("paris"), theme_of("zebra")
    ('places', 'other')
    """
    return _THEME_OF.get(word, OTHER)
