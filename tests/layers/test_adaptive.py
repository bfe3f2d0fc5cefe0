"""Adaptive input and its tied softmax: bands worked by hand, and torch's nn.AdaptiveLogSoftmaxWithLoss
as the oracle for log-probabilities, predictions, loss and gradients, over cutoff and div_value edge cases."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from embedlab.errors import EmbedlabError, InvalidValueError
from embedlab.layers import AdaptiveInput, AdaptiveSoftmax
from embedlab.layers.head import count_parameters
from embedlab.sizing import EmbeddingLayout, count

# float32 log-softmaxes of the same scores, summed in another order: a few ulps of values ~10
ATOL = 1e-5

# (V, D, cutoffs, div_value, head_bias): the lesson's shape, one cutoff, the last band a single id,
# div 1 (every band D wide), widths that do not divide (10 // 3 = 3, 10 // 9 = 1), a bias on the head
CASES = [
    (100, 64, (20, 60), 4.0, False),
    (50, 16, (1,), 2.0, False),
    (30, 16, (10, 29), 4.0, False),  # widths 16, 4, 1
    (40, 12, (5, 10, 20), 1.0, True),
    (60, 10, (15, 45), 3.0, False),
]


def _pair(vocab_size, dim, cutoffs, div_value, head_bias, seed=0):
    """Ours (input + tied softmax) and torch's oracle holding the same weights."""
    torch.manual_seed(seed)
    emb = AdaptiveInput(vocab_size, dim, cutoffs, div_value, std=0.5)  # wide rows: far-from-uniform scores
    softmax = AdaptiveSoftmax(emb, head_bias=head_bias)
    nn.init.normal_(softmax.clusters, std=0.5)  # as wide as the rows, so a cluster can win the head
    if head_bias:
        nn.init.normal_(softmax.bias)
    oracle = nn.AdaptiveLogSoftmaxWithLoss(dim, vocab_size, list(cutoffs), div_value=div_value, head_bias=head_bias)
    with torch.no_grad():
        oracle.head.weight.copy_(torch.cat([emb.tables[0], softmax.clusters]))
        if head_bias:
            oracle.head.bias.copy_(softmax.bias)
        for i, tail in enumerate(oracle.tail):  # copy_ also checks that the shapes agree
            tail[0].weight.copy_(emb.projections[i])
            tail[1].weight.copy_(emb.tables[i + 1])
    return emb, softmax, oracle


def test_the_docstrings_bands():
    emb = AdaptiveInput(100, 64, cutoffs=(20, 60))
    assert [tuple(t.shape) for t in emb.tables] == [(20, 64), (40, 16), (40, 4)]
    assert [tuple(p.shape) for p in emb.projections] == [(16, 64), (4, 64)]
    assert count_parameters(emb) == 1_280 + 640 + 1_024 + 160 + 256 == 3_360


def test_each_band_reads_its_rows_and_projects_them():
    emb = AdaptiveInput(100, 64, cutoffs=(20, 60))
    ids = torch.tensor([[0, 19, 20, 59, 60, 99]])
    out = emb(ids)
    assert out.shape == (1, 6, 64)
    t, p = emb.tables, emb.projections
    expected = [t[0][0], t[0][19], t[1][0] @ p[0], t[1][39] @ p[0], t[2][0] @ p[1], t[2][39] @ p[1]]
    assert torch.allclose(out[0], torch.stack(expected), atol=ATOL)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_log_prob_predict_and_loss_equal_torchs(case):
    V, D = case[0], case[1]
    emb, softmax, oracle = _pair(*case)
    h = torch.randn(64, D) * 2
    with torch.no_grad():  # rows along a cluster's head row: the head picks the cluster, so predict scores all V
        clusters = softmax.clusters / softmax.clusters.norm(dim=-1, keepdim=True)
        h[:8] = 30 * clusters[torch.arange(8) % len(clusters)]
    target = torch.randint(0, V, (64,))
    ours = softmax.log_prob(h)
    assert ours.shape == (64, V)
    assert torch.allclose(ours, oracle.log_prob(h), atol=ATOL)
    assert torch.allclose(ours.exp().sum(-1), torch.ones(64), atol=ATOL)
    predicted = softmax.predict(h)
    assert torch.equal(predicted, oracle.predict(h))
    assert torch.equal(predicted, ours.argmax(-1))
    assert (predicted >= case[2][0]).any()  # some rows went past the head's band: the full path ran
    mine, theirs = softmax(h, target), oracle(h, target)
    assert torch.allclose(mine.output, theirs.output, atol=ATOL)
    assert torch.allclose(mine.loss, theirs.loss, atol=ATOL)
    assert torch.allclose(mine.output, ours.gather(1, target[:, None])[:, 0], atol=ATOL)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_gradients_equal_torch_autograd_through_the_oracle(case):
    V, D, cutoffs = case[0], case[1], case[2]
    emb, softmax, oracle = _pair(*case, seed=1)
    h = torch.randn(32, D, requires_grad=True)
    h_oracle = h.detach().clone().requires_grad_(True)
    target = torch.cat([torch.tensor([0, cutoffs[-1], V - 1]), torch.randint(0, V, (29,))])  # every band
    softmax(h, target).loss.backward()
    oracle(h_oracle, target).loss.backward()
    c0 = cutoffs[0]
    assert torch.allclose(h.grad, h_oracle.grad, atol=ATOL)
    assert torch.allclose(emb.tables[0].grad, oracle.head.weight.grad[:c0], atol=ATOL)
    assert torch.allclose(softmax.clusters.grad, oracle.head.weight.grad[c0:], atol=ATOL)
    if case[4]:
        assert torch.allclose(softmax.bias.grad, oracle.head.bias.grad, atol=ATOL)
    for i, tail in enumerate(oracle.tail):
        assert torch.allclose(emb.projections[i].grad, tail[0].weight.grad, atol=ATOL)
        assert torch.allclose(emb.tables[i + 1].grad, tail[1].weight.grad, atol=ATOL)


