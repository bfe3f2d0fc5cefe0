"""The classifier as PyTorch writes it, for reading and for checking the kernels against autograd.

    module = BagOfEmbeddings.of(Classifier.read("model.bin"))
    scores = module(ids, offsets)     # (N,) int64 row ids, (L,) int64 starts -> (L, nlabels)

nn.EmbeddingBag(mode="mean") is the bag (the mean of a line's rows, a row listed twice counted twice)
and a bias-free nn.Linear the output table: a softmax over its scores is fastText's softmax loss, a
sigmoid of each its ova.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from embedlab.models.bag import Classifier, dense


class BagOfEmbeddings(nn.Module):
    """The classifier as PyTorch writes it: nn.EmbeddingBag(mode="mean") over the input table, then
    nn.Linear(D, nlabels, bias=False) whose weight is the output table. forward(ids, offsets) -> (L,
    nlabels) scores, as EmbeddingBag takes a flat batch: (N,) int64 row ids and (L,) int64 starts."""

    def __init__(self, rows: int, dim: int, labels: int) -> None:
        super().__init__()
        self.bag = nn.EmbeddingBag(rows, dim, mode="mean")
        self.out = nn.Linear(dim, labels, bias=False)

    @classmethod
    def of(cls, clf: Classifier) -> BagOfEmbeddings:
        """A module holding a copy of `clf`'s tables (decoded, when quantized)."""
        w_in, w_out = dense(clf.model.input), dense(clf.model.output)
        module = cls(len(w_in), w_in.shape[1], len(w_out))
        with torch.no_grad():
            module.bag.weight.copy_(torch.from_numpy(np.array(w_in)))
            module.out.weight.copy_(torch.from_numpy(np.array(w_out)))
        return module

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.out(self.bag(ids, offsets))  # (L, D) -> (L, nlabels)
