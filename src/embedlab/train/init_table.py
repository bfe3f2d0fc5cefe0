"""A run's table started from another table (`--init-from TABLE`), rows matched by key.

    source = load_source("runs/gcide-sgns", dim=100)      # any table embedlab.vectors loads, by name or path
    run_rows, source_rows = match_rows(job.keys, source, pieces=False)
    check_some_match(config.init_from, run_rows, job.keys, "words")   # a source sharing no key: refused
    job.init_rows(run_rows, source.vectors[source_rows])  # the other rows keep the run's own init
    InitReport.of(source, len(job.keys), len(run_rows), frozen=False).matched   # counted, for metrics.json

A row is copied when its key is the source's key. The lm's keys are byte-level BPE pieces ("Ġking"):
from a table keyed the same way (another lm run) a piece takes the row of its own key; from a table
keyed by words (a word2vec run, MiniLM's WordPiece vocabulary) a piece that is a whole word after a
space takes that word's row ("Ġking" <- "king"), and no other piece does: a piece inside a word
("king" of "sking") is not the word "king". Keys are matched exactly, case included.

The copy is exact (float32 rows, bit for bit); rows without a match keep the values the run's seed
gave them, the same as in a run without --init-from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from embedlab.errors import InvalidValueError
from embedlab.tokenizer.bytes import SPACE_MARK, piece_word
from embedlab.vectors import Vectors


@dataclass(frozen=True)
class InitReport:
    """Where a run's table started: what metrics.json and the checkpoint keep as "init"."""

    source: str | None  # the table named by init_from; None: the run's own random init
    rows: int  # V, rows of the run's table
    matched: int  # rows copied from the source
    unmatched: int  # rows left at the run's own init
    frozen: bool  # the table was not trained

    @classmethod
    def of(cls, source: str | None, rows: int, matched: int, frozen: bool) -> InitReport:
        return cls(source, rows, matched, rows - matched, frozen)

    def to_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        """One line: '1,204 rows matched, 2,796 at the run's init; frozen' ('random init; frozen' without a source)."""
        start = (
            "random init"
            if self.source is None
            else f"{self.matched:,} rows matched, {self.unmatched:,} at the run's init"
        )
        return f"{start}; {'frozen' if self.frozen else 'trained'}"


def load_source(name: str, dim: int) -> Vectors:
    """The table `name` (a built-in model, a run folder, a .txt/.bin/.safetensors file), checked to
    have the run's width `dim`; an unknown name raises MissingDataError, another width
    InvalidValueError naming both."""
    source = Vectors.load(name)
    if source.vector_size != dim:
        raise InvalidValueError(
            f"init_from {name!r} has rows of width {source.vector_size}; the run's table has width {dim} "
            f"(set dim to {source.vector_size}, or start from a table of width {dim})"
        )
    return source


def match_rows(keys: Sequence[str], source: Vectors, pieces: bool) -> tuple[np.ndarray, np.ndarray]:
    """The run's keys (V,) and a source table -> (run rows (K,), source rows (K,)) int64 of the K
    keys they share, in run-row order. pieces: the run's keys are byte-level BPE pieces (an lm).

    >>> source = Vectors(["king", "queen"], np.eye(2, dtype=np.float32))
    >>> [a.tolist() for a in match_rows(["Ġqueen", "king", "Ġking"], source, pieces=True)]
    [[0, 2], [1, 0]]
    """
    index = source.key_to_index
    by_word = pieces and not any(key.startswith(SPACE_MARK) for key in source.index_to_key)
    pairs = []
    for row, key in enumerate(keys):
        found = index.get(piece_word(key)) if by_word else index.get(key)
        if found is not None:
            pairs.append((row, found))
    matched = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return matched[:, 0], matched[:, 1]


def check_some_match(source: str, run_rows: np.ndarray, keys: Sequence[str], unit: str) -> None:
    """Raise InvalidValueError when `source` gave no row of the run's `keys` (match_rows' run_rows is
    empty): a start that starts nothing is a mistake, not a run from the seeded init."""
    if len(run_rows) == 0:
        first = ", ".join(repr(k) for k in keys[:3])
        raise InvalidValueError(
            f"init_from {source!r} shares no key with the run's {len(keys):,} {unit} "
            f"(first: {first}; keys match exactly, case included): it would start no row; "
            "start from a table that holds the run's keys, or from the run's own init",
            param="init_from",
        )
