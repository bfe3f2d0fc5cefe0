"""LMHead: the lesson's tied logits, one shared Parameter, summed gradients, nn.Linear oracle."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import InvalidValueError
from embedlab.layers.head import LMHead, count_parameters, embedding_parameters, tied_and_untied
from embedlab.layers.token import TokenEmbedding
from embedlab.sizing import EmbeddingLayout, count

# The lesson's logits are exact two-decimal sums; float32 rounding of 3 products is ~1e-8.
LESSON_ATOL = 1e-6
# The same float32 sums taken along two autograd graphs (tied vs an untied copy).
GRAD_ATOL = 1e-6
# 24-term float32 dot products of N(0, 1) numbers, summed in another order by the matmul.
LOGIT_ATOL = 1e-5
# std of 1000·64 draws from N(0, 0.02²) has a standard error of ~6e-5.
INIT_STD_TOL = 1e-3

LESSON_E = [[0.5, 0.3, -0.1], [0.8, -0.2, 0.4], [0.1, 0.9, 0.3], [-0.3, 0.5, 0.6]]
LESSON_H = [0.6, 0.1, 0.3]
LESSON_LOGITS = [0.30, 0.58, 0.24, 0.05]


class TinyLM(nn.Module):
    """ids (B, T) -> logits (B, T, V) through a token table, a mixing layer and a head."""

    def __init__(self, vocab_size: int, dim: int, tied: bool) -> None:
        super().__init__()
        self.token = TokenEmbedding(vocab_size, dim)
        self.mix = nn.Linear(dim, dim)
        self.head = LMHead(dim, vocab_size, tied_to=self.token if tied else None)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(torch.tanh(self.mix(self.token(ids))))


def _n_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())  # parameters() lists a shared one once


def test_lesson_tied_logits():
    token = TokenEmbedding.from_pretrained(torch.tensor(LESSON_E), freeze=False)
    head = LMHead(3, 4, tied_to=token)
    logits = head(torch.tensor(LESSON_H))  # (V,)
    torch.testing.assert_close(logits, torch.tensor(LESSON_LOGITS), atol=LESSON_ATOL, rtol=0)
    assert logits.argmax().item() == 1  # "cat"


def test_tied_is_the_same_parameter():
    token = TokenEmbedding(10, 4)
    head = LMHead(4, 10, tied_to=token)
    assert head.tied
    assert head.weight is token.weight
    assert head.weight.data_ptr() == token.weight.data_ptr()
    with torch.no_grad():
        token.weight[3] += 1.0  # an update to the table is an update to the head
    torch.testing.assert_close(head(torch.eye(4)).T[3], token.weight[3].detach())


def test_tied_table_is_listed_once():
    tied, untied = TinyLM(50, 8, tied=True), TinyLM(50, 8, tied=False)
    tables = [p for p in tied.parameters() if p.shape == (50, 8)]
    assert len(tables) == 1 and tables[0] is tied.token.weight
    assert len([p for p in untied.parameters() if p.shape == (50, 8)]) == 2
    mix = 8 * 8 + 8
    assert _n_params(tied) == 50 * 8 + mix
    assert _n_params(untied) == 2 * 50 * 8 + mix
    # The embedding parameters alone double without tying.
    assert _n_params(untied) - mix == 2 * (_n_params(tied) - mix)


def test_tied_gradient_is_the_sum_of_both_uses():
    torch.manual_seed(0)
    model = TinyLM(12, 5, tied=True)
    ids = torch.tensor([[1, 2, 2, 7], [0, 7, 3, 1]])
    targets = torch.tensor([[2, 2, 7, 0], [7, 3, 1, 11]])
    F.cross_entropy(model(ids).flatten(0, 1), targets.flatten()).backward()

    # Oracle: the same computation on an untied copy, one leaf per use, through torch autograd.
    E = model.token.weight.detach()
    e_in = E.clone().requires_grad_()
    e_out = E.clone().requires_grad_()
    h = torch.tanh(model.mix(F.embedding(ids, e_in)))
    F.cross_entropy(F.linear(h, e_out).flatten(0, 1), targets.flatten()).backward()

    assert e_in.grad.abs().sum() > 0 and e_out.grad.abs().sum() > 0  # both uses contribute
    assert not torch.allclose(model.token.weight.grad, e_out.grad, atol=GRAD_ATOL)
    torch.testing.assert_close(model.token.weight.grad, e_in.grad + e_out.grad, atol=GRAD_ATOL, rtol=0)
    assert model.head.weight.grad is model.token.weight.grad


def test_untied_owns_its_table():
    torch.manual_seed(0)
    head = LMHead(64, 1000)
    assert not head.tied
    assert isinstance(head.weight, nn.Parameter) and head.weight.shape == (1000, 64)
    assert abs(head.weight.std().item() - 0.02) < INIT_STD_TOL
    assert abs(head.weight.mean().item()) < INIT_STD_TOL


@pytest.mark.parametrize("bias", [False, True])
def test_matches_nn_linear(bias):
    head = LMHead(6, 9, bias=bias)
    linear = nn.Linear(6, 9, bias=bias)
    with torch.no_grad():
        linear.weight.copy_(head.weight)
        if bias:
            head.bias.normal_()
            linear.bias.copy_(head.bias)
    h = torch.randn(2, 3, 6)
    with torch.no_grad():
        torch.testing.assert_close(head(h), linear(h))
    assert _n_params(head) == 9 * 6 + (9 if bias else 0)


def test_bias_starts_at_zero_and_is_added():
    token = TokenEmbedding(5, 3)
    head = LMHead(3, 5, tied_to=token, bias=True)
    assert head.bias.shape == (5,) and torch.count_nonzero(head.bias) == 0
    assert _n_params(nn.ModuleList([token, head])) == 5 * 3 + 5
    with torch.no_grad():
        head.bias.copy_(torch.arange(5.0))
        h = torch.randn(3)
        torch.testing.assert_close(head(h), token.weight @ h + torch.arange(5.0))


@pytest.mark.parametrize("tied", [False, True])
def test_forward_backward_smoke(tied):
    model = TinyLM(20, 8, tied=tied)
    ids = torch.randint(0, 20, (2, 6))
    logits = model(ids)  # (2, 6, 20)
    assert logits.shape == (2, 6, 20)
    F.cross_entropy(logits.flatten(0, 1), ids.flatten()).backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), name
    assert model.head.weight.grad.abs().sum() > 0


def test_tie_with_wrong_shape_names_both():
    token = TokenEmbedding(5, 3)
    with pytest.raises(InvalidValueError) as err:
        LMHead(3, 4, tied_to=token)
    assert "(5, 3)" in str(err.value) and "(4, 3)" in str(err.value)
    with pytest.raises(InvalidValueError) as err:
        LMHead(4, 5, tied_to=token)
    assert "(5, 3)" in str(err.value) and "(5, 4)" in str(err.value)


def test_tie_needs_a_weight_parameter():
    with pytest.raises(InvalidValueError, match="weight"):
        LMHead(3, 4, tied_to=nn.ReLU())


def test_hidden_width_mismatch_names_both():
    head = LMHead(3, 4)
    with pytest.raises(InvalidValueError, match=r"width 5 .* dim 3"):
        head(torch.zeros(2, 5))
    with pytest.raises(InvalidValueError, match="tensor"):
        head([0.6, 0.1, 0.3])


# ---- counting, seeded untied heads, the tied/untied pair -----------------------------------------


@pytest.mark.parametrize("tied", [True, False])
@pytest.mark.parametrize("vocab_size, dim", [(30522, 384), (12, 384), (50257, 768)])
def test_embedding_parameters_match_torch_modules(vocab_size, dim, tied):
    # Oracle: torch's own nn.Embedding and nn.Linear, tied by assignment as the lesson does.
    embed = nn.Embedding(vocab_size, dim, device="meta")
    linear = nn.Linear(dim, vocab_size, bias=False, device="meta")
    if tied:
        linear.weight = embed.weight
    expected = sum(p.numel() for p in nn.ModuleList([embed, linear]).parameters())
    assert embedding_parameters(vocab_size, dim, tied=tied) == expected
    report = count(EmbeddingLayout(vocab_size=vocab_size, dim=dim, tied=tied))
    assert expected == report.token_params + report.output_params


def test_count_parameters_counts_a_shared_table_once():
    token = TokenEmbedding(7, 3)
    assert count_parameters(token, LMHead(3, 7, tied_to=token)) == 7 * 3
    assert count_parameters(token, LMHead(3, 7)) == 2 * 7 * 3
    assert count_parameters(token, LMHead(3, 7, tied_to=token, bias=True)) == 7 * 3 + 7


def test_generator_makes_the_untied_table_reproducible():
    state = torch.get_rng_state()
    a = LMHead(16, 40, generator=torch.Generator().manual_seed(5))
    b = LMHead(16, 40, generator=torch.Generator().manual_seed(5))
    assert torch.equal(torch.get_rng_state(), state)  # the global generator was not used
    assert torch.equal(a.weight, b.weight)
    expected = torch.empty(40, 16).normal_(0.0, 0.02, generator=torch.Generator().manual_seed(5))
    assert torch.equal(a.weight.detach(), expected)


def test_tied_and_untied_logits():
    torch.manual_seed(0)
    table = torch.randn(12, 24)
    h = torch.randn(24)
    tied, untied = tied_and_untied(table, seed=2)
    assert tied.tied and not untied.tied
    with torch.no_grad():
        torch.testing.assert_close(tied(h), table @ h, atol=LOGIT_ATOL, rtol=0)  # logits = h·E[i]
        own = torch.empty(12, 24).normal_(0.0, 0.02, generator=torch.Generator().manual_seed(2))
        torch.testing.assert_close(untied(h), own @ h, atol=LOGIT_ATOL, rtol=0)
        assert not torch.allclose(untied(h), tied(h), atol=0.1)
    torch.testing.assert_close(tied.weight.detach(), table, atol=0, rtol=0)  # the rows, copied in
    with pytest.raises(InvalidValueError, match="2-D"):
        tied_and_untied(torch.zeros(5))
