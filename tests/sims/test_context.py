"""Static vs contextual: one word through every layer of MiniLM, against the encoder's own states
(models/context.py), and the lab page's caps (sims/context.py). The file keeps its place: docs/lessons.md
cites its tests by path."""

from __future__ import annotations

import re
from dataclasses import asdict

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError
from embedlab.models.context import ContextModel, check_text, find_word
from embedlab.sims.context import MAX_OCCURRENCES, page_answer

RIVER = "he sat on the river bank and watched the water"
MONEY = "she paid the cheque into the bank"
MUD = "the boat drifted toward the muddy bank of the stream"


@pytest.fixture(scope="module")
def model():
    return ContextModel.load("minilm")


@pytest.fixture(scope="module")
def bank(model):
    return model.compare([RIVER, MONEY, MUD], "bank")


def test_find_word_takes_whole_words_only():
    pieces = ["[CLS]", "the", "bank", "##s", "em", "##bank", "bank", "che", "##que", "[SEP]"]
    assert find_word(pieces, ["bank"]) == [(6, 7)]
    assert find_word(pieces, ["che", "##que"]) == [(7, 9)]
    assert find_word(pieces, ["river"]) == []


def test_vectors_are_the_encoders_states(model, bank):
    batch, out = model.encoder.encode([RIVER, MONEY, MUD])
    assert [asdict(o) for o in bank.occurrences] == [
        {"text": 0, "start": 6, "end": 7}, {"text": 1, "start": 8, "end": 9}, {"text": 2, "start": 7, "end": 8},
    ]  # fmt: skip
    for layer, view in enumerate(bank.layers):
        expected = torch.stack([out.hidden_states[layer][o.text, o.start] for o in bank.occurrences])
        torch.testing.assert_close(torch.from_numpy(view.vectors), expected)
        torch.testing.assert_close(torch.tensor(view.norms), expected.norm(dim=-1))
        unit = F.normalize(expected, dim=-1)
        torch.testing.assert_close(torch.from_numpy(view.cosines), unit @ unit.T)


def test_the_same_row_drifts_apart_with_the_sense(bank):
    first, last = np.array(bank.layers[0].cosines), np.array(bank.layers[-1].cosines)
    # layer 0: one token row plus different position rows, so every pair is close to 1
    assert first[np.triu_indices(3, 1)].min() > 0.95
    # the last layer: every pair has moved apart, and the two river-side banks stay closer to each
    # other than either is to the bank that takes cheques
    assert last[np.triu_indices(3, 1)].max() < 0.9
    assert last[0, 2] > last[0, 1] and last[0, 2] > last[1, 2]
    # the tokens of the texts share more of a direction in later layers (the base level rises)
    assert bank.layers[-1].baseline > bank.layers[0].baseline + 0.1


def test_nearest_static_rows(model, bank):
    # at layer 0 the contextual vector is the token row plus a position and a segment row: its
    # nearest static row is the token itself
    for close in bank.layers[0].nearest:
        assert close[0].piece == "bank" and len(close) == 5
    got = bank.layers[6].nearest[1]
    expected = model.table.similar_by_vector(bank.layers[6].vectors[1], topn=5)
    assert [row.piece for row in got] == list(expected.keys)


def test_pooling_of_a_word_of_several_pieces(model):
    texts = ["she paid the cheque into the bank", "he tore up the cheque"]
    mean, first = model.compare(texts, "cheque"), model.compare(texts, "cheque", pooling="first")
    assert mean.word_pieces == ["che", "##que"] and mean.occurrences[0].end - mean.occurrences[0].start == 2
    states = mean.output.hidden_states[3]
    o = mean.occurrences[1]
    torch.testing.assert_close(torch.from_numpy(mean.layers[3].vectors[1]), states[o.text, o.start : o.end].mean(0))
    torch.testing.assert_close(torch.from_numpy(first.layers[3].vectors[1]), states[o.text, o.start])


def test_attention_rows_and_map(bank):
    row = bank.attention(1, layer=5, head=11)
    assert len(row) == len(bank.batch.pieces[1])
    assert sum(row) == pytest.approx(1.0, abs=1e-5)
    expected = bank.output.attentions[5][1, 11, 8, : len(row)]
    torch.testing.assert_close(torch.tensor(row), expected)
    n = sum(len(p) for p in bank.batch.pieces)
    assert len(bank.map) == 7 and all(xy.shape == (n, 2) for xy, _ in bank.map)
    answer = bank.answer(6)
    assert answer.n_layers == 6 and answer.n_heads == 12 and [v.layer for v in answer.layers] == [6]
    assert answer.layers[0].vectors is None and answer.map is None and answer.attention is None
    assert bank.answer(6, vectors=True).layers[0].vectors is bank.layers[6].vectors
    page = bank.answer(attention=(5, 11), with_map=True)
    assert page.attention.rows[1] == tuple(row) and page.attention.layer == 5
    assert len(page.map.tokens) == n and page.map.frames[6] is bank.map[6][0]
    assert [(t.text, t.piece) for t in page.map.tokens[:2]] == [(0, "[CLS]"), (0, "he")]


