"""A token's row in a table E (V, D), seen the ways the lookup lesson shows it.

    lookup_row(vectors, "king")             its index i, the row E[i] (D,) and its norm
    one_hot_lookup(vectors, "king")         one_hot(i) @ E_small on a small vocabulary: the same row,
                                            max |difference| exactly 0
    themed_map(vectors, "king")             PCA of the themed words the table holds, "king" marked
    themed_map(vectors, "cat", themes=["animals", "function words"])    only those groups, and "cat"
    table_slice(vectors, start=0, rows=32, dims=64)    a block of E with its keys, for a heat map
    neighbourhood_slice(vectors, "king", rows=32)      the same for a key and its nearest rows

A word names its own key, or "Ġ" + word in byte-level BPE tables (what `embedlab train --method
lm` builds; vectors.keys.resolve_key), so the themed words find their rows in every kind of table.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from embedlab.data.themes import THEMES, pick_themes
from embedlab.errors import InvalidValueError, check_int
from embedlab.files import Matrix, Vector
from embedlab.scratch import one_hot
from embedlab.sims.limits import MAX_TOKEN
from embedlab.vectors.frequency import word_rows
from embedlab.vectors.keys import resolve_key, themed_keys
from embedlab.vectors.projection import Projection, project_2d
from embedlab.vectors.table import Vectors

CHOSEN = "chosen"  # the theme of a looked-up word that is in none of the groups shown
MIN_MAP_POINTS = 3  # fewer points make a map with nothing to compare
MAX_VOCAB = 16  # keys in the lab's one-hot view's small vocabulary
MAX_SHOWN = 64  # columns of E_small the lab's one-hot view returns
LIMITS = {"token": MAX_TOKEN, "size": [2, MAX_VOCAB], "dims": [1, MAX_SHOWN]}  # the lab page's, listed by /api/config


# ---- one row ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RowLookup:
    table: str  # the table's name
    key: str  # the key the word names (itself, or "Ġ" + word)
    index: int  # i: the row of E that holds the key
    row: Vector  # (D,) float32, E[i]
    norm: float  # ‖E[i]‖, in float64
    vocab_size: int  # V
    dim: int  # D


def lookup_row(vectors: Vectors, word: str) -> RowLookup:
    """word -> its row index i and E[i] (D,): indexing, no arithmetic."""
    key = resolve_key(vectors, word)
    index = vectors.index_of(key)
    row = vectors.vectors[index].copy()  # (D,); a copy, so the result never aliases the table
    return RowLookup(
        vectors.name, key, index, row, float(np.linalg.norm(row.astype(np.float64))), *vectors.vectors.shape
    )


# ---- one-hot × E -----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class OneHotLookup:
    table: str  # the table's name
    key: str  # the key the word names
    index: int  # the key's row in the full table E
    keys: tuple[str, ...]  # the small vocabulary, k keys in table order
    rows: tuple[int, ...]  # their rows in E
    position: int  # the key's place among `keys`: where its one-hot vector has its 1
    one_hot: Vector  # (k,) float32
    dim: int  # D, the width of E (the arrays below may show fewer columns)
    e_small: Matrix  # (k, m) E_small = E[rows], its first m columns
    product: Vector  # (m,) one_hot @ E_small
    row: Vector  # (m,) E[index] looked up in the full table, its first m columns
    max_abs_difference: float  # max |product − row| over all D columns: exactly 0


def one_hot_lookup(vectors: Vectors, word: str, size: int = 12, dims: int | None = None) -> OneHotLookup:
    """word -> one_hot(position, k) (k,) @ E_small (k, D) on a vocabulary of k = min(size, V) keys;
    the arrays keep their first m = `dims` columns (all D if None), the difference covers all D.

    The small vocabulary is the word plus themed words (one theme after another, so every theme
    shows), topped up with the first rows of E, sorted by row. The product is compared with the
    row looked up in the full table: a 1 times the row plus zeros times the others, so it is
    the same float32 numbers, not merely close ones.
    """
    size = check_int("size", size, low=1)
    cut = slice(None) if dims is None else slice(check_int("dims", dims, low=1))
    key = resolve_key(vectors, word)
    index = vectors.index_of(key)
    by_theme = [[k for _, k, t in themed_keys(vectors) if t == theme] for theme in THEMES]
    interleaved = (k for group in itertools.zip_longest(*by_theme) for k in group if k is not None)
    first_rows = itertools.islice(vectors.index_to_key, size)
    others = [k for k in dict.fromkeys(itertools.chain(interleaved, first_rows)) if k != key]
    rows = sorted([index, *(vectors.index_of(k) for k in others[: size - 1])])
    small = vectors.vectors[rows]  # (k, D)
    position = rows.index(index)
    h = one_hot(np.array(position), len(rows))  # (k,)
    product = h @ small  # (D,)
    row = vectors.vectors[index].copy()  # (D,)
    difference = float(np.abs(product - row).max())
    keys = tuple(vectors.index_to_key[r] for r in rows)
    D = small.shape[1]
    return OneHotLookup(vectors.name, key, index, keys, tuple(rows), position, h, D, small[:, cut], product[cut],
                        row[cut], difference)  # fmt: skip


# ---- a themed map --------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ThemedMap:
    table: str  # the table's name
    projection: Projection  # its keys are the table's keys, one per point
    caption: str  # how the map was made (Projection.caption)
    words: tuple[str, ...]  # each point's word (the key without a BPE space mark)
    themes: tuple[str, ...]  # each point's theme, CHOSEN for a looked-up word in none of the groups
    highlight: int  # the looked-up word's point
    theme_names: tuple[str, ...]  # the groups asked for in THEMES order, then CHOSEN: the legend's order


def themed_map(vectors: Vectors, word: str, normalize: bool = False, themes: Iterable[str] | None = None) -> ThemedMap:
    """word -> 2-D PCA of the words of the THEMES groups named (default: all) that the table holds,
    (n, D) -> (n, 2), with the word added if absent (theme CHOSEN) and its point marked. `normalize`
    scales rows to unit length first; the PCA is fitted on these rows alone."""
    key = resolve_key(vectors, word)
    themes = pick_themes(themes)
    points = themed_keys(vectors, themes)
    if key not in [k for _, k, _ in points]:
        points.append((word, key, CHOSEN))
    if len(points) < MIN_MAP_POINTS:
        raise InvalidValueError(
            f"{vectors.name} holds {len(points)} of the themed words and {word!r}; a map needs >= {MIN_MAP_POINTS}"
        )
    words, keys, groups = (tuple(column) for column in zip(*points, strict=True))
    projection = project_2d(vectors, keys, normalize=normalize)
    return ThemedMap(vectors.name, projection, projection.caption(), words, groups, keys.index(key), (*themes, CHOSEN))


# ---- a block of the table ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TableSlice:
    table: str  # the table's name
    keys: tuple[str, ...]  # one per row of `values`
    rows: tuple[int, ...]  # their rows in E
    values: Matrix  # (n, m) float32: E[rows, :m]
    vocab_size: int  # V
    dim: int  # D


def table_slice(vectors: Vectors, start: int | None = None, rows: int = 32, dims: int = 64) -> TableSlice:
    """E (V, D) -> E[start : start + rows, :dims] (n, m), cut short at the table's last row and
    column (n <= rows, m <= dims). No `start`: the table's first word row (word_rows), not its
    [PAD] and [unused…] rows; row 0 if it has no word.

    >>> table_slice(Vectors(["a", "b", "c"], np.eye(3)), start=1, rows=5, dims=2).values
    array([[0., 1.],
           [0., 0.]], dtype=float32)
    >>> table_slice(Vectors(["[PAD]", "!", "the", "of"], np.eye(4)), rows=2).keys
    ('the', 'of')
    """
    V = len(vectors)
    if start is None:
        start = next(iter(word_rows(vectors.index_to_key, 1)), 0)
    start = check_int("start", start, low=0, high=V - 1)
    stop = start + check_int("rows", rows, low=1)
    return _block(vectors, list(range(start, min(stop, V))), dims)


def neighbourhood_slice(vectors: Vectors, word: str, rows: int = 32, dims: int = 64) -> TableSlice:
    """word -> its row and its rows − 1 nearest rows by cosine, best first, each cut to `dims`
    columns (n, m): neighbours share their strong columns, which a heat map shows as stripes."""
    key = resolve_key(vectors, word)
    rows = min(check_int("rows", rows, low=1), len(vectors))
    neighbours = vectors.most_similar(key, topn=rows - 1).keys if rows > 1 else ()
    return _block(vectors, [vectors.index_of(k) for k in (key, *neighbours)], dims)


def _block(vectors: Vectors, rows: list[int], dims: int) -> TableSlice:
    dims = min(check_int("dims", dims, low=1), vectors.vector_size)
    values = vectors.vectors[rows, :dims]  # (n, m): fancy indexing copies
    keys = tuple(vectors.index_to_key[r] for r in rows)
    return TableSlice(vectors.name, keys, tuple(rows), values, *vectors.vectors.shape)
