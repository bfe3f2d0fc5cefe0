"""Vectors: a table E (V, d) with its keys, and the queries people ask of it.

    vectors = Vectors.load("minilm")                      # or a path in any format of vectors.io
    vectors["king"]                                        # (d,) row: a read-only NumPy view, as gensim's
    vectors.similarity("king", "queen")                   # cosine | dot | euclidean
    vectors.most_similar(positive=["king", "woman"], negative=["man"], topn=5)
    vectors.analogy("king - man + woman")                 # 3CosAdd, or method="3cosmul"
    vectors.most_similar_batch(["cat", "dog", ...])       # one matrix product for many queries

Names follow gensim's KeyedVectors (index_to_key, key_to_index, most_similar, similar_by_vector,
doesnt_match), and for metric="cosine" the scores equal gensim's. The rows are stored once, as a
(V, d) float32 NumPy array, and queries run in NumPy as gensim's do (so a query imports no torch,
about a second): with the unit rows cached, a query is one matrix-vector product plus a top-k.

What is handed out as NumPy (`vectors`, `v[key]`, `get_vector`, `unit_vectors`) is a read-only
view, as in gensim: a write there would change the table behind the cached unit rows. `table` and
`unit` are the same rows as torch tensors, made on first use (on the device `to` chose); torch has
no read-only flag, so clone them before changing anything.

A key becomes a vector in one place, `_vector_of`: SubwordVectors (subword.py) overrides it to
answer words without a row, and every query above takes them.
The rows as torch tensors (`table`, `unit`, `to`) are tensors.py's; the parsing of a query is
query.py's, the search for a query's rows (exact, or a FAISS index) search.py's, the scoring and top-k
similarity.py's, the answer neighbors.py's, the FAISS index itself index.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from embedlab.errors import (
    InvalidValueError,
    MissingDataError,
    UnknownKeyError,
    check_choice,
    check_int,
    closest_names,
    is_tensor,
)
from embedlab.vectors import io
from embedlab.vectors import similarity as sim
from embedlab.vectors.io import first_duplicate
from embedlab.vectors.neighbors import Neighbors, best_rows
from embedlab.vectors.query import Term, as_keys, describe_query, query_vector, resolve_terms, signed_terms
from embedlab.vectors.search import RowSearch
from embedlab.vectors.similarity import read_only
from embedlab.vectors.tensors import TensorViews

if TYPE_CHECKING:
    import torch

ANALOGY_METHODS = ("3cosadd", "3cosmul")


class Vectors(TensorViews, RowSearch):
    """Rows of `vectors` (V, d) float32 keyed by `keys` (V unique strings); `counts` (V,) corpus
    frequencies when known (None for tables such as a model's token embedding).

    A writable float32 array or CPU tensor is used as it is, not copied; a read-only one (another
    table's `vectors`), one of another dtype and a tensor on a GPU are copied.
    """

    composes = False  # whether a key without a row of its own can still get a vector (SubwordVectors)

    def __init__(
        self,
        keys: Sequence[str],
        vectors: np.ndarray | torch.Tensor,
        counts: Sequence[int] | np.ndarray | None = None,
        *,
        name: str = "vectors",
    ):
        rows = sim.as_array(vectors)
        if rows.ndim != 2:
            raise InvalidValueError(f"vectors must have shape (V, d); got shape {tuple(rows.shape)}")
        if len(keys) != rows.shape[0]:
            raise InvalidValueError(f"{len(keys)} keys for {rows.shape[0]} rows; need one key per row")
        if not (rows.flags.writeable and rows.flags.c_contiguous):
            rows = rows.copy()  # C order; and writable, so torch can share it (`table`)
        self._rows = rows  # (V, d) float32: the one store of the rows
        self._set_keys(keys, counts, name)

    def _set_keys(self, keys: Sequence[str], counts: Sequence[int] | np.ndarray | None, name: str) -> None:
        """Everything but the rows: keys, counts, name and the caches (SubwordVectors makes its rows later)."""
        self.index_to_key = list(keys)
        self.key_to_index = {key: i for i, key in enumerate(self.index_to_key)}
        if len(self.key_to_index) != len(self.index_to_key):
            key, first, second = first_duplicate(self.index_to_key)
            raise InvalidValueError(f"keys must be unique; {key!r} is at rows {first} and {second}")
        self.counts = None if counts is None else np.asarray(counts, dtype=np.int64)
        if self.counts is not None and self.counts.shape != (len(self.index_to_key),):
            raise InvalidValueError(
                f"counts must have one entry per row ({len(self.index_to_key)}); got {self.counts.shape}"
            )
        self.name = name
        self.device = "cpu"  # where `table` and `unit` hand out tensors; queries run on the CPU rows
        self._unit: np.ndarray | None = None  # (V, d) unit rows, made on first use
        self._squared_norms: np.ndarray | None = None  # (V,) for euclidean queries
        self._tensors: dict[str, torch.Tensor] = {}  # "table" | "unit" -> the tensor handed out
        self._indexes: dict[str, object] = {}

    # ---- loading and saving ------------------------------------------------------------------

    @classmethod
    def load(cls, name_or_path: str | Path) -> Vectors:
        """A built-in table by name ("minilm": its 30522 × 384 WordPiece input embedding) or a file
        or folder in any format `embedlab.vectors.io` reads (the format by extension, else by
        content); a file holding NaN or ±inf raises FileFormatError naming the key and column."""
        from embedlab.data.models import MODELS, model_dir

        text = str(name_or_path)
        if text in MODELS:
            table = io.read_hf_table(model_dir(text))
        elif Path(text).exists():
            table = io.read_table(text)
        else:
            raise MissingDataError(f"vectors {text!r} are neither a built-in table ({', '.join(MODELS)}) nor a path")
        return cls(table.keys, table.vectors, table.counts, name=text)

    def save(
        self,
        path: str | Path,
        format: str | None = None,
        replace: bool = True,
        *,
        dsub: int | None = None,
        qnorm: bool = False,
    ) -> list[Path]:
        """Write the table (and its keys and counts where the format keeps them) -> the files written.

        The format follows the extension, as `load` reads it: .txt or .vec word2vec text, .bin
        word2vec binary, .safetensors, .npy (each with NAME.vocab.json), a .ftz product-quantized as
        fastText's (`dsub` columns a code byte, None: 2; `qnorm`: norms apart; io/quantized.py), and
        a path without an extension is a projector folder. An explicit `format` wins; replace=False:
        OutputExistsError if a file is there when it is created (another writer's)."""
        counts = None if self.counts is None else self.counts.tolist()
        table = io.Table(self.index_to_key, self.vectors, counts)
        return io.write_table(table, path, format, replace, dsub=dsub, qnorm=qnorm)

    def save_format(self, path: str | Path, format: str | None = None) -> str:
        """The format `save(path, format)` writes: `format` if given, else the one of the extension."""
        return io.format_for(path) if format is None else format

    # ---- rows ----------------------------------------------------------------------------------

    @property
    def vectors(self) -> np.ndarray:
        """(V, d) float32 read-only NumPy view of the rows."""
        return read_only(self._rows.view())

    @property
    def unit_vectors(self) -> np.ndarray:
        """(V, d) float32 read-only view of the unit-length rows, computed once (zero rows stay zero)."""
        return read_only(self._unit_rows().view())

    @property
    def vector_size(self) -> int:
        return self._rows.shape[1]

    def __len__(self) -> int:
        return len(self.index_to_key)

    def __contains__(self, key: object) -> bool:
        """Whether the table can give `key` a vector (here: it has a row; a subword table also
        makes one from character n-grams)."""
        return key in self.key_to_index

    def has_index_for(self, key: object) -> bool:
        """Whether `key` has a row of its own (gensim's name): one of `index_to_key`."""
        return key in self.key_to_index

    def source(self, key: str) -> str:
        """Where `key`'s vector comes from: "word" (its own row); a subword table may answer
        "ngrams". UnknownKeyError if the table can make no vector for it."""
        if key in self.key_to_index:
            return "word"
        raise self._unknown(key)

    def __repr__(self) -> str:
        return f"Vectors({self.name!r}, {len(self)} keys × {self.vector_size})"

    def index_of(self, key: str) -> int:
        """The row of `key`; UnknownKeyError (a KeyError) naming it and the closest keys if absent."""
        try:
            return self.key_to_index[key]
        except (KeyError, TypeError):
            raise self._unknown(key) from None

    def __getitem__(self, key: str | Sequence[str]) -> np.ndarray:
        """One key -> (d,) read-only view; a list of keys -> (n, d), a copy (as gensim's)."""
        if isinstance(key, str):
            return read_only(self._vector_of(key))
        return self._vectors_of(key)

    def get_vector(self, key: str, norm: bool = False) -> np.ndarray:
        """(d,) read-only row of `key`, scaled to unit length if `norm`."""
        return read_only(self._vector_of(key, unit=norm))

    @property
    def norms(self) -> np.ndarray:
        """(V,) Euclidean length of every row."""
        return np.linalg.norm(self._rows, axis=1)

    def normalized(self) -> Vectors:
        """A new table whose rows are the unit rows of this one (same keys and counts)."""
        return Vectors(self.index_to_key, self._unit_rows().copy(), self.counts, name=f"{self.name} (unit rows)")

    # ---- pairs ---------------------------------------------------------------------------------

    def similarity(self, a: str, b: str, metric: str = "cosine") -> float:
        """cos(a, b), a·b or ‖a − b‖ of two keys."""
        return float(sim.pair_score(self._vector_of(a), self._vector_of(b), metric))

    # ---- neighbours ----------------------------------------------------------------------------

    def most_similar(
        self,
        positive: Term | Sequence[Term] | None = None,
        negative: Term | Sequence[Term] | None = None,
        topn: int = 10,
        *,
        metric: str = "cosine",
        exclude: bool = True,
        restrict_vocab: int | None = None,
    ) -> Neighbors:
        """The `topn` rows closest to the combination of `positive` minus `negative` terms.

        metric="cosine" (gensim's rule): each key's unit vector times its weight (+1 positive,
        −1 negative unless a (key, weight) pair says otherwise), averaged, against unit rows.
        metric="dot" / "euclidean": the raw vector arithmetic u = Σ wᵢ vᵢ / Σ wᵢ (the plain sum
        when the weights sum to 0), so king − man + woman is exactly the lessons' u.
        `exclude` leaves the query's keys out of the answers; `restrict_vocab` searches only the
        first that many rows (useful when rows are sorted by frequency).
        """
        check_choice("metric", metric, sim.METRICS)
        terms = resolve_terms(positive, negative, self._vector_of, self.vector_size)
        query = query_vector(terms, metric)[None, :]
        inputs = tuple(dict.fromkeys(key for key, _, _ in terms if key is not None))
        [result] = self._search(query, topn, metric, [inputs] if exclude else None, restrict_vocab)
        return self._neighbors(result, metric, describe_query([(k, w) for k, w, _ in terms]), inputs, exclude)

    def most_similar_batch(
        self,
        queries: Sequence[str] | np.ndarray | torch.Tensor,
        topn: int = 10,
        *,
        metric: str = "cosine",
        exclude: bool = True,
        restrict_vocab: int | None = None,
    ) -> list[Neighbors]:
        """Neighbours of many keys (or of the rows of a (B, d) array) with one matrix product per
        chunk of queries; answer i equals most_similar(queries[i], ...)."""
        check_choice("metric", metric, sim.METRICS)
        if isinstance(queries, np.ndarray) or is_tensor(queries):
            matrix = sim.as_array(queries)
            if matrix.ndim != 2 or matrix.shape[1] != self.vector_size:
                raise InvalidValueError(f"queries must have shape (B, {self.vector_size}); got {tuple(matrix.shape)}")
            keys: list[tuple[str, ...]] = [()] * matrix.shape[0]
        else:
            # cosine queries are scored as unit vectors: take the cached ones rather than renormalise
            matrix = self._vectors_of(queries, unit=metric == "cosine")  # (B, d)
            keys = [(key,) for key in queries]
        results = self._search(matrix, topn, metric, keys if exclude else None, restrict_vocab)
        return [
            self._neighbors(r, metric, k[0] if k else "<vector>", k, exclude and bool(k))
            for r, k in zip(results, keys, strict=True)
        ]

    def similar_by_vector(
        self,
        vector: np.ndarray | torch.Tensor,
        topn: int = 10,
        *,
        metric: str = "cosine",
        restrict_vocab: int | None = None,
    ) -> Neighbors:
        """The `topn` rows closest to a raw (d,) vector."""
        return self.most_similar([sim.as_array(vector)], topn=topn, metric=metric, restrict_vocab=restrict_vocab)

    def most_similar_cosmul(
        self,
        positive: Sequence[str] | str,
        negative: Sequence[str] | str = (),
        topn: int = 10,
        *,
        exclude: bool = True,
        restrict_vocab: int | None = None,
    ) -> Neighbors:
        """3CosMul (Levy & Goldberg 2014) with gensim's (1 + cos) / 2 shift; keys only."""
        topn = check_int("topn", topn, low=1)
        positive, negative = as_keys(positive), as_keys(negative)
        if not positive:
            raise InvalidValueError("3cosmul needs at least one positive key")
        pos = self._vectors_of(positive, unit=True)[None]  # (1, p, d)
        neg = self._vectors_of(negative, unit=True)[None]  # (1, n, d)
        n = self._limit(restrict_vocab)
        scores = sim.cos_mul_vectors(self._unit_rows()[:n], pos, neg)
        inputs = tuple(dict.fromkeys(positive + negative))
        exclude_rows = [self._rows_within(inputs, n)] if exclude else None
        values, indices = sim.top_k(scores, topn + len(inputs), exclude_rows)
        query = describe_query([(k, 1.0) for k in positive] + [(k, -1.0) for k in negative])
        rows = best_rows(values[0].tolist(), indices[0].tolist(), topn)
        return self._neighbors(rows, "3cosmul", query, inputs, exclude)

    def analogy(
        self, expression: str, topn: int = 10, *, method: str = "3cosadd", metric: str = "cosine", exclude: bool = True
    ) -> Neighbors:
        """Solve "king - man + woman" (any number of + and − terms): 3CosAdd with `metric`, or
        3CosMul. Write operators with spaces around them when keys contain "-" or "+"."""
        check_choice("method", method, ANALOGY_METHODS)
        terms = signed_terms(expression)
        if method == "3cosmul":
            positive = [k for k, sign in terms if sign > 0]
            negative = [k for k, sign in terms if sign < 0]
            result = self.most_similar_cosmul(positive, negative, topn, exclude=exclude)
            # report the query as written, not regrouped into positives then negatives
            inputs = tuple(dict.fromkeys(k for k, _ in terms))
            sources = tuple(self.source(k) for k in inputs)
            return replace(result, query=describe_query(terms), inputs=inputs, sources=sources)
        return self.most_similar([(k, float(sign)) for k, sign in terms], None, topn, metric=metric, exclude=exclude)

    def doesnt_match(self, words: Sequence[str]) -> str:
        """The key farthest (by cosine) from the mean of the unit vectors of `words` (gensim's rule)."""
        if len(words) < 2:
            raise InvalidValueError(f"doesnt_match needs at least 2 keys; got {len(words)}")
        unit = self._vectors_of(words, unit=True)  # (n, d)
        centre = sim.unit_rows(unit.mean(axis=0))
        return words[int(np.argmin(unit @ centre))]

    # ---- internals -----------------------------------------------------------------------------

    def _vector_of(self, key: str, unit: bool = False) -> np.ndarray:
        """(d,) the vector of `key` (its unit vector if `unit`): here a view of its row, not a copy.

        The one place a query turns a key into a vector: a subword table overrides it to make a
        vector for a key without a row (from its n-grams); every query goes through it.
        """
        return (self._unit_rows() if unit else self._rows)[self.index_of(key)]

    def _vectors_of(self, keys: Sequence[str], unit: bool = False) -> np.ndarray:
        """(n, d) float32: the vectors of `keys` (unit vectors if `unit`), a new array."""
        if not len(keys):
            return np.empty((0, self.vector_size), dtype=np.float32)
        return np.stack([self._vector_of(key, unit) for key in keys])

    def _neighbors(self, rows, metric, query, inputs, exclude) -> Neighbors:
        keys, scores = tuple(self.index_to_key[i] for i, _ in rows), tuple(s for _, s in rows)
        return Neighbors(keys, scores, metric, query, tuple(inputs), exclude, tuple(map(self.source, inputs)))

    def _unknown(self, key: object) -> UnknownKeyError:
        hint = closest_names(str(key), self.index_to_key)
        hint = f"; closest: {', '.join(hint)}" if hint else ""
        return UnknownKeyError(f"unknown key {key!r}: not among the {len(self)} keys of {self.name}{hint}")
