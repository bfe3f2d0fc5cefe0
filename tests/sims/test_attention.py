"""The attention bridge against transformers' BertModel: every layer's attention probabilities on
the same ids, the unscaled softmax, entropies, and the limits."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from embedlab.errors import InvalidValueError
from embedlab.sims.attention import AttentionBridge, BridgeView, one_head

MATCH = 1e-5  # the bar for max abs difference against transformers
FP32 = 1e-5  # float32 softmax and log computed in a different order
SENTENCES = ["the cat sat on the mat because it was tired", "Embeddings feed attention; attention mixes them."]


@pytest.fixture(scope="module")
def bridge():
    return AttentionBridge.load("minilm")


@pytest.fixture(scope="module")
def eager_oracle(bert_oracle):
    """BertModel with the eager attention, the one that returns its probabilities."""
    before = bert_oracle.config._attn_implementation
    bert_oracle.set_attn_implementation("eager")
    yield bert_oracle
    bert_oracle.set_attn_implementation(before)


@pytest.mark.parametrize("text", SENTENCES)
def test_scaled_softmax_is_bert_attention_in_every_layer(bridge, eager_oracle, text):
    with torch.no_grad():
        out = eager_oracle(input_ids=torch.tensor([bridge.compare(text).ids]), output_attentions=True)
    for layer in range(6):
        view = bridge.compare(text, layer=layer)
        theirs = out.attentions[layer][0]  # (H, T, T) of this layer, batch item 0
        assert view.layer == layer and view.n_layers == 6
        assert view.weights.shape == theirs.shape == (12, len(view.ids), len(view.ids))
        assert (view.weights - theirs).abs().max().item() <= MATCH, layer
    assert view.pieces[0] == "[CLS]" and view.pieces[-1] == "[SEP]"


def test_unscaled_is_the_same_dot_products_times_sqrt_dk(bridge):
    view = bridge.compare(SENTENCES[0])
    assert view.head_dim == 32
    torch.testing.assert_close(view.raw_scores, view.scores * math.sqrt(32), atol=FP32 * 10, rtol=FP32)
    torch.testing.assert_close(view.raw_weights, torch.softmax(view.raw_scores, -1), atol=FP32, rtol=0)
    # The point of the division: unscaled rows are peakier in every head.
    assert (view.entropy(view.raw_weights).mean(-1) < view.entropy(view.weights).mean(-1)).all()


def test_entropy_of_uniform_and_one_hot_rows():
    T = 7
    uniform, one_hot = torch.full((T,), 1 / T), torch.eye(T)[2]
    assert BridgeView.entropy(uniform).item() == pytest.approx(math.log(T), rel=FP32)
    assert BridgeView.entropy(one_hot).item() == 0.0


def test_one_head_is_cut_from_the_whole_view(bridge):
    view = bridge.compare(SENTENCES[1], layer=3)
    one = one_head(view, 4)
    assert (one.head, one.n_heads, one.layer, one.pieces) == (4, 12, 3, view.pieces)
    assert np.array_equal(one.weights, view.weights[4].numpy()) and np.array_equal(one.raw_scores, view.raw_scores[4])
    assert np.array_equal(one.max_weight, view.weights[4].amax(-1).numpy())
    assert one.heads.mean_entropy[4] == pytest.approx(one.entropy.mean(), rel=FP32)
    assert one.uniform_entropy == pytest.approx(math.log(len(view.ids))) and one.scale == pytest.approx(math.sqrt(32))
    again = bridge.head(SENTENCES[1], layer=3, head=4)  # what the lab asks for
    assert np.array_equal(again.scores, one.scores) and np.array_equal(
        again.heads.raw_mean_entropy, one.heads.raw_mean_entropy
    )
    with pytest.raises(InvalidValueError, match="head must be between 0 and 11; got 12"):
        one_head(view, 12)


def test_limits(bridge):
    with pytest.raises(InvalidValueError, match="the text is 12 tokens long; the limit is 8"):
        bridge.compare(SENTENCES[0], max_tokens=8)
    with pytest.raises(InvalidValueError, match="non-empty"):
        bridge.compare("   ")
    with pytest.raises(InvalidValueError, match="layer must be between 0 and 5; got 6"):
        bridge.compare(SENTENCES[0], layer=6)
