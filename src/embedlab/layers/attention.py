"""Where embeddings meet attention: project X to queries and keys, compare them by dot product.

With X (T, D) the embedded tokens and learned W_Q, W_K (D, d_k):

    Q = X W_Q,  K = X W_K,  score(i, j) = qᵢ · kⱼ / √d_k,  weights = softmax over j.

Why divide by √d_k: if the components of q and k are independent with variance 1, q · k is a
sum of d_k such products and has variance d_k, so unscaled scores spread wider as heads get
wider and softmax saturates onto one key. Dividing by √d_k brings the variance back to ~1.
Embedding geometry feeds straight into this: long rows give large dot products, which is why
the scale of the embedding table matters upstream.

`SelfAttention` is the whole multi-head layer built on these two functions: values weighted by
the softmax rows, the heads joined and projected back to D (what every BERT layer does).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from embedlab.errors import InvalidValueError, check_int, describe


def qk_scores(
    x: torch.Tensor,
    w_q: torch.Tensor,
    w_k: torch.Tensor,
    b_q: torch.Tensor | None = None,
    b_k: torch.Tensor | None = None,
    scale: bool = True,
    n_heads: int | None = None,
) -> torch.Tensor:
    """(..., T, D) with (D, d_k) projections -> (..., T, T) scores q·k/√d_k.

    `w_q` and `w_k` follow the Q = X W_Q convention, so they are (D, d_k). An `nn.Linear(D, d_k)`
    stores the transpose, (d_k, D): pass `linear.weight.T` and `linear.bias`.

    With `n_heads` = H the d_k columns are split into H heads of d_k/H each, and the result is
    (..., H, T, T), each head scaled by √(d_k/H). `scale=False` returns the raw dot products.

    Example: X = [[1, 0], [0, 1]], W_Q = W_K = I (2×2) gives Q = K = X, so the scores are
    I / √2 = [[0.7071, 0], [0, 0.7071]].
    """
    d_k = _check_projections(x, w_q, w_k, b_q, b_k)
    if n_heads is not None:
        n_heads = check_int("n_heads", n_heads, low=1)
        if d_k % n_heads:
            raise InvalidValueError(f"d_k {d_k} is not divisible by n_heads {n_heads}")
    q = x @ w_q  # (..., T, d_k)
    k = x @ w_k  # (..., T, d_k)
    if b_q is not None:
        q = q + b_q
    if b_k is not None:
        k = k + b_k
    if n_heads is not None:
        q = _split_heads(q, n_heads)  # (..., H, T, d_k/H)
        k = _split_heads(k, n_heads)  # (..., H, T, d_k/H)
    scores = q @ k.transpose(-2, -1)  # (..., [H,] T, T)
    if scale:
        scores = scores / math.sqrt(q.shape[-1])
    return scores


def attention_weights(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """(..., T, T) scores -> (..., T, T) weights; each row is a softmax over the keys.

    `mask` is a bool tensor broadcastable to the scores, True where query i may look at key j
    (torch's `scaled_dot_product_attention` convention): a causal mask is
    `torch.ones(T, T, dtype=torch.bool).tril()`. A row with no allowed key comes out as NaN.
    """
    if not isinstance(scores, torch.Tensor) or scores.dim() < 2:
        raise InvalidValueError(f"scores must be a tensor (..., T, T); got {describe(scores)}")
    if mask is not None:
        if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
            raise InvalidValueError(f"mask must be a bool tensor; got {describe(mask)}")
        if not _broadcasts(mask, scores):
            raise InvalidValueError(
                f"mask of shape {tuple(mask.shape)} does not broadcast to the scores' shape {tuple(scores.shape)}"
            )
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1)


class SelfAttention(nn.Module):
    """Multi-head self-attention: (B, T, D) [+ (B, T) bool key mask] -> (B, T, D), (B, H, T, T).

    The four projections are `nn.Linear(D, D)` named as BERT names them (query, key, value and the
    output `dense`); head h reads columns [h·D/H, (h+1)·D/H) of q, k and v. The scores come from
    `qk_scores`, the weights from `attention_weights`; then each query's output is the weighted sum
    of the value rows, the heads are concatenated and projected back to D. Dropout is left out:
    this layer is for reading trained models, not for training them.

    `mask` (B, T) is True for real tokens: padded keys get weight 0, so a padded batch gives
    every real token the same output as the unpadded sentence alone.

    `bias`, a float tensor broadcastable to the (B, H, T, T) scores, is added to them before the
    softmax: where T5 puts positions (RelativePositionBias(H)(T, T) is (1, H, T, T)). The scores
    are scaled by √(D/H) before it is added.
    """

    def __init__(self, dim: int, n_heads: int, device=None, dtype=None) -> None:
        super().__init__()
        dim, n_heads = check_int("dim", dim, low=1), check_int("n_heads", n_heads, low=1)
        if dim % n_heads:
            raise InvalidValueError(f"dim {dim} is not divisible by n_heads {n_heads}")
        kw = dict(device=device, dtype=dtype)
        self.n_heads = n_heads
        self.query, self.key, self.value = (nn.Linear(dim, dim, **kw) for _ in range(3))
        self.dense = nn.Linear(dim, dim, **kw)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, bias: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, T, D) [+ (B, T) bool mask, (1 or B, H, T, T) bias] -> output (B, T, D) and weights (B, H, T, T)."""
        q, k = self.query, self.key
        # nn.Linear stores (out, in); qk_scores takes W in the Q = X W convention, hence the .T
        scores = qk_scores(x, q.weight.T, k.weight.T, q.bias, k.bias, n_heads=self.n_heads)  # (B, H, T, T)
        if bias is not None:
            if not isinstance(bias, torch.Tensor) or not bias.is_floating_point() or not _broadcasts(bias, scores):
                raise InvalidValueError(
                    f"bias must be a float tensor that broadcasts to the scores' shape {tuple(scores.shape)}; "
                    f"got {describe(bias)}"
                )
            scores = scores + bias  # (B, H, T, T)
        if mask is not None:
            if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.shape != x.shape[:-1]:
                raise InvalidValueError(
                    f"mask must be a bool tensor of shape {tuple(x.shape[:-1])}; got {describe(mask)}"
                )
            mask = mask[:, None, None, :]  # (B, 1, 1, T): every head and every query sees the same keys
        weights = attention_weights(scores, mask)  # (B, H, T, T)
        v = _split_heads(self.value(x), self.n_heads)  # (B, H, T, D/H)
        mixed = (weights @ v).transpose(-3, -2).flatten(-2)  # (B, T, H, D/H) -> (B, T, D)
        return self.dense(mixed), weights


def _check_projections(
    x: torch.Tensor,
    w_q: torch.Tensor,
    w_k: torch.Tensor,
    b_q: torch.Tensor | None,
    b_k: torch.Tensor | None,
) -> int:
    """Validate shapes at the boundary; return d_k."""
    if not isinstance(x, torch.Tensor) or x.dim() < 2:
        raise InvalidValueError(f"x must be a tensor (..., T, D); got {describe(x)}")
    D = x.shape[-1]
    for name, w in (("w_q", w_q), ("w_k", w_k)):
        if not isinstance(w, torch.Tensor) or w.dim() != 2 or w.shape[0] != D:
            raise InvalidValueError(
                f"{name} must be (D, d_k) with D = {D} from x of shape {tuple(x.shape)}; "
                f"got {describe(w)} (an nn.Linear's weight is (d_k, D): pass its .T)"
            )
    if w_q.shape != w_k.shape:
        raise InvalidValueError(
            f"w_q {tuple(w_q.shape)} and w_k {tuple(w_k.shape)} must have the same shape: "
            f"queries and keys are compared in one d_k-dimensional space"
        )
    d_k = w_q.shape[1]
    for name, b in (("b_q", b_q), ("b_k", b_k)):
        if b is not None and (not isinstance(b, torch.Tensor) or tuple(b.shape) != (d_k,)):
            raise InvalidValueError(f"{name} must have shape ({d_k},); got {describe(b)}")
    return d_k


def _broadcasts(t: torch.Tensor, scores: torch.Tensor) -> bool:
    """Whether `t` broadcasts to the scores' shape without growing it."""
    try:
        return torch.broadcast_shapes(t.shape, scores.shape) == scores.shape
    except RuntimeError:
        return False


def _split_heads(t: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(..., T, d_k) -> (..., H, T, d_k/H); head h holds columns [h·d_k/H, (h+1)·d_k/H)."""
    t = t.unflatten(-1, (n_heads, -1))  # (..., T, H, d_k/H)
    return t.transpose(-3, -2)  # (..., H, T, d_k/H)
