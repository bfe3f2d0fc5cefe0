"""ALBERT's factorised embedding against a plain nn.Embedding + nn.Linear (torch autograd as the oracle),
its parameter count against V·E + E·D and against transformers' own ALBERT, and the tied head."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from embedlab.errors import InvalidValueError
from embedlab.layers import FactorizedEmbedding, FactorizedHead
from embedlab.sizing import EmbeddingLayout, count

# float64 sums of at most 64 products in another order: round-off near 64 · 2^-53 of the terms' size
TOL64 = 1e-12


def _oracle(emb: FactorizedEmbedding) -> tuple[nn.Embedding, nn.Linear]:
    """The same numbers in torch's own two modules: a (V, E) nn.Embedding, then nn.Linear(E, D) without bias."""
    table = nn.Embedding(emb.vocab_size, emb.factor_dim, dtype=emb.weight.dtype)
    up = nn.Linear(emb.factor_dim, emb.dim, bias=False, dtype=emb.weight.dtype)
    with torch.no_grad():
        table.weight.copy_(emb.weight)
        up.weight.copy_(emb.projection.weight)
    return table, up


def test_forward_and_gradients_equal_embedding_then_linear():
    torch.manual_seed(0)
    emb = FactorizedEmbedding(50, 12, factor_dim=4)
    table, up = _oracle(emb)
    ids = torch.tensor([[3, 7, 3, 49], [0, 1, 2, 3]])  # id 3 three times: its gradients add up
    out, expected = emb(ids), up(table(ids))
    assert out.shape == (2, 4, 12) and torch.equal(out, expected)  # the same two ops: bit for bit
    grad = torch.randn(2, 4, 12)
    out.backward(grad)
    expected.backward(grad)
    assert torch.equal(emb.weight.grad, table.weight.grad)
    assert torch.equal(emb.projection.weight.grad, up.weight.grad)
    assert emb.weight.grad[[4, 5, 48]].abs().sum() == 0  # rows of ids not in the batch get no gradient


def test_parameters_are_v_e_plus_e_d_and_sizings():
    emb = FactorizedEmbedding(30_000, 768, factor_dim=128)  # ALBERT-base's shapes
    params = sum(p.numel() for p in emb.parameters())
    assert params == 30_000 * 128 + 128 * 768 == 3_938_304
    layout = EmbeddingLayout(vocab_size=30_000, dim=768, factor_dim=128)
    assert count(layout).token_params == params


def test_albert_in_transformers_holds_the_same_two_matrices():
    # Oracle: transformers' AlbertModel (built on the meta device: shapes only) keeps the word table
    # (V, E) and the map embedding_hidden_mapping_in E -> H; its map has a bias, ours has not
    from transformers import AlbertConfig, AlbertModel

    config = AlbertConfig(vocab_size=30_000, embedding_size=128, hidden_size=768, num_attention_heads=12)
    with torch.device("meta"):
        albert = AlbertModel(config)
    word = albert.embeddings.word_embeddings.weight
    mapping = albert.encoder.embedding_hidden_mapping_in
    ours = FactorizedEmbedding(30_000, 768, factor_dim=128, std=0.0)
    assert word.shape == ours.weight.shape and mapping.weight.shape == ours.projection.weight.shape
    assert word.numel() + mapping.weight.numel() == sum(p.numel() for p in ours.parameters())
    assert mapping.bias.numel() == 768  # the D numbers ALBERT adds and this layer leaves out


def test_the_tied_head_scores_the_composed_rows():
    torch.manual_seed(1)
    emb = FactorizedEmbedding(40, 16, factor_dim=4).double()
    head = FactorizedHead(emb)
    h = torch.randn(3, 5, 16, dtype=torch.float64)
    rows = emb(torch.arange(40)[None])[0]  # (V, D): every id's composed row
    logits = head(h)
    assert logits.shape == (3, 5, 40)
    assert torch.allclose(logits, h @ rows.T, rtol=0, atol=TOL64)
    # the tie: one Parameter each, trained from both ends
    assert {id(p) for p in head.parameters()} == {id(p) for p in emb.parameters()}
    (logits.sum() + emb(torch.tensor([[0]])).sum()).backward()
    assert emb.weight.grad[0].abs().sum() > 0 and emb.projection.weight.grad.abs().sum() > 0


def test_rows_start_with_a_token_tables_spread():
    torch.manual_seed(2)
    emb = FactorizedEmbedding(20_000, 64, factor_dim=16)
    # 1.28 million numbers, each of variance std²: their sample std is within 1% of 0.02 (the map's
    # 1,024 draws set a shared scale that moves it by about 1/√(2·1024) ≈ 2%, hence rel 0.1)
    assert emb(torch.arange(20_000)[None]).std().item() == pytest.approx(0.02, rel=0.1)


@pytest.mark.parametrize(("factor_dim", "message"), [(0, "between 1 and 64; got 0"), (65, "between 1 and 64; got 65")])
def test_a_width_out_of_range_is_refused(factor_dim, message):
    with pytest.raises(InvalidValueError, match=message):
        FactorizedEmbedding(100, 64, factor_dim=factor_dim)


def test_an_id_out_of_range_names_it():
    with pytest.raises(InvalidValueError, match="100"):
        FactorizedEmbedding(100, 8, factor_dim=2)(torch.tensor([[100]]))
