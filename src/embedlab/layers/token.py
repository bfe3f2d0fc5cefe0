"""TokenEmbedding: the lookup table E (V, D) that turns token ids into rows.

Lookup is `E[ids]`, the same numbers as `one_hot(ids, V) @ E` without building the one-hot
matrix. Backward adds each output gradient into the row it came from (dE = Hᵀ G), so rows of ids
absent from the batch get exactly zero gradient.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import (
    InvalidValueError,
    check_choice,
    check_float,
    check_ids,
    check_int,
    check_integer_dtype,
    describe,
)

INITS = ("normal", "xavier", "kaiming_normal", "kaiming_uniform", "uniform", "zeros")
# Kaiming's options, as torch.nn.init names them. For a (V, D) table torch reads fan_in = D and
# fan_out = V; the nonlinearity sets the gain (relu √2, leaky_relu √(2 / (1 + slope²)), linear 1, ...).
FAN_MODES = ("fan_in", "fan_out")
NONLINEARITIES = ("leaky_relu", "relu", "linear", "tanh", "sigmoid", "selu")


class TokenEmbedding(nn.Module):
    """(...) int ids -> (..., D) rows of a learned (V, D) table.

    Args:
        vocab_size: V, rows of the table.
        dim: D, width of each row.
        padding_idx: a row that is zero after init and never receives gradient (PAD tokens).
        init: "normal" N(0, std²) as GPT-2 and BERT do; "xavier" (Glorot uniform, fan_in = D,
            fan_out = V); "kaiming_normal" N(0, (gain/√fan)²) and "kaiming_uniform" U(-a, a) with
            a = gain·√(3/fan), exactly torch.nn.init's (the same seed gives the same table);
            "uniform" U(-a, a) with a = std·√3, so its std is `std` too; "zeros"; or a (V, D)
            tensor to copy in.
        std: standard deviation for "normal" and "uniform".
        fan_mode: Kaiming's fan, "fan_in" (D) or "fan_out" (V).
        nonlinearity: Kaiming's gain by name (torch's calculate_gain), one of NONLINEARITIES;
            torch's default "leaky_relu" at slope 0 is relu's √2.
        negative_slope: the leaky_relu slope in that gain (torch's `a`).
        scale: None; "sqrt_d" to multiply rows by √D (original Transformer, Gemma); or a number.
            The factor is cast to the activation dtype before multiplying, as Gemma's reference
            code does: √3072 = 55.4256 becomes 55.5 in bf16.
        max_norm: if set, every looked-up row whose L2 norm exceeds it is rescaled to norm
            `max_norm` IN PLACE in `weight` (torch's semantics), before it is returned.
        sparse: gradients as sparse COO tensors holding only the used rows (for SGD/SparseAdam).
        freeze: the table gets no gradient at all.

    Ids of any integer dtype and shape are accepted; an id outside [0, V) raises
    InvalidValueError naming it (never an IndexError or a device-side assert).

    Example:
        >>> emb = TokenEmbedding(6, 3)
        >>> emb(torch.tensor([[1, 2, 0]])).shape
        torch.Size([1, 3, 3])
    """

    # How ids and the table size are named in error messages; SegmentEmbedding overrides them.
    id_name, size_name = "token id", "vocab_size"

    def __init__(
        self,
        vocab_size: int,
        dim: int,
        padding_idx: int | None = None,
        init: str | torch.Tensor = "normal",
        std: float = 0.02,
        fan_mode: str = "fan_in",
        nonlinearity: str = "leaky_relu",
        negative_slope: float = 0.0,
        scale: str | float | None = None,
        max_norm: float | None = None,
        sparse: bool = False,
        freeze: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, low=1)
        self.dim = check_int("dim", dim, low=1)
        if padding_idx is not None:
            padding_idx = check_int("padding_idx", padding_idx, low=0, high=vocab_size - 1)
        self.padding_idx = padding_idx
        self.std = check_float("std", std, low=0.0)
        self.fan_mode = check_choice("fan_mode", fan_mode, FAN_MODES)
        self.nonlinearity = check_choice("nonlinearity", nonlinearity, NONLINEARITIES)
        self.negative_slope = check_float("negative_slope", negative_slope)
        self.scale = _scale_factor(scale, dim)
        self.max_norm = None if max_norm is None else check_float("max_norm", max_norm, low=0.0)
        self.sparse = bool(sparse)
        self.weight = nn.Parameter(torch.empty(vocab_size, dim, device=device, dtype=dtype))
        self.reset_parameters(init)
        self.weight.requires_grad_(not freeze)

    @classmethod
    def from_pretrained(
        cls,
        weight: torch.Tensor,
        freeze: bool = True,
        padding_idx: int | None = None,
        **kwargs,
    ) -> TokenEmbedding:
        """A table holding a copy of `weight` (V, D).

        As in torch's `nn.Embedding.from_pretrained`, the padding row is left exactly as given
        (not zeroed); it still receives no gradient. `freeze` defaults to True, as in torch.
        """
        if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
            raise InvalidValueError(f"pretrained weight must be a 2-D tensor (V, D); got {describe(weight)}")
        module = cls(
            weight.shape[0],
            weight.shape[1],
            padding_idx=padding_idx,
            init="zeros",
            freeze=freeze,
            device=weight.device,
            dtype=weight.dtype,
            **kwargs,
        )
        with torch.no_grad():
            module.weight.copy_(weight)
        return module

    def reset_parameters(self, init: str | torch.Tensor = "normal") -> None:
        """Fill the table by `init` (see the class docstring), then zero the padding row."""
        w = self.weight
        with torch.no_grad():
            if isinstance(init, torch.Tensor):
                if tuple(init.shape) != tuple(w.shape):
                    raise InvalidValueError(f"init tensor must have shape {tuple(w.shape)}; got {tuple(init.shape)}")
                w.copy_(init)
            else:
                check_choice("init", init, INITS)
                if init == "normal":
                    nn.init.normal_(w, mean=0.0, std=self.std)
                elif init == "xavier":
                    nn.init.xavier_uniform_(w)
                elif init in ("kaiming_normal", "kaiming_uniform"):
                    kaiming = nn.init.kaiming_normal_ if init == "kaiming_normal" else nn.init.kaiming_uniform_
                    kaiming(w, a=self.negative_slope, mode=self.fan_mode, nonlinearity=self.nonlinearity)
                elif init == "uniform":
                    bound = self.std * math.sqrt(3.0)  # U(-a, a) has std a/√3
                    nn.init.uniform_(w, -bound, bound)
                else:
                    nn.init.zeros_(w)
            if self.padding_idx is not None:
                w[self.padding_idx].zero_()

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """(...) int ids -> (..., D)."""
        ids = checked_ids(ids, self.vocab_size, self.id_name, self.size_name)
        x = F.embedding(ids, self.weight, self.padding_idx, self.max_norm, 2.0, False, self.sparse)
        if self.scale is not None:
            # subtle: cast the factor to the activation dtype first (Gemma's convention).
            x = x * torch.tensor(self.scale, dtype=x.dtype, device=x.device)
        return x

    def extra_repr(self) -> str:
        parts = [f"{self.vocab_size}, {self.dim}"]
        for name in ("padding_idx", "scale", "max_norm"):
            if getattr(self, name) is not None:
                parts.append(f"{name}={getattr(self, name)}")
        if self.sparse:
            parts.append("sparse=True")
        return ", ".join(parts)


def _scale_factor(scale: str | float | None, dim: int) -> float | None:
    """None | "sqrt_d" | number -> the multiplier applied to looked-up rows."""
    if scale is None:
        return None
    if isinstance(scale, str):
        check_choice("scale", scale, ("sqrt_d",))
        return math.sqrt(dim)
    return check_float("scale", scale)


def checked_ids(
    ids: torch.Tensor, vocab_size: int, what: str = "token id", size_name: str = "vocab_size"
) -> torch.Tensor:
    """(...) ids of any integer dtype -> the same ids as int32 or int64, each checked to be in [0, V):
    the one boundary check of every table that looks ids up (token, hashed, adaptive, ...)."""
    ids = _as_index(ids, what)
    check_ids(ids, vocab_size, what, size_name)
    return ids


def _as_index(ids: torch.Tensor, what: str) -> torch.Tensor:
    """Accept any integer tensor; F.embedding wants int32 or int64."""
    if not isinstance(ids, torch.Tensor):
        raise InvalidValueError(f"{what}s must be a torch tensor of integers; got {describe(ids)}")
    check_integer_dtype(ids, what)
    return ids if ids.dtype in (torch.int32, torch.int64) else ids.long()
