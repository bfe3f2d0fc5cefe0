"""Position information: added to token rows (learned, sinusoidal) or rotated into q and k (rotary).

The additive modules share one signature, so recipes pick them by name from `POSITIONS`:

    module = POSITIONS[name](max_len, dim)
    module(positions)   # (...) int positions -> (..., D)

Rotary positions are different in kind: nothing is added to the embedding; queries and keys are
rotated inside attention by an angle proportional to their position, so q_m · k_n depends only
on m - n.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import InvalidValueError, check_float, check_ids, check_int, check_integer_dtype


class LearnedPositions(nn.Module):
    """(...) int positions -> (..., D) rows of a learned (max_len, D) table (BERT, GPT-2).

    A position >= max_len (a sequence longer than the table) raises InvalidValueError naming
    both numbers.
    """

    def __init__(self, max_len: int, dim: int, std: float = 0.02, device=None, dtype=None) -> None:
        super().__init__()
        self.max_len = check_int("max_len", max_len, low=1)
        self.dim = check_int("dim", dim, low=1)
        self.weight = nn.Parameter(torch.empty(max_len, dim, device=device, dtype=dtype))
        nn.init.normal_(self.weight, std=check_float("std", std, low=0.0))

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        """(...) int positions -> (..., D)."""
        _check_positions(positions, self.max_len)
        return F.embedding(positions, self.weight)

    def extra_repr(self) -> str:
        return f"{self.max_len}, {self.dim}"


class SinusoidalPositions(nn.Module):
    """(...) int positions -> (..., D) fixed sinusoids (the original Transformer).

    PE[pos, 2i] = sin(pos / 10000^(2i/D)),  PE[pos, 2i+1] = cos(pos / 10000^(2i/D)).
    For odd D the last column is a sine (its index is even). The table is a non-persistent
    buffer: derived, not learned, and not stored in state_dict.

    >>> SinusoidalPositions(8, 4).table[1]   # sin 1, cos 1, sin 0.01, cos 0.01
    tensor([0.8415, 0.5403, 0.0100, 0.9999])
    """

    def __init__(self, max_len: int, dim: int, base: float = 10000.0, device=None, dtype=None) -> None:
        super().__init__()
        self.max_len = check_int("max_len", max_len, low=1)
        self.dim = check_int("dim", dim, low=1)
        self.base = check_float("base", base, low=1.0)
        table = sinusoidal_table(max_len, dim, base).to(device=device, dtype=dtype or torch.float32)
        self.register_buffer("table", table, persistent=False)

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        """(...) int positions -> (..., D)."""
        _check_positions(positions, self.max_len)
        return self.table[positions]

    def extra_repr(self) -> str:
        return f"{self.max_len}, {self.dim}, base={self.base:g}"


def sinusoidal_table(max_len: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """(max_len, D) float64 sinusoid table; computed in float64 so long tables stay exact."""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]  # (L, 1)
    two_i = torch.arange(0, dim, 2, dtype=torch.float64)  # 2i for each sine column, (ceil(D/2),)
    angle = pos / base ** (two_i / dim)  # (L, ceil(D/2))
    table = torch.empty(max_len, dim, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : dim // 2])  # odd D: one sine column has no cosine
    return table


class RotaryPositions(nn.Module):
    """Rotary position embedding (RoFormer; Llama, Mistral, Gemma): rotate q and k by position.

    Dimension pairs (j, j + d_head/2) are rotated by the angle pos · base^(-2j/d_head): the
    "rotate half" layout of the HuggingFace Llama code, so weights ported from it line up.

        q, k = rope(q, k)                # q, k: (..., T, d_head); positions default 0..T-1
        q, k = rope(q, k, positions)     # positions: (T,) or (B, T) int

    Because a rotation by m and one by n meet as a rotation by m - n, q_m · k_n depends only on
    the offset m - n: relative position comes out of absolute rotations.
    """

    def __init__(self, d_head: int, base: float = 10000.0, device=None) -> None:
        super().__init__()
        self.d_head = check_int("d_head", d_head, low=2)
        if d_head % 2:
            raise InvalidValueError(f"d_head must be even for rotary positions; got {d_head}")
        self.base = check_float("base", base, low=1.0)
        inv_freq = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64, device=device) / d_head)
        self.register_buffer("inv_freq", inv_freq.float(), persistent=False)  # (d_head/2,)

    def cos_sin(self, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(...) positions -> cos, sin each (..., d_head), the angles repeated for both halves."""
        angle = positions.to(self.inv_freq.dtype)[..., None] * self.inv_freq  # (..., d_head/2)
        angle = torch.cat([angle, angle], dim=-1)  # (..., d_head)
        return angle.cos(), angle.sin()

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """q (..., T, d_head), k (..., T, d_head) -> both rotated, same shapes."""
        for name, x in (("q", q), ("k", k)):
            if x.shape[-1] != self.d_head:
                raise InvalidValueError(
                    f"{name} has last dimension {x.shape[-1]}; this RotaryPositions has d_head {self.d_head}"
                )
        T = q.shape[-2]
        if positions is None:
            positions = torch.arange(T, device=q.device)
        else:
            check_integer_dtype(positions, "position")
        if positions.shape[-1] != T:
            raise InvalidValueError(f"positions cover {positions.shape[-1]} tokens but q and k have T = {T}")
        cos, sin = self.cos_sin(positions)
        if cos.dim() == 3 and q.dim() == 4:  # (B, T, d) angles against (B, H, T, d) heads
            cos, sin = cos[:, None], sin[:, None]
        return apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)

    def extra_repr(self) -> str:
        return f"d_head={self.d_head}, base={self.base:g}"


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """(..., d) rotated pairwise: x·cos + rotate_half(x)·sin, with rotate_half(a, b) = (-b, a)."""
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return (x * cos + rotated * sin).to(x.dtype)


def _check_positions(positions: torch.Tensor, max_len: int) -> None:
    if not isinstance(positions, torch.Tensor):
        raise InvalidValueError(f"positions must be an integer tensor; got {type(positions).__name__}")
    check_integer_dtype(positions, "position")
    if positions.numel() and int(positions.max()) >= max_len:
        longest = int(positions.max()) + 1
        raise InvalidValueError(f"position {longest - 1} needs a sequence of {longest} tokens but max_len is {max_len}")
    check_ids(positions, max_len, "position", "max_len")


# Additive position modules by name; each is built as POSITIONS[name](max_len, dim).
POSITIONS: dict[str, type[nn.Module]] = {
    "learned": LearnedPositions,
    "sinusoidal": SinusoidalPositions,
}

# Every position scheme a recipe can name: the additive ones, plus those added nowhere (rotary turns
# q and k, relative adds a bias to the scores: layers/relative.py; both act inside attention).
POSITION_KINDS = (*POSITIONS, "rotary", "relative", "none")

__all__ = [
    "POSITIONS",
    "POSITION_KINDS",
    "LearnedPositions",
    "RotaryPositions",
    "SinusoidalPositions",
    "apply_rotary",
    "sinusoidal_table",
]