def test_tied_means_the_same_parameters():
    emb = AdaptiveInput(100, 64, cutoffs=(20, 60))
    softmax = AdaptiveSoftmax(emb)
    assert softmax.tables is emb.tables and softmax.projections is emb.projections
    for i in range(3):
        assert softmax.tables[i] is emb.tables[i]
    # counted once: the softmax adds only its two cluster rows
    assert count_parameters(emb, softmax) == count_parameters(emb) + 2 * 64
    layout = EmbeddingLayout(vocab_size=100, dim=64, adaptive_cutoffs=(20, 60))
    report = count(layout)
    assert report.token_params + report.output_params == count_parameters(emb, softmax)


def test_both_uses_add_into_one_gradient():
    emb, softmax, _ = _pair(100, 64, (20, 60), 4.0, False)
    ids = torch.tensor([[25, 70]])
    target = torch.tensor([30, 80])
    x = emb(ids)[0]  # (2, D) the input rows serve as hidden states
    softmax(x, target).loss.backward()
    both = [p.grad.clone() for p in emb.tables]
    for p in emb.parameters():
        p.grad = None
    softmax(emb(ids)[0].detach(), target).loss.backward()  # the output use alone
    output_only = [p.grad.clone() for p in emb.tables]
    assert not torch.allclose(both[1], output_only[1])  # the input use added to the band's gradient
    assert torch.equal(both[0], output_only[0])  # band 0 ids were not read by the input


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(cutoffs=(60, 20)), "adaptive cutoffs must increase, each between 1 and 99; got 60,20"),
        (dict(cutoffs=(20, 20)), "adaptive cutoffs must increase, each between 1 and 99; got 20,20"),
        (dict(cutoffs=(20, 100)), "adaptive cutoff must be between 1 and 99; got 100"),
        (dict(cutoffs=(0, 20)), "adaptive cutoff must be between 1 and 99; got 0"),
        (dict(cutoffs=()), "at least one id between 1 and 99; got none"),
        (dict(cutoffs=(20,), div_value=0.5), "div_value must be >= 1.0; got 0.5"),
        (dict(cutoffs=(20, 40, 60), dim=8), r"band 2 would be 8 // 4\^2 = 0 wide: dim must be >= 16"),
    ],
)
def test_bad_bands(kwargs, message):
    kwargs = {"dim": 64, **kwargs}
    with pytest.raises(InvalidValueError, match=message) as info:
        AdaptiveInput(100, **kwargs)
    assert isinstance(info.value, EmbedlabError)


def test_bad_ids_targets_and_hidden_states():
    emb = AdaptiveInput(100, 64, cutoffs=(20, 60))
    softmax = AdaptiveSoftmax(emb)
    with pytest.raises(InvalidValueError, match=r"token id 100 is out of range: vocab_size is 100 \(allowed 0\.\.99\)"):
        emb(torch.tensor([[3, 100]]))
    with pytest.raises(InvalidValueError, match="token id -2 is out of range"):
        softmax(torch.zeros(2, 64), torch.tensor([1, -2]))
    with pytest.raises(InvalidValueError, match=r"shape \(N, 64\); got a tensor of shape \(2, 32\)"):
        softmax.log_prob(torch.zeros(2, 32))
    with pytest.raises(InvalidValueError, match=r"target must have shape \(2,\)"):
        softmax(torch.zeros(2, 64), torch.tensor([1, 2, 3]))
    with pytest.raises(InvalidValueError, match="must be an AdaptiveInput"):
        AdaptiveSoftmax(nn.Linear(2, 2))
