"""Adaptive input (Baevski & Auli 2019) and the adaptive softmax tied to it.

The vocabulary is sorted by frequency and cut into bands at `cutoffs`: ids below cutoffs[0] (the
frequent ones) get D-wide rows, the next band D / div, then D / div², …, and each narrower band is
projected back to D by a bias-free linear map. With V 100, D 64, cutoffs (20, 60), div 4:

    band 0  ids  0..19   (20, 64) rows                     1,280 parameters
    band 1  ids 20..59   (40, 16) rows + (16, 64) map        640 + 1,024
    band 2  ids 60..99   (40,  4) rows + ( 4, 64) map        160 +   256     = 3,360, not 6,400

AdaptiveSoftmax is torch's nn.AdaptiveLogSoftmaxWithLoss read over the same tables: its head
scores band 0's ids with their own rows and each other band as one cluster (a row of its own);
a cluster's ids are scored by mapping h down with the band's projection and reading the band's rows.
The tie is the same Parameter objects (`softmax.tables is adaptive_input.tables`), so the head
adds only one D-wide row per cluster. tests/layers/test_adaptive.py copies the weights into torch's
module and checks log-probabilities, predictions, loss and gradients against it.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from embedlab.errors import InvalidValueError, check_int, describe
from embedlab.layers.token import checked_ids
from embedlab.sizing import adaptive_bands


class AdaptiveInput(nn.Module):
    """(B, T) int ids in [0, V) -> (B, T, D), from frequency bands of widths D, D/div, D/div², ….

    Args:
        vocab_size: V; ids must be sorted by frequency, most frequent first (0 the most frequent).
        dim: D, width of the output rows and of band 0.
        cutoffs: the first id of each band after the first, increasing, each 1..V-1.
        div_value: how much narrower each band is than the one before (>= 1; the paper's 4).
        std: every band's rows start N(0, std²); each projection starts Xavier-uniform.

    `tables[i]` is band i's (rows_i, w_i) table; `projections[i - 1]` maps band i (i >= 1) to D and
    is stored (w_i, D), the layout torch's adaptive softmax reads it in, so the two tie as they are.

    Example:
        >>> emb = AdaptiveInput(100, 64, cutoffs=(20, 60))
        >>> emb(torch.tensor([[0, 25, 99]])).shape, [tuple(t.shape) for t in emb.tables]
        (torch.Size([1, 3, 64]), [(20, 64), (40, 16), (40, 4)])
    """

    def __init__(
        self, vocab_size: int, dim: int, cutoffs: tuple[int, ...], div_value: float = 4.0, std: float = 0.02
    ) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, low=1)
        self.dim = check_int("dim", dim, low=1)
        cutoffs = tuple(cutoffs)
        bands = adaptive_bands(vocab_size, dim, cutoffs, div_value)  # checks cutoffs, div_value, widths
        self.cutoffs, self.div_value, self.std = cutoffs, float(div_value), std
        self.edges = (0, *cutoffs, vocab_size)  # band i holds ids edges[i]..edges[i + 1] - 1
        self.tables = nn.ParameterList(torch.empty(rows, width) for rows, width in bands)
        self.projections = nn.ParameterList(torch.empty(width, dim) for _, width in bands[1:])
        self.reset_parameters()

    def reset_parameters(self) -> None:
        for table in self.tables:
            nn.init.normal_(table, mean=0.0, std=self.std)
        for projection in self.projections:
            nn.init.xavier_uniform_(projection)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, T) int ids -> (B, T, D)."""
        ids = checked_ids(ids, self.vocab_size)
        out = self.tables[0].new_zeros((*ids.shape, self.dim))  # (B, T, D)
        for i, table in enumerate(self.tables):
            low, high = self.edges[i], self.edges[i + 1]
            inside = (ids >= low) & (ids < high)  # (B, T) this band's positions
            # subtle: F.embedding, not table[...]: its backward sums rows in a fixed order on CPU, where
            # indexing's accumulates them in parallel, so the same seed would not give the same bits
            rows = F.embedding(ids[inside] - low, table)  # (n, w_i)
            out[inside] = rows if i == 0 else rows @ self.projections[i - 1]  # (n, D)
        return out

    def extra_repr(self) -> str:
        return f"{self.vocab_size}, {self.dim}, cutoffs={self.cutoffs}, div_value={self.div_value:g}"


class AdaptiveOutput(NamedTuple):
    """What AdaptiveSoftmax's forward returns, as torch's: each target's log-probability and the mean loss."""

    output: torch.Tensor  # (N,) log p(target_n | h_n)
    loss: torch.Tensor  # () -mean(output)


class AdaptiveSoftmax(nn.Module):
    """(N, D) hidden states -> log-probabilities over V, tied to an AdaptiveInput's bands.

    The head is [band 0's rows; one row per cluster] (c0 + n_clusters, D), plus a bias if asked;
    cluster i's scores are (h · projections[i]ᵀ) · tables[i + 1]ᵀ. log p(id) is the head's
    log-softmax for a band-0 id, and the cluster's head log-probability plus the id's log-softmax
    within the cluster otherwise: torch's nn.AdaptiveLogSoftmaxWithLoss, computed the same way.

    Args:
        adaptive_input: the AdaptiveInput whose tables and projections are read (THE TIE: the same
            Parameters, counted once, each receiving the gradients of both uses).
        head_bias: a (c0 + n_clusters,) bias on the head, zero at init (torch's `head_bias`).

    Example:
        >>> emb = AdaptiveInput(100, 64, cutoffs=(20, 60))
        >>> out = AdaptiveSoftmax(emb)
        >>> out.tables is emb.tables, out.log_prob(torch.zeros(2, 64)).shape
        (True, torch.Size([2, 100]))
    """

    def __init__(self, adaptive_input: AdaptiveInput, head_bias: bool = False) -> None:
        super().__init__()
        if not isinstance(adaptive_input, AdaptiveInput):
            raise InvalidValueError(f"adaptive_input must be an AdaptiveInput; got {describe(adaptive_input)}")
        self.vocab_size, self.dim = adaptive_input.vocab_size, adaptive_input.dim
        self.cutoffs, self.edges = adaptive_input.cutoffs, adaptive_input.edges
        self.div_value = adaptive_input.div_value
        self.tables = adaptive_input.tables  # THE TIE: band i's rows score band i's ids
        self.projections = adaptive_input.projections  # THE TIE: h is mapped down by the input's maps
        self.n_clusters = len(self.cutoffs)
        table = self.tables[0]
        self.clusters = nn.Parameter(table.new_empty(self.n_clusters, self.dim))  # one head row per tail band
        self.bias = nn.Parameter(table.new_zeros(self.cutoffs[0] + self.n_clusters)) if head_bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """The cluster rows start as torch's head does (nn.Linear's default); the tied tables are the input's."""
        bound = 1.0 / self.dim**0.5  # kaiming_uniform(a=√5) of a Linear(D, ·) draws U(-1/√D, 1/√D)
        nn.init.uniform_(self.clusters, -bound, bound)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def head(self, h: torch.Tensor) -> torch.Tensor:
        """(N, D) -> (N, c0 + n_clusters) head scores."""
        return F.linear(h, torch.cat([self.tables[0], self.clusters]), self.bias)

    def cluster_scores(self, h: torch.Tensor, i: int) -> torch.Tensor:
        """(N, D) -> (N, rows of band i + 1): scores of cluster i's ids (band i + 1)."""
        return F.linear(F.linear(h, self.projections[i]), self.tables[i + 1])  # (N, w) -> (N, rows)

    def log_prob(self, h: torch.Tensor) -> torch.Tensor:
        """(N, D) -> (N, V) log-probabilities; each row's exp sums to 1."""
        h = self._checked(h)
        head = F.log_softmax(self.head(h), dim=-1)  # (N, c0 + n_clusters)
        c0 = self.cutoffs[0]
        parts = [head[:, :c0]]
        for i in range(self.n_clusters):
            parts.append(F.log_softmax(self.cluster_scores(h, i), dim=-1) + head[:, c0 + i, None])
        return torch.cat(parts, dim=-1)  # (N, V)

    def predict(self, h: torch.Tensor) -> torch.Tensor:
        """(N, D) -> (N,) int64 most likely id per row.

        subtle: a row whose best head score is a band-0 id needs no cluster: that id's probability
        is at least its rival cluster's total, hence at least any id in it (torch takes the same short
        cut). Only the other rows are scored over all V.
        """
        h = self._checked(h)
        best = self.head(h).argmax(dim=-1)  # (N,)
        far = best >= self.cutoffs[0]
        if bool(far.any()):
            best[far] = self.log_prob(h[far]).argmax(dim=-1)
        return best

    def forward(self, h: torch.Tensor, target: torch.Tensor) -> AdaptiveOutput:
        """(N, D) hidden states, (N,) int target ids -> AdaptiveOutput((N,) log p(target), () mean loss).

        Only each target's own cluster is scored, as in torch: O(N · (c0 + rows of one band)), not O(N · V).
        """
        h = self._checked(h)
        target = checked_ids(target, self.vocab_size).long()
        if target.shape != h.shape[:1]:
            raise InvalidValueError(f"target must have shape ({h.shape[0]},), one id per row; got {describe(target)}")
        c0 = self.cutoffs[0]
        output = h.new_zeros(h.shape[0])  # (N,)
        head_index = target.clone()  # a band-0 target is its own head column; another, its cluster's
        for i in range(self.n_clusters):
            low, high = self.edges[i + 1], self.edges[i + 2]
            inside = (target >= low) & (target < high)
            if bool(inside.any()):
                scores = F.log_softmax(self.cluster_scores(h[inside], i), dim=-1)  # (n, rows)
                output[inside] = scores.gather(1, (target[inside] - low)[:, None])[:, 0]
                head_index[inside] = c0 + i
        output = output + F.log_softmax(self.head(h), dim=-1).gather(1, head_index[:, None])[:, 0]
        return AdaptiveOutput(output, -output.mean())

    def _checked(self, h: torch.Tensor) -> torch.Tensor:
        if not isinstance(h, torch.Tensor) or h.dim() != 2 or h.shape[1] != self.dim:
            raise InvalidValueError(f"hidden states must be a tensor of shape (N, {self.dim}); got {describe(h)}")
        return h

    def extra_repr(self) -> str:
        return f"{self.dim}, {self.vocab_size}, cutoffs={self.cutoffs}, head_bias={self.bias is not None}"
