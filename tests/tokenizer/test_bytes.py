"""GPT-2's byte table and the space marker, against HuggingFace `tokenizers`' ByteLevel."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import decoders, pre_tokenizers

from embedlab.errors import InvalidValueError
from embedlab.tokenizer.bytes import (
    SPACE_MARK,
    as_piece,
    bytes_to_unicode,
    piece_bytes,
    piece_word,
    unicode_to_bytes,
    word_key,
)
from embedlab.tokenizer.fast import FastTokenizer

# HF's byte-level pre-tokenizer without its regex: the whole text, bytes written as stand-ins.
HF_BYTES = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
TEXT = ["the king and the queen drank café au lait in 東京 🙂"] * 40


@pytest.fixture(scope="module")
def fast():
    """A tiny byte-level BPE whose vocabulary holds whole words after a space ("Ġking", "ĠcafÃ©")."""
    return FastTokenizer.train(TEXT, vocab_size=256 + 60)


def test_the_table_is_huggingfaces_alphabet():
    table = bytes_to_unicode()
    assert sorted(table) == list(range(256))
    assert set(table.values()) == set(pre_tokenizers.ByteLevel.alphabet())
    assert all(unicode_to_bytes()[c] == b for b, c in table.items())
    assert SPACE_MARK == "Ġ" == HF_BYTES.pre_tokenize_str(" ")[0][0]
    with pytest.raises(TypeError):
        table[0] = "x"  # shared: handed out read-only


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=40))
def test_as_piece_and_back_equal_huggingfaces_byte_level(text):
    ((theirs, _),) = HF_BYTES.pre_tokenize_str(text)
    assert as_piece(text.encode("utf-8")) == theirs
    assert piece_bytes(theirs) == text.encode("utf-8")
    assert decoders.ByteLevel().decode([theirs]) == text


def test_piece_bytes_rejects_characters_that_stand_for_no_byte():
    with pytest.raises(InvalidValueError, match="'Ġ東' is not a byte-level piece: '東' stands for no byte"):
        piece_bytes("Ġ東")


def test_word_key_finds_the_piece_huggingface_makes_for_a_word_after_a_space(fast):
    vocab = fast.tokenizer.get_vocab()  # piece -> id
    for word in ["king", "queen", "café"]:
        (only,) = fast.encode(" " + word)  # one piece: the word after a space
        assert word_key(word, vocab) == fast.piece(only)
        assert piece_word(fast.piece(only)) == word
    assert word_key("the", {"the", "Ġthe"}) == "the"  # a key of its own wins
    assert word_key("emperor", vocab) is None


def test_piece_word_over_a_whole_vocabulary_agrees_with_huggingfaces_decoder(fast):
    found = {}
    for piece in fast.tokenizer.get_vocab():
        text = decoders.ByteLevel().decode([piece])  # U+FFFD where the piece ends mid-character
        whole = text.startswith(" ") and text[1:].isalpha()
        assert piece_word(piece) == (text[1:] if whole else None), piece
        if whole:
            found[piece] = text[1:]
    assert {"Ġking", "ĠcafÃ©"} <= set(found)
    for piece, word in found.items():
        assert word_key(word, {piece}) == piece  # word_key undoes piece_word


def test_piece_word_keeps_the_rule_lm_tables_used_on_ascii_pieces():
    pieces = ["Ġking", "king", "Ġking's", "Ġ3rd", "Ġ", "ĠĠ", "Ġthe", "Ċ", "ĠA"]
    old_rule = [p[1:] if p.startswith("Ġ") and p[1:].isalpha() else None for p in pieces]
    assert [piece_word(p) for p in pieces] == old_rule[:5] + [None] + old_rule[6:]
    assert old_rule[5] == "Ġ"  # the old rule took two spaces for a word; piece_word does not
