"""TokenEmbedding against torch's nn.Embedding and autograd."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from embedlab.errors import InvalidValueError
from embedlab.layers.token import TokenEmbedding

requires_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

SAMPLE_STD = 0.03  # relative error allowed on an std estimated from ~10^5 draws


def _reference(emb: TokenEmbedding, **kwargs) -> nn.Embedding:
    ref = nn.Embedding(emb.vocab_size, emb.dim, **kwargs)
    ref.weight.data.copy_(emb.weight.data)
    return ref


def test_forward_and_backward_equal_nn_embedding_with_padding():
    torch.manual_seed(0)
    emb = TokenEmbedding(50, 8, padding_idx=0)
    ref = _reference(emb, padding_idx=0)
    ids = torch.tensor([[0, 3, 3, 7], [49, 0, 1, 3]])
    grad = torch.randn(2, 4, 8)
    out, expected = emb(ids), ref(ids)
    torch.testing.assert_close(out, expected, rtol=0, atol=0)
    out.backward(grad)
    expected.backward(grad)
    torch.testing.assert_close(emb.weight.grad, ref.weight.grad, rtol=0, atol=0)
    assert torch.all(emb.weight.grad[0] == 0)  # padding row: no gradient
    assert torch.all(emb.weight.grad[[2, 4, 5]] == 0)  # absent rows: exactly zero
    torch.testing.assert_close(emb.weight.grad[3], grad[0, 1] + grad[0, 2] + grad[1, 3])


@pytest.mark.parametrize("init", ["normal", "xavier", "uniform", "zeros"])
def test_every_init_zeroes_the_padding_row(init):
    emb = TokenEmbedding(300, 200, padding_idx=7, init=init, std=0.05)
    assert torch.all(emb.weight[7] == 0)
    w = emb.weight.detach()
    if init == "normal":
        assert abs(w.std().item() / 0.05 - 1) < SAMPLE_STD
    elif init == "uniform":  # U(-a, a) with a = std·√3: same std as the normal init
        assert w.abs().max() <= 0.05 * math.sqrt(3)
        assert abs(w.std().item() / 0.05 - 1) < SAMPLE_STD
    elif init == "xavier":  # Glorot: bound √(6 / (fan_in + fan_out)) = √(6 / (D + V))
        bound = math.sqrt(6 / (200 + 300))
        assert w.abs().max() <= bound and w.abs().max() > 0.95 * bound
    else:
        assert torch.all(w == 0)


@pytest.mark.parametrize("init", ["kaiming_normal", "kaiming_uniform"])
@pytest.mark.parametrize("fan_mode", ["fan_in", "fan_out"])
@pytest.mark.parametrize(("nonlinearity", "slope"), [("leaky_relu", 0.0), ("leaky_relu", 0.2), ("tanh", 0.0)])
def test_kaiming_equals_torch_by_seed(init, fan_mode, nonlinearity, slope):
    # Oracle: torch.nn.init's own kaiming_*_ on a same-shaped (V, D) tensor, from the same seed.
    torch.manual_seed(7)
    emb = TokenEmbedding(50, 30, init=init, fan_mode=fan_mode, nonlinearity=nonlinearity, negative_slope=slope)
    torch.manual_seed(7)
    ref = getattr(nn.init, f"{init}_")(torch.empty(50, 30), a=slope, mode=fan_mode, nonlinearity=nonlinearity)
    assert torch.equal(emb.weight.detach(), ref)


# std = gain / √fan with fan_in = D = 250, fan_out = V = 2,000 (torch's fans of a (V, D) weight)
KAIMING_STDS = [
    ("fan_in", "relu", 0.0, math.sqrt(2) / math.sqrt(250)),  # ≈ 0.0894
    ("fan_out", "relu", 0.0, math.sqrt(2) / math.sqrt(2_000)),  # ≈ 0.0316
    ("fan_in", "leaky_relu", 0.2, math.sqrt(2 / (1 + 0.2**2)) / math.sqrt(250)),  # ≈ 0.0877
    ("fan_out", "tanh", 0.0, (5 / 3) / math.sqrt(2_000)),  # ≈ 0.0373
    ("fan_in", "linear", 0.0, 1 / math.sqrt(250)),  # ≈ 0.0632
]
KS_P_MIN = 1e-3  # a seeded draw from the named law passes a Kolmogorov-Smirnov test at this level


@pytest.mark.parametrize("init", ["kaiming_normal", "kaiming_uniform"])
@pytest.mark.parametrize(("fan_mode", "nonlinearity", "slope", "std"), KAIMING_STDS)
def test_kaiming_is_the_named_law(init, fan_mode, nonlinearity, slope, std):
    from scipy import stats

    torch.manual_seed(0)
    kwargs = dict(fan_mode=fan_mode, nonlinearity=nonlinearity, negative_slope=slope)
    emb = TokenEmbedding(2_000, 250, padding_idx=3, init=init, **kwargs)
    w = emb.weight.detach()
    assert torch.all(w[3] == 0)  # the padding row is zeroed after any init
    w = torch.cat([w[:3], w[4:]]).flatten().double().numpy()
    assert abs(w.std() / std - 1) < SAMPLE_STD
    bound = std * math.sqrt(3)  # U(-a, a) with a = √3·std
    law = stats.norm(scale=std) if init == "kaiming_normal" else stats.uniform(loc=-bound, scale=2 * bound)
    assert stats.kstest(w, law.cdf).pvalue > KS_P_MIN
    if init == "kaiming_uniform":
        assert abs(w).max() <= bound


def test_init_from_a_tensor_and_from_pretrained():
    table = torch.randn(5, 3)
    emb = TokenEmbedding(5, 3, init=table, padding_idx=1)
    torch.testing.assert_close(emb.weight[0], table[0])
    assert torch.all(emb.weight[1] == 0)  # init then zero the padding row

    loaded = TokenEmbedding.from_pretrained(table, padding_idx=1)
    torch.testing.assert_close(loaded.weight.data, table)  # padding row left as given, like torch
    assert not loaded.weight.requires_grad  # freeze defaults to True, like torch
    assert loaded.weight.data_ptr() != table.data_ptr()  # a copy
    trainable = TokenEmbedding.from_pretrained(table, freeze=False, padding_idx=1)
    trainable(torch.tensor([1, 2])).sum().backward()
    assert torch.all(trainable.weight.grad[1] == 0) and torch.all(trainable.weight.grad[2] == 1)
    ref = nn.Embedding.from_pretrained(table, padding_idx=1)
    torch.testing.assert_close(loaded(torch.tensor([1, 4])), ref(torch.tensor([1, 4])))


def test_freeze_gives_no_gradient():
    emb = TokenEmbedding(10, 4, freeze=True)
    assert not emb.weight.requires_grad
    assert not emb(torch.tensor([1, 2])).requires_grad


def test_sparse_gradient_holds_only_used_rows():
    emb = TokenEmbedding(1000, 6, sparse=True)
    dense = _reference(emb)
    ids = torch.tensor([5, 9, 5, 999])
    grad = torch.randn(4, 6)
    emb(ids).backward(grad)
    dense(ids).backward(grad)
    g = emb.weight.grad
    assert g.is_sparse
    assert sorted(g.coalesce().indices()[0].tolist()) == [5, 9, 999]
    torch.testing.assert_close(g.to_dense(), dense.weight.grad)
    torch.optim.SGD(emb.parameters(), lr=0.1).step()  # sparse SGD works on it


def test_max_norm_renormalises_rows_in_place_like_torch():
    torch.manual_seed(1)
    table = torch.randn(6, 4) * 3
    emb = TokenEmbedding(6, 4, init=table.clone(), max_norm=1.0)
    ref = nn.Embedding.from_pretrained(table.clone(), freeze=False, max_norm=1.0)
    ids = torch.tensor([1, 4])
    torch.testing.assert_close(emb(ids), ref(ids))
    torch.testing.assert_close(emb.weight.data, ref.weight.data)
    norms = emb.weight.detach().norm(dim=1)
    assert torch.allclose(norms[ids], torch.ones(2), atol=1e-4)  # used rows rescaled in place
    assert torch.all(norms[[0, 2, 3, 5]] > 1.0)  # unused rows untouched


def test_scale_multiplies_rows():
    emb = TokenEmbedding(4, 16, scale="sqrt_d")
    torch.testing.assert_close(emb(torch.tensor([2])), emb.weight[[2]] * 4.0)  # √16
    half = TokenEmbedding(4, 16, scale=0.5)
    torch.testing.assert_close(half(torch.tensor([2])), half.weight[[2]] * 0.5)


def test_gemma_scale_is_cast_to_the_activation_dtype():
    # Gemma casts √3072 = 55.4256... to bf16 before multiplying: the factor becomes 55.5.
    emb = TokenEmbedding(3, 3072, scale="sqrt_d", init="zeros", dtype=torch.bfloat16)
    with torch.no_grad():
        emb.weight.fill_(1.0)
    out = emb(torch.tensor([0]))
    assert out.dtype == torch.bfloat16
    assert torch.all(out == 55.5)
    assert math.sqrt(3072) == pytest.approx(55.4256, abs=1e-4)
    fp32 = TokenEmbedding(3, 3072, scale="sqrt_d", init="zeros")
    with torch.no_grad():
        fp32.weight.fill_(1.0)
    assert fp32(torch.tensor([0]))[0, 0].item() == pytest.approx(math.sqrt(3072), rel=1e-7)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int16, torch.int32, torch.int64])
def test_any_integer_dtype_is_accepted(dtype):
    emb = TokenEmbedding(7, 2)
    torch.testing.assert_close(emb(torch.tensor([6, 0], dtype=dtype)), emb.weight[[6, 0]])


@pytest.mark.parametrize(
    "ids, match",
    [
        (torch.tensor([[1, 2], [7, 9]]), r"token id 7 is out of range: vocab_size is 7 \(allowed 0..6\)"),
        (torch.tensor([3, -2]), r"token id -2 is out of range: vocab_size is 7"),
        (torch.tensor([1.0]), r"integer dtype; got torch.float32"),
        (torch.tensor([True]), r"integer dtype; got torch.bool"),
        ([1, 2], r"must be a torch tensor of integers; got list"),
    ],
)
def test_bad_ids_raise_value_error_naming_the_id(ids, match):
    with pytest.raises(InvalidValueError, match=match) as info:
        TokenEmbedding(7, 2)(ids)
    assert isinstance(info.value, ValueError) and not isinstance(info.value, IndexError)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(vocab_size=0, dim=4), "vocab_size must be >= 1; got 0"),
        (dict(vocab_size=4, dim=-1), "dim must be >= 1; got -1"),
        (dict(vocab_size=4, dim=2, padding_idx=4), "padding_idx must be between 0 and 3; got 4"),
        (
            dict(vocab_size=4, dim=2, init="he"),
            "init must be one of normal, xavier, kaiming_normal, kaiming_uniform, uniform, zeros; got 'he'",
        ),
        (dict(vocab_size=4, dim=2, fan_mode="fan_avg"), "fan_mode must be one of fan_in, fan_out; got 'fan_avg'"),
        (
            dict(vocab_size=4, dim=2, nonlinearity="gelu"),
            "nonlinearity must be one of leaky_relu, relu, linear, tanh, sigmoid, selu; got 'gelu'",
        ),
        (dict(vocab_size=4, dim=2, negative_slope=math.nan), "negative_slope must be a finite number; got nan"),
        (dict(vocab_size=4, dim=2, init=torch.zeros(3, 2)), r"init tensor must have shape \(4, 2\); got \(3, 2\)"),
        (dict(vocab_size=4, dim=2, scale="sqrt"), "scale must be one of sqrt_d; got 'sqrt'"),
        (dict(vocab_size=4, dim=2, std=-1.0), "std must be >= 0.0; got -1.0"),
    ],
)
def test_bad_constructor_arguments(kwargs, match):
    with pytest.raises(InvalidValueError, match=match):
        TokenEmbedding(**kwargs)


def test_state_dict_has_one_table():
    emb = TokenEmbedding(5, 3, padding_idx=0, scale="sqrt_d")
    assert list(emb.state_dict()) == ["weight"]
    assert "padding_idx=0" in repr(emb)


@requires_gpu
def test_bad_id_on_gpu_is_a_value_error_not_a_device_assert():
    emb = TokenEmbedding(10, 4, device="cuda")
    with pytest.raises(InvalidValueError, match="token id 10 is out of range"):
        emb(torch.tensor([3, 10], device="cuda"))
    assert emb(torch.tensor([3, 9], device="cuda")).shape == (2, 4)  # the device is still usable
