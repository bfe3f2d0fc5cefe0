"""LMHead: hidden states back to one score per vocabulary token, logits = h Eᵀ (+ b).

The output table has the token table's shape (V, D), so it can be the token table: tying makes
the head hold the very same Parameter, which then counts once in `model.parameters()` and gets
the gradients of both uses summed into one `.grad`. Worked example (V = 4, D = 3): with rows
E = [[0.5, 0.3, -0.1], [0.8, -0.2, 0.4], [0.1, 0.9, 0.3], [-0.3, 0.5, 0.6]] and
h = [0.6, 0.1, 0.3], the logits are the four dot products h·E[i] = [0.30, 0.58, 0.24, 0.05],
so token 1 scores highest.

`count_parameters` counts modules with a shared table once; `embedding_parameters` gives the
table-plus-head total of a layout (V·D tied, 2·V·D untied); `tied_and_untied` puts both heads
over one small table, for comparing their logits.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import InvalidValueError, check_int, describe
from embedlab.layers.token import TokenEmbedding


class LMHead(nn.Module):
    """(..., D) hidden states -> (..., V) logits.

    Args:
        dim: D, the width of the hidden states.
        vocab_size: V, one logit per token.
        tied_to: a module whose `.weight` is a (V, D) Parameter, usually the TokenEmbedding;
            the head then reads that table instead of owning one. None: a table of its own,
            initialised N(0, 0.02²).
        bias: add a learned (V,) bias, zero at init (BERT's MLM head has one; GPT-2's has not).
        generator: draws the untied table from this torch.Generator instead of the global
            random state (the same head for the same seed, whatever else runs).

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
        generator: torch.Generator | None = None,
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
            nn.init.normal_(self.weight, mean=0.0, std=0.02, generator=generator)
        w = self.weight
        self.bias = nn.Parameter(torch.zeros(vocab_size, device=w.device, dtype=w.dtype)) if bias else None

    @property
    def tied(self) -> bool:
        """True when `weight` is another module's table (counted once, updated by both uses)."""
        return self._tied

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """(..., D) -> (..., V): logits[..., i] = h · E[i] (+ b[i])."""
        if not isinstance(h, torch.Tensor) or h.dim() == 0:
            raise InvalidValueError(f"hidden states must be a tensor (..., D); got {describe(h)}")
        if h.shape[-1] != self.dim:
            raise InvalidValueError(f"hidden states of width {h.shape[-1]} do not match the head's dim {self.dim}")
        return F.linear(h, self.weight, self.bias)  # (..., V)

    def extra_repr(self) -> str:
        return f"{self.dim}, {self.vocab_size}, tied={self.tied}, bias={self.bias is not None}"


def count_parameters(*modules: nn.Module) -> int:
    """Numbers the modules learn, a Parameter shared between them counted once.

    >>> token = TokenEmbedding(10, 4)
    >>> count_parameters(token, LMHead(4, 10, tied_to=token)), count_parameters(token, LMHead(4, 10))
    (40, 80)
    """
    unique = {id(p): p for module in modules for p in module.parameters()}
    return sum(p.numel() for p in unique.values())


def embedding_parameters(vocab_size: int, dim: int, tied: bool) -> int:
    """Parameters of a (V, D) token table and the head that reads hidden states back onto it:
    V·D when tied, 2·V·D when the head has its own table. Counted on modules built on the meta
    device, so a 256,000-row table costs no memory.

    >>> embedding_parameters(32_000, 4096, tied=True), embedding_parameters(32_000, 4096, tied=False)
    (131072000, 262144000)
    """
    token = TokenEmbedding(vocab_size, dim, device="meta")
    return count_parameters(token, LMHead(dim, vocab_size, tied_to=token if tied else None, device="meta"))


def tied_and_untied(table: torch.Tensor, seed: int = 0) -> tuple[LMHead, LMHead]:
    """A (V, D) token table -> (tied head, untied head) over the same V tokens.

    The tied head reads a TokenEmbedding holding `table`, so its logits are h·table[i]; the
    untied one owns a fresh N(0, 0.02²) table drawn from `seed`, as an untrained model's would be.
    """
    if not isinstance(table, torch.Tensor) or table.dim() != 2:
        raise InvalidValueError(f"table must be a 2-D tensor (V, D); got {describe(table)}")
    V, D = table.shape
    token = TokenEmbedding.from_pretrained(table)
    generator = torch.Generator().manual_seed(check_int("seed", seed, low=0))
    untied = LMHead(D, V, dtype=table.dtype, generator=generator)
    return LMHead(D, V, tied_to=token), untied


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
