"""The torch side of a table: its rows handed out as tensors on a device, for torch code.

    vectors.to("cuda").table      # (V, d) float32 tensor on the GPU; queries still run in NumPy
    vectors.unit                  # (V, d) unit rows as a tensor on `vectors.device`

`Vectors` (table.py) takes these from `TensorViews`; they read its rows (`_rows`), its cached unit
rows (`_unit_rows()`) and keep the tensors in `_tensors`, so a table that never asks for one never
imports torch. torch has no read-only flag: clone a tensor before changing it.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch


class TensorViews:
    """`table`, `unit` and `to(device)` for a class with `_rows`, `_unit_rows()`, `device`,
    `_tensors` and `_indexes` (Vectors)."""

    _rows: np.ndarray
    device: str
    _tensors: dict
    _indexes: dict

    @property
    def table(self) -> torch.Tensor:
        """(V, d) float32 tensor of the rows on `device`; on the CPU the same memory as the rows."""
        return self._tensor("table", self._rows)

    @property
    def unit(self) -> torch.Tensor:
        """(V, d) tensor of the cached unit rows on `device` (zero rows stay zero)."""
        return self._tensor("unit", self._unit_rows())

    def to(self, device: str | torch.device):
        """The same table (the rows shared) handing out `table` and `unit` as tensors on `device`,
        e.g. "cuda", for torch code; queries still run in NumPy on the CPU rows, as gensim's do."""
        moved = copy.copy(self)  # the same class and rows (a subword table stays one), its own caches
        moved.device, moved._tensors, moved._indexes = str(device), {}, {}
        return moved

    def _tensor(self, name: str, rows: np.ndarray) -> torch.Tensor:
        """`rows` as a torch tensor on `device`, made once (sharing memory on the CPU)."""
        if name not in self._tensors:
            import torch

            self._tensors[name] = torch.from_numpy(rows).to(self.device)
        return self._tensors[name]
