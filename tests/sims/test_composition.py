"""Subword pieces composed by attention: the pieces' positions against MiniLM's tokenizer, cosines worked
by hand, transformers' BertModel and scipy's t interval as oracles, and the figures docs/lessons.md quotes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats

from embedlab.errors import InvalidValueError
from embedlab.models.encoder import Encoder
from embedlab.sims.composition import (
    composition,
    enwiki_targets,
    find_targets,
    piece_cosines,
    sentences,
    word_spans,
)

# float32 states against transformers' float32 BertModel, cosines taken in float64 from both
COSINE_ATOL = 1e-5


@pytest.fixture(scope="module")
def encoder():
    return Encoder.load("minilm")


@pytest.fixture(scope="module")
def tokenize(encoder):
    return lambda text: encoder.tokenizer.encode(text).tokens


@pytest.fixture(scope="module")
def measured(encoder):
    """The docs' measurement: 120 enwiki-sample words through MiniLM (a few seconds)."""
    return composition(encoder, enwiki_targets(encoder.tokenizer))


def test_word_spans_group_continuation_pieces(tokenize):
    pieces = tokenize("unhappiness is rare")
    assert pieces == ["[CLS]", "un", "##ha", "##pp", "##iness", "is", "rare", "[SEP]"]
    assert word_spans(pieces) == [(0, 1), (1, 5), (5, 6), (6, 7), (7, 8)]
    assert word_spans(["##x", "a"]) == [(0, 1), (1, 2)]  # a stray continuation opens a word
    assert word_spans([]) == []


def test_targets_stand_where_the_tokenizer_puts_them(tokenize):
    texts = [
        "the cat sat on the mat",  # no word of 2+ pieces
        "unhappiness is rare",  # its left edge is [CLS]
        "we saw unhappiness, then joy",  # its right edge is a comma
        "they felt unhappiness and transformerization today",
        "and unhappiness again here",  # already taken
        "a transformerization of words",  # the text above gave only its first word
    ]
    targets = find_targets(texts, tokenize, count=2)
    assert [(t.text, t.word) for t in targets] == [(texts[3], "unhappiness"), (texts[5], "transformerization")]
    first, second = targets
    assert (first.start, first.end) == (3, 7)
    assert tokenize(texts[3])[first.start : first.end] == ["un", "##ha", "##pp", "##iness"]
    assert tokenize(texts[5])[second.start : second.end] == ["transform", "##eri", "##zation"]
    with pytest.raises(InvalidValueError, match="only 2 words of 2\\+ pieces; asked for 3"):
        find_targets(texts, tokenize, count=3)
    assert find_targets(texts, tokenize, count=1, min_pieces=4)[0].word == "unhappiness"


def test_sentences_are_cut_after_full_stops_and_kept_by_length():
    paragraph = (
        "One two three four five six seven eight. Short one. " + " ".join(["w"] * 31) + "! Nine a b c d e f g h?"
    )
    assert list(sentences([paragraph])) == ["One two three four five six seven eight.", "Nine a b c d e f g h?"]


def test_piece_cosines_by_hand():
    # pieces 0..4: 0 and 4 the edges, 1-3 the word; adjacent cosines 0, 1, 1/√2, 0.6 (2-D rows)
    states = torch.tensor([[1.0, 0.0], [0.0, 2.0], [0.0, 1.0], [1.0, 1.0], [0.6, -0.8]])
    within, neighbours = piece_cosines(states, 1, 4)
    assert within == pytest.approx((1 + 1 / math.sqrt(2)) / 2)
    assert neighbours == pytest.approx((0 + (0.6 - 0.8) / math.sqrt(2)) / 2)
    for start, end in [(0, 2), (1, 2), (3, 5)]:  # no left edge, one piece, no right edge
        with pytest.raises(InvalidValueError, match="2\\+ pieces and one on each side"):
            piece_cosines(states, start, end)


def test_every_layer_equals_transformers_and_scipys_interval(encoder, bert_oracle):
    targets = enwiki_targets(encoder.tokenizer, count=8)
    result = composition(encoder, targets, batch_size=3)  # three batches, padded differently
    batch = encoder.tokenize([t.text for t in targets])
    with torch.no_grad():
        states = bert_oracle(batch.ids, attention_mask=batch.mask.long(), output_hidden_states=True).hidden_states
    assert len(result.layers) == len(states) == 7
    for layer, view in zip(result.layers, states, strict=True):
        unit = view.double().numpy()
        unit /= np.linalg.norm(unit, axis=-1, keepdims=True)
        within, edges = [], []
        for i, t in enumerate(targets):
            steps = [unit[i, j] @ unit[i, j + 1] for j in range(t.start - 1, t.end)]
            within.append(np.mean(steps[1:-1]))
            edges.append((steps[0] + steps[-1]) / 2)
        gaps = np.array(within) - np.array(edges)
        assert layer.within == pytest.approx(np.mean(within), abs=COSINE_ATOL)
        assert layer.neighbours == pytest.approx(np.mean(edges), abs=COSINE_ATOL)
        low, high = stats.t.interval(0.95, len(gaps) - 1, loc=gaps.mean(), scale=stats.sem(gaps))
        assert layer.interval == pytest.approx((low, high), abs=1e-4)  # t_quantile is given to 4 places
    assert result.words == tuple(t.word for t in targets)
    assert result.pieces == np.mean([t.end - t.start for t in targets])


def test_a_target_elsewhere_is_refused(encoder, tokenize):
    target = find_targets(["they felt unhappiness and joy"], tokenize, count=1)[0]
    moved = type(target)(target.text, target.word, target.start + 1, target.end + 1)
    with pytest.raises(InvalidValueError, match="'unhappiness' is not at pieces 4..8"):
        composition(encoder, [target, moved])
    with pytest.raises(InvalidValueError, match="at least 2 targets"):
        composition(encoder, [target])


# Figures of docs/lessons.md (row 001.7.12) and its section on composition: gap per layer 0..6
GAPS = (0.003, 0.045, 0.077, 0.093, 0.084, 0.056, 0.041)


def test_pieces_converge_beyond_their_neighbours_on_minilm(measured):
    assert len(measured.words) == 120 and round(measured.pieces, 2) == 2.62
    assert measured.words[:4] == ("stateless", "fluxing", "anarchism", "individualism")
    layers = measured.layers
    assert tuple(round(v.gap, 3) for v in layers) == GAPS
    # At the input a word's pieces are no closer than pieces across its edges: the interval holds 0.
    assert (round(layers[0].within, 3), round(layers[0].neighbours, 3)) == (0.075, 0.072)
    assert tuple(round(x, 3) for x in layers[0].interval) == (-0.012, 0.019)
    # Attention pulls them together faster than it pulls neighbours: the gap clears 0 from layer 1 on.
    assert all(v.interval[0] > 0 for v in layers[1:])
    assert measured.largest_gap == 3
    assert (round(layers[3].within, 3), round(layers[3].neighbours, 3)) == (0.382, 0.289)
    assert tuple(round(x, 3) for x in layers[3].interval) == (0.072, 0.114)
    # Both cosines rise (a shared direction grows, 003.5); the word's rises more, then the gap shrinks.
    assert layers[3].within - layers[0].within > layers[3].neighbours - layers[0].neighbours
    assert layers[6].gap < layers[3].gap
