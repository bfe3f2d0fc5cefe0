"""How a table's queries find their rows: exact matrix products over the rows, with the unit rows
(cosine) and squared norms (euclidean) cached on first use, or a FAISS index built for a metric.

    vectors.build_index("hnsw")      # later cosine queries answered by the index (vectors/index.py)
    vectors.drop_index()             # back to exact matrix products

`Vectors` (table.py) takes these from `RowSearch`, as it takes its tensors from `TensorViews`; they read
its rows (`_rows`), its keys (`key_to_index`) and keep what they cache in `_unit`, `_squared_norms` and
`_indexes`.
"""

from __future__ import annotations

import numpy as np

from embedlab.errors import check_choice, check_int
from embedlab.vectors import similarity as sim
from embedlab.vectors.neighbors import best_rows


class RowSearch:
    """build_index, drop_index and the search behind every query, for a class with `_rows` (V, d),
    `key_to_index`, `__len__`, and the caches `_unit`, `_squared_norms`, `_indexes` (Vectors)."""

    _rows: np.ndarray
    key_to_index: dict
    _unit: np.ndarray | None
    _squared_norms: np.ndarray | None
    _indexes: dict

    # ---- FAISS ---------------------------------------------------------------------------------

    def build_index(self, kind: str = "flat", metric: str = "cosine", **options) -> None:
        """Answer later `metric` queries from a FAISS index (pip install faiss-cpu): "flat" is exact
        and returns the same neighbours as the matrix product; "hnsw" and "ivf" are approximate."""
        from embedlab.vectors.index import FaissIndex

        check_choice("metric", metric, sim.METRICS)
        self._indexes[metric] = FaissIndex(self._rows, metric=metric, kind=kind, **options)

    def drop_index(self, metric: str | None = None) -> None:
        """Forget the FAISS index of `metric` (all of them if None): back to exact matrix products."""
        self._indexes.clear() if metric is None else self._indexes.pop(metric, None)

    def _limit(self, restrict_vocab: int | None) -> int:
        if restrict_vocab is None:
            return len(self)
        return min(check_int("restrict_vocab", restrict_vocab, low=1), len(self))

    def _search(self, queries, topn, metric, exclude_keys, restrict_vocab) -> list[list[tuple[int, float]]]:
        """Top `topn` (row, score) per query, query keys removed when `exclude_keys` is given."""
        topn = check_int("topn", topn, low=1)
        n = self._limit(restrict_vocab)
        exclude = None if exclude_keys is None else [self._rows_within(keys, n) for keys in exclude_keys]
        width = topn + max((len(e) for e in exclude), default=0) if exclude else topn
        index = self._indexes.get(metric) if n == len(self) else None
        if index is not None:
            values, indices = index.search(queries, width)
        else:  # exactly, with what the table caches: unit rows for cosine, squared norms for euclidean
            # no exclusion here: the `width` best hold the topn best that are not inputs (gensim's way)
            unit = self._unit_rows()[:n] if metric == "cosine" else None
            squared = self._squares()[:n] if metric == "euclidean" else None
            values, indices = sim.search_rows(queries, self._rows[:n], width, metric, unit=unit, squared_norms=squared)
        banned = [set(e) for e in exclude] if exclude else [set()] * len(values)
        # one conversion of the whole (B, k) result: per-row .tolist() calls cost more than the top-k
        rows = zip(values.tolist(), indices.tolist(), banned, strict=True)
        return [best_rows(v, i, topn, b) for v, i, b in rows]

    def _rows_within(self, keys, n: int) -> list[int]:
        """Rows of `keys` among the first n (the ones a search restricted to n rows could return);
        a key without a row of its own (a subword table's unseen word) cannot be an answer anyway."""
        rows = self.key_to_index
        return [rows[k] for k in keys if k in rows and rows[k] < n]

    def _unit_rows(self) -> np.ndarray:
        if self._unit is None:
            self._unit = sim.unit_rows(self._rows)
        return self._unit

    def _squares(self) -> np.ndarray:
        if self._squared_norms is None:
            self._squared_norms = np.einsum("vd,vd->v", self._rows, self._rows)
        return self._squared_norms
