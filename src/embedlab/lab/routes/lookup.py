"""Lookup (simulation 1): a token's row, a 2-D map of the theme groups picked, one-hot × E.

Each call names a served table (see /api/tables) and a token: a key of that table, or a word
whose key is "Ġ" + word in byte-level BPE tables. The groups are embedlab.data.themes' (their
names and colours reach the page through /api/config).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import TableDep, ThemeNames, Token
from embedlab.lab.schemas import answer_model
from embedlab.sims.lookup import (
    MAX_SHOWN,
    MAX_VOCAB,
    OneHotLookup,
    RowLookup,
    ThemedMap,
    lookup_row,
    one_hot_lookup,
    themed_map,
)

router = APIRouter(prefix="/api/lookup", tags=["lookup"])


@router.get("/row", response_model=answer_model(RowLookup))
def row(vectors: TableDep, token: Token) -> RowLookup:
    """The token's row index i, its row E[i] (all D values) and ‖E[i]‖."""
    return lookup_row(vectors, token)


@router.get("/map", response_model=answer_model(ThemedMap))
def themed(vectors: TableDep, token: Token, normalize: bool = False, themes: ThemeNames = None) -> ThemedMap:
    """PCA of the words of the `themes` groups (default: all) the table holds plus the token (added
    if absent): coordinates, words, themes, the token's point (`highlight`), how many rows were used,
    whether they were centred and normalised, and a caption saying so."""
    return themed_map(vectors, token, normalize, themes)


@router.get("/onehot", response_model=answer_model(OneHotLookup))
def onehot(
    vectors: TableDep,
    token: Token,
    size: Annotated[int, Query(ge=2, le=MAX_VOCAB, description=f"keys in the small vocabulary, 2..{MAX_VOCAB}")] = 12,
    dims: Annotated[int, Query(ge=1, le=MAX_SHOWN, description=f"columns shown, 1..{MAX_SHOWN}")] = 8,
) -> OneHotLookup:
    """one_hot(token) @ E_small on a small vocabulary holding the token, beside the row looked up
    in the full table; arrays cut to the first `dims` columns, max_abs_difference over all D."""
    return one_hot_lookup(vectors, token, size, dims)
