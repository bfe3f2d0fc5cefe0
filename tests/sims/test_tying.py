"""sims.tying: the word list, both heads' logits against a float64 h·Wᵀ on the table's own rows and
on the seeded untied table, and the parameter counts against torch's own modules tied by assignment."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from embedlab.errors import InvalidValueError
from embedlab.files import json_safe
from embedlab.sims.tying import MAX_WORDS, MIN_WORDS, parameters, parse_words, tied_vs_untied

WORDS = ["cat", "dog", "horse", "king", "queen", "paris"]
# float32 dot products of 384 terms against the float64 oracle.
LOGIT_ATOL = 1e-5


def torch_count(vocab_size: int, dim: int, tied: bool) -> int:
    """The oracle: nn.Embedding and a bias-free nn.Linear on the meta device, tied by assignment."""
    embed = nn.Embedding(vocab_size, dim, device="meta")
    head = nn.Linear(dim, vocab_size, bias=False, device="meta")
    if tied:
        head.weight = embed.weight
    return sum(p.numel() for p in nn.ModuleList([embed, head]).parameters())


@pytest.mark.parametrize(
    "text, words",
    [("cat, dog  king", ["cat", "dog", "king"]), ("a,b,,a b", ["a", "b"]), ("\tx\ny ", ["x", "y"])],
)
def test_words_split_on_commas_and_spaces_once_each(text, words):
    assert parse_words(text) == words


@pytest.mark.parametrize("n", [MIN_WORDS - 1, MAX_WORDS + 1])
def test_word_count_is_bounded(n):
    with pytest.raises(InvalidValueError, match=f"{MIN_WORDS}..{MAX_WORDS} distinct keys; got {n}"):
        parse_words(" ".join(f"w{i}" for i in range(n)))


@pytest.mark.parametrize("t", [0.0, 0.3, 1.0])
def test_tied_logits_are_h_dot_the_tables_rows(minilm_vectors, t):
    view = tied_vs_untied(minilm_vectors, WORDS, "cat", "queen", t=t)
    E = minilm_vectors[WORDS].astype(np.float64)  # (V_small, D)
    h = (1 - t) * E[WORDS.index("cat")] + t * E[WORDS.index("queen")]
    np.testing.assert_allclose(view.h, h, atol=1e-6, rtol=0)
    np.testing.assert_allclose(view.tied.logits, E @ h, atol=LOGIT_ATOL, rtol=0)
    assert view.tied.top == WORDS[int(np.argmax(E @ h))]


def test_untied_logits_come_from_the_seeded_table(minilm_vectors):
    view = tied_vs_untied(minilm_vectors, WORDS, "king", "king", seed=3)
    own = torch.empty(len(WORDS), 384).normal_(0.0, 0.02, generator=torch.Generator().manual_seed(3))
    h = minilm_vectors["king"].astype(np.float64)
    np.testing.assert_allclose(view.untied.logits, own.double().numpy() @ h, atol=LOGIT_ATOL, rtol=0)
    again = tied_vs_untied(minilm_vectors, WORDS, "king", "king", seed=3)
    assert np.array_equal(again.untied.logits, view.untied.logits)  # the same head for the same seed


def test_the_answer_as_json(minilm_vectors):
    out = json_safe(tied_vs_untied(minilm_vectors, WORDS, "cat", "dog", t=0.5, seed=1))
    assert out["table"] == "minilm" and (out["words"], out["a"], out["b"], out["t"], out["seed"]) == (
        WORDS,
        "cat",
        "dog",
        0.5,
        1,
    )
    assert len(out["h"]) == 384 and set(out["tied"]) == set(out["untied"]) == {"logits", "top"}
    assert out["params"] == {**vars(parameters(30522, 384, len(WORDS)))}


@pytest.mark.parametrize("vocab_size, dim, small", [(30522, 384, 12), (50257, 768, 2), (7, 3, 5)])
def test_parameters_are_torchs_count(vocab_size, dim, small):
    p = parameters(vocab_size, dim, small)
    assert (p.tied, p.untied) == (torch_count(vocab_size, dim, True), torch_count(vocab_size, dim, False))
    assert (p.small_tied, p.small_untied) == (torch_count(small, dim, True), torch_count(small, dim, False))
    assert p.untied == 2 * p.tied == 2 * vocab_size * dim


@pytest.mark.parametrize(
    "a, b, t, message",
    [("zebra", "cat", 0.0, "a 'zebra' must be one of the words"), ("cat", "zebra", 0.0, "b 'zebra' must be one"),
     ("cat", "dog", 1.5, "t must be between 0.0 and 1.0; got 1.5"), ("cat", "dog", float("nan"), "t must be a finite")],
)  # fmt: skip
def test_bad_mixes_are_refused(minilm_vectors, a, b, t, message):
    with pytest.raises(InvalidValueError, match=message):
        tied_vs_untied(minilm_vectors, WORDS, a, b, t)