def test_errors(model):
    with pytest.raises(InvalidValueError, match=r"the word 'bank' \(pieces: bank\) is not in text 1"):
        model.compare([RIVER, "no such word here"], "bank")
    with pytest.raises(InvalidValueError, match="give at least 2 texts"):
        model.compare([RIVER], "bank")
    with pytest.raises(InvalidValueError, match="pooling must be one of mean, first; got 'max'"):
        model.compare([RIVER, MONEY], "bank", pooling="max")
    with pytest.raises(InvalidValueError, match="text 0 is 12 tokens long; the limit is 8"):
        model.compare([RIVER, MONEY], "bank", max_tokens=8)
    view = model.compare([RIVER, MONEY], "bank")
    with pytest.raises(InvalidValueError, match="layer must be between 0 and 5; got 6"):
        view.attention(0, layer=6, head=0)


@pytest.mark.parametrize("word", ["\u0301", "\u202e", "\u2066", "\ufffd"])
def test_a_word_of_no_pieces_is_refused(model, word):
    # an accent alone, bidi marks, what an undecodable byte of a URL becomes: the tokenizer drops them
    with pytest.raises(InvalidValueError, match=re.escape(f"the word {word!r} has no pieces in this tokenizer")):
        model.compare([RIVER, MONEY], word)


def test_a_word_only_the_unknown_token_spells_is_refused(model):
    """✈ reads as [UNK] and so do ☃ and ♞: "found in both texts" would only say [UNK] matches [UNK]."""
    texts = ["I love \u2603 snow", "the \u265e knight"]
    assert model.encoder.tokenizer.encode("\u2708", add_special_tokens=False).tokens == ["[UNK]"]
    with pytest.raises(InvalidValueError, match=re.escape("the word '\u2708' is outside this tokenizer's vocabulary")):
        model.compare(texts, "\u2708")
    with pytest.raises(InvalidValueError, match="reads as \\[UNK\\], which any unknown word matches"):
        model.compare([RIVER, MONEY + " \u2708"], "snow\u2603")  # a known word with an unknown letter: one [UNK]


@pytest.mark.parametrize(
    "word, message",
    [
        ("ba\x00nk", "word holds a control character, U+0000, at character 2; remove it"),
        ("\x1b", "word holds a control character, U+001B, at character 0"),
        ("\udcff", "word holds a lone surrogate (an undecodable byte), U+DCFF, at character 0"),
    ],
)
def test_a_word_with_a_control_character_is_refused_where_it_stands(model, word, message):
    with pytest.raises(InvalidValueError, match=re.escape(message)):
        model.compare([RIVER, MONEY], word)


def test_a_text_with_a_control_character_is_refused_where_it_stands(model):
    with pytest.raises(InvalidValueError, match=r"text 1 holds a control character, U\+007F, at character 4"):
        model.compare([RIVER, "the \x7fbank"], "bank")
    assert check_text("text", "a\tb\nc") == "a\tb\nc"  # whitespace controls are text
    assert find_word(["[CLS]", "[SEP]"], []) == []  # a word of no pieces is nowhere (not an IndexError)


def test_the_page_caps_the_occurrences(model):
    many = " ".join(["bank"] * (MAX_OCCURRENCES - 1))
    answer = page_answer(model, [many, MONEY], "bank", layer=1, head=2)
    assert len(answer.occurrences) == MAX_OCCURRENCES and answer.attention.layer == 1 and answer.map is not None
    with pytest.raises(InvalidValueError, match=f"occurs {MAX_OCCURRENCES + 1} times in these texts; the limit is 8"):
        page_answer(model, [many + " bank", MONEY], "bank")


def test_the_readme_table_is_what_the_code_measures(model):
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): [float(x) for x in line.split("|")[2:-1]]
            for line in readme.splitlines() if line.startswith(("| bank:", "| water:"))}  # fmt: skip
    bank = model.compare([RIVER, MONEY, MUD], "bank")
    water = model.compare(["he drank a glass of cold water", "the water in the lake was cold"], "water")
    measured = {
        "bank: river bank · cheque bank": [v.cosines[0][1] for v in bank.layers],
        "bank: river bank · muddy bank of the stream": [v.cosines[0][2] for v in bank.layers],
        "bank: cheque bank · muddy bank": [v.cosines[1][2] for v in bank.layers],
        'water: "a glass of cold water" · "the water in the lake"': [v.cosines[0][1] for v in water.layers],
    }
    assert rows.keys() == measured.keys()
    # and its prose: the nearest static row of every occurrence stays "bank" at every layer
    assert all(close[0].piece == "bank" for view in bank.layers for close in view.nearest)
    for name, figures in measured.items():
        assert rows[name] == pytest.approx(figures, abs=6e-4), name
