"""LMHead: hidden states back to one score per vocabulary token, logits = h Eᵀ (+ b).

The output table has the token table's shape (V, D), so it can be the token table: tying makes
the head hold the very same Parameter, which then counts once in `model.parameters()` and gets
the gradients of both uses summed into one `.grad`. Worked example (V = 4, D = 3): with rows
E = [[0.5, 0.3, -0.1], [0.8, -0.2, 0.4], [0.1, 0.9, 0.3], [-0.3, 0.5, 0.6]] and
h = [0.6, 0.1, 0.3], the logits are the four dot products h·E[i] = [0.30, 0.58, 0.24, 0.05],
so token 1 scores highest.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import InvalidValueError, check_int, describe


class LMHead(nn.Module):
    """(..., D) hidden states -> (..., V) logits.

    Args:
        dim: D, the width of the hidden states.
        vocab_size: V, one logit per token.
        tied_to: a module whose `.weight` is a (V, D) Parameter, usually the TokenEmbedding;
            the head then reads that table instead of owning one. None: a table of its own,
            initialised N(0, 0.02²).
        bias: add a learned (V,) bias, zero at init (BERT's MLM head has one; GPT-2's has not).

    Example:
        >>> from embedlab.layers.token import TokenEmbedding
        >>> token = TokenEmbedding(10, 4)
        >>> head = LMHead(4, 10, tied_to=token)
        >>> head.weight is token.weight, head(torch.zeros(2, 5, 4)).shape
        (True, torch.Size([2, 5, 10]))
    """

    def __init__(
        self,
        dim: int,
        vocab_size: int,
        tied_to: nn.Module | None = None,
        bias: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.dim = check_int("dim", dim, low=1)
        self.vocab_size = check_int("vocab_size", vocab_size, low=1)
        self._tied = tied_to is not None
        if tied_to is not None:
            _check_tie_target(tied_to, vocab_size, dim)
            self.weight = tied_to.weight  # THE TIE: the same Parameter object as the token table
        else:
            self.weight = nn.Parameter(torch.empty(vocab_size, dim, device=device, dtype=dtype))
            nn.init.normal_(self.weight, mean=0.0, std=0.02)
        w = self.weight
        self.bias = (
            nn.Parameter(torch.zeros(vocab_size, device=w.device, dtype=w.dtype)) if bias else None
        )

    @property
    def tied(self) -> bool:
        """True when `weight` is another module's table (counted once, updated by both uses)."""
        return self._tied

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """(..., D) -> (..., V): logits[..., i] = h · E[i] (+ b[i])."""
        if not isinstance(h, torch.Tensor) or h.dim() == 0:
            raise InvalidValueError(f"hidden states must be a tensor (..., D); got {describe(h)}")
        if h.shape[-1] != self.dim:
            raise InvalidValueError(
                f"hidden states of width {h.shape[-1]} do not match the head's dim {self.dim}"
            )
        return F.linear(h, self.weight, self.bias)  # (..., V)

    def extra_repr(self) -> str:
        return f"{self.dim}, {self.vocab_size}, tied={self.tied}, bias={self.bias is not None}"


def _check_tie_target(module: nn.Module, vocab_size: int, dim: int) -> None:
    """The module to tie to must hold a (V, D) Parameter named `weight`."""
    weight = getattr(module, "weight", None)
    if not isinstance(weight, nn.Parameter):
        raise InvalidValueError(
            f"tied_to must have a `.weight` Parameter of shape ({vocab_size}, {dim}); "
            f"{type(module).__name__} has {describe(weight)}"
        )
    if tuple(weight.shape) != (vocab_size, dim):
        raise InvalidValueError(
            f"cannot tie: {type(module).__name__}.weight has shape {tuple(weight.shape)} but the "
            f"head needs (vocab_size, dim) = ({vocab_size}, {dim})"
        )
