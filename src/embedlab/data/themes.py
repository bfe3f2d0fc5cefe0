"""Themed words: small groups of related words that a trained table should gather together.

    THEMES["animals"]       ('dog', 'horse', ...): each group's words, groups in the lessons' order
    WORDS                   every themed word, in THEMES order (the tokens a training run watches)
    COLOURS["places"]       '#b3261e': each group's colour on the lab's maps, OTHER's too
    theme_of("paris")       'places'; a word in no group -> 'other'
    pick_themes(["animals", "function words"])   the names checked, in THEMES order
    theme_words(["colours"])                     ('red', 'blue', ...): the words of the picked groups

The groups are the lessons' (animals and colours, people, places, numbers, buildings, and function
words such as "the" and "of", which a table keeps apart from all the others) plus months, war and
the classical elements. Every word is a whole token of MiniLM's WordPiece vocabulary and occurs at
least 5 times (word2vec's default min_count) in both built-in corpora, enwiki-sample and gcide, so
each group has a row in every table the lab serves or trains. Words that fail this were left out:
"cat" and "kitten" (2 and 0 times in enwiki-sample), the days of the week (tuesday, wednesday,
thursday, saturday: 1 to 4 times), "castle" and "barn". "march" and "may" are left out of months
as being verbs too. A word outside the groups can still be looked up: the lookup map adds it.

The lab colours maps by these groups and lets the user pick which appear; `embedlab train`
snapshots the rows of WORDS; docs/training_figures.py watches them. So a page, a run folder and the
training guide speak of the same words.
"""

from __future__ import annotations

from collections.abc import Iterable

from embedlab.errors import InvalidValueError

THEMES: dict[str, tuple[str, ...]] = {
    "animals": ("dog", "horse", "sheep", "pig", "lion", "wolf", "bird", "fox"),
    "colours": ("red", "blue", "green", "yellow", "white", "black"),
    "people": ("king", "queen", "man", "woman", "boy", "girl", "father", "mother", "son", "daughter"),
    "places": ("france", "england", "germany", "italy", "spain", "russia", "paris", "london"),
    "numbers": ("two", "three", "four", "five", "six", "seven"),
    "buildings": ("house", "building", "church", "temple", "palace", "tower", "school", "hospital"),
    "function words": ("the", "of", "and", "a", "to", "in", "on", "is"),
    "months": ("january", "february", "april", "june", "august", "october"),
    "war": ("war", "army", "battle", "navy"),
    "elements": ("water", "fire", "earth", "air"),
}
WORDS: tuple[str, ...] = tuple(word for words in THEMES.values() for word in words)
OTHER = "other"
# One CSS colour per group (and OTHER), the same on every lab page: the pages read it from the API.
COLOURS: dict[str, str] = {
    "animals": "#2e9d5b", "colours": "#7b4fc9", "people": "#2f6fde", "places": "#b3261e", "numbers": "#d9822b",
    "buildings": "#c9a227", "function words": "#e0409a", "months": "#3a9fb0", "war": "#8c6d46",
    "elements": "#7f8c1e", OTHER: "#9aa3b2",
}  # fmt: skip

_THEME_OF = {word: theme for theme, words in THEMES.items() for word in words}


def theme_of(word: str) -> str:
    """The THEMES group of `word`, OTHER for a word in none.

    >>> theme_of("paris"), theme_of("zebra")
    ('places', 'other')
    """
    return _THEME_OF.get(word, OTHER)


def pick_themes(names: Iterable[str] | None) -> tuple[str, ...]:
    """The THEMES groups named, in THEMES order, duplicates dropped; every group for None.

    At least one name, each a group: a map of no group would show nothing to compare.

    >>> pick_themes(["function words", "animals", "animals"])
    ('animals', 'function words')
    """
    if names is None:
        return tuple(THEMES)
    if isinstance(names, str):  # one name given bare would be read letter by letter
        names = (names,)
    names = tuple(names)
    for name in names:
        if name not in THEMES:
            raise InvalidValueError(f"theme {name!r} is not one of {', '.join(THEMES)}")
    if not names:
        raise InvalidValueError(f"pick at least one theme of {', '.join(THEMES)}; got none")
    return tuple(theme for theme in THEMES if theme in names)


def theme_words(names: Iterable[str] | None = None) -> tuple[str, ...]:
    """The words of the groups named (checked by pick_themes), in THEMES order.

    >>> theme_words(["war", "elements"])
    ('war', 'army', 'battle', 'navy', 'water', 'fire', 'earth', 'air')
    """
    return tuple(word for theme in pick_themes(names) for word in THEMES[theme])
