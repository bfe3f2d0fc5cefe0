"""The themed words: one group per word, a colour per group, names checked; every word a whole
MiniLM token and in both built-in corpora's word2vec vocabularies; and on MiniLM's real table the
lessons' picture: related words together, function words such as "the" apart."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.data.corpora import open_corpus
from embedlab.data.themes import COLOURS, OTHER, THEMES, WORDS, pick_themes, theme_of, theme_words
from embedlab.errors import InvalidValueError
from embedlab.models.pretrained import load_tokenizer
from embedlab.train.config import RunConfig
from embedlab.train.corpus import count_words

LESSON_GROUPS = {"animals", "colours", "people", "places", "numbers", "buildings", "function words"}
FUNCTION = "function words"


def test_every_word_in_one_group_and_every_group_a_colour():
    assert LESSON_GROUPS <= set(THEMES)
    assert len(WORDS) == len(set(WORDS)) == sum(len(words) for words in THEMES.values())
    assert all(theme_of(word) == theme for theme, words in THEMES.items() for word in words)
    assert theme_of("zebra") == OTHER and set(COLOURS) == {*THEMES, OTHER}
    assert all(len(words) >= 4 for words in THEMES.values())  # a group of one or two shows no cluster


def test_picking_groups():
    assert pick_themes(None) == tuple(THEMES) and theme_words() == WORDS
    assert pick_themes(["function words", "animals", "animals"]) == ("animals", "function words")
    assert pick_themes("colours") == ("colours",)  # a bare name is one name, not its letters
    assert theme_words(["colours"]) == THEMES["colours"]
    with pytest.raises(InvalidValueError, match="theme 'fish' is not one of animals, colours, people"):
        pick_themes(["animals", "fish"])
    with pytest.raises(InvalidValueError, match="pick at least one theme of animals, .*; got none"):
        pick_themes([])


def test_every_word_is_a_whole_minilm_token(minilm_dir):
    tokenizer = load_tokenizer(minilm_dir)
    vocab = tokenizer.get_vocab()
    for word in WORDS:
        assert word in vocab, word
        assert tokenizer.encode(word, add_special_tokens=False).tokens == [word]  # one piece, not split


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["enwiki-sample", "gcide"])
def test_every_word_survives_word2vecs_min_count(corpus):
    """`embedlab train` and the lab's live run watch every themed word: each must get a row."""
    counts = count_words(open_corpus(corpus))
    min_count = RunConfig(corpus=corpus).min_count
    rare = {word: counts[word] for word in WORDS if counts[word] < min_count}
    assert not rare, f"{corpus}: {rare} below min_count {min_count}"


def _unit_rows(vectors, words):
    rows = vectors[list(words)].astype(np.float64)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_minilm_keeps_related_words_together_and_the_apart(minilm_vectors):
    unit = {theme: _unit_rows(minilm_vectors, words) for theme, words in THEMES.items()}
    for theme, rows in unit.items():
        n = len(rows)
        within = ((rows @ rows.T).sum() - n) / (n * (n - 1))  # mean over pairs of distinct words
        if theme != FUNCTION:  # each group's words are closer to each other than to the function words
            assert within > (rows @ unit[FUNCTION].T).mean() + 0.1, theme
    # the lesson's example: cat (in no group) beside the animals, "the" far from it
    cat = _unit_rows(minilm_vectors, ["cat"])[0]
    scores = {word: float(row @ cat) for theme in THEMES for word, row in zip(THEMES[theme], unit[theme], strict=True)}
    nearest = sorted(scores, key=scores.get, reverse=True)[:5]
    assert all(theme_of(word) == "animals" for word in nearest), nearest
    assert scores["the"] < scores["dog"] - 0.3
    the = _unit_rows(minilm_vectors, ["the"])[0]
    others = {word: float(row @ the) for theme in THEMES for word, row in zip(THEMES[theme], unit[theme], strict=True)}
    closest = sorted((w for w in others if w != "the"), key=others.get, reverse=True)[:4]
    assert all(theme_of(word) == FUNCTION for word in closest), closest
