"""Tao et al. 2024, "Scaling Laws with Vocabulary": their measured losses, cut to the table the arena compares with.

    rows = tao_table()                 # 240 TaoRow: each (non-vocab params, FLOPs level, vocabulary) -> Lossu
    optimal_vocabularies(rows)         # per (non-vocab params, FLOPs level): the vocabulary with the lowest Lossu

Their experiments (the file exp_data.csv of github.com/sail-sg/scaling-with-vocab) trained models
of 6 non-vocabulary sizes (33M to 1.13B parameters) with 10 vocabularies each (4,096 to 96,256)
and recorded Lossu, their unigram-normalised loss (lower is better), at 20 points of training
compute. scaling_files/tao2024-vocab.csv is `derive` of that file (its README names the commit and
the SHA-256); only the derived figures ship, and tests/data/test_scaling.py runs `derive` on rows
of the original file and finds the shipped figures.

`derive`, for each non-vocabulary size:
    1. F*: the largest training FLOPs that every vocabulary reached (the smallest of their last points);
    2. the FLOPs levels F*/8, F*/4, F*/2 and F* (the top of the range all share, 8x wide as the
       arena's sweep spans 16x);
    3. each vocabulary's Lossu at a level: the straight line in log FLOPs fitted by least squares to
       its LINE_POINTS points nearest that level, evaluated there. One point alone is noisy (a
       run's Lossu wobbles by a few hundredths between neighbouring points); the line smooths it.
"""

from __future__ import annotations

import csv
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from embedlab.errors import InvalidValueError, MissingDataError

SHIPPED = Path(__file__).with_name("scaling_files") / "tao2024-vocab.csv"
SOURCE = "https://github.com/sail-sg/scaling-with-vocab/blob/b88f6ceeeb5bc18acc1b760df44f942c2084f82d/exp_data.csv"
LEVELS = (0.125, 0.25, 0.5, 1.0)  # FLOPs levels as shares of F*
LINE_POINTS = 5  # points of a vocabulary's curve each level's line is fitted to
FIELDS = ("non_vocab_params", "embed_dim", "share", "flops", "vocab_size", "lossu")


@dataclass(frozen=True)
class TaoRow:
    """One vocabulary's smoothed Lossu at one FLOPs level of one non-vocabulary size."""

    non_vocab_params: int
    embed_dim: int
    share: float  # of F*, the largest FLOPs every vocabulary of this size reached
    flops: float  # share × F*
    vocab_size: int
    lossu: float  # unigram-normalised loss: lower is better


def derive(rows: Iterable[dict[str, str]], levels: tuple[float, ...] = LEVELS) -> list[TaoRow]:
    """exp_data.csv's rows (csv.DictReader: vocab_size, embed_dim, Non_vocab_parameters, FLOPs,
    Lossu, as strings) -> one TaoRow per (non-vocabulary size, level, vocabulary), in that order."""
    curves: dict[tuple[int, int], dict[int, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        size = (round(float(row["Non_vocab_parameters"])), round(float(row["embed_dim"])))
        curves[size][round(float(row["vocab_size"]))].append((float(row["FLOPs"]), float(row["Lossu"])))
    out = []
    for (size, dim), by_vocab in sorted(curves.items()):
        top = min(max(flops for flops, _ in points) for points in by_vocab.values())  # F*
        for share in levels:
            for vocab, points in sorted(by_vocab.items()):
                out.append(TaoRow(size, dim, share, share * top, vocab, _line_at(points, share * top)))
    return out


def _line_at(points: list[tuple[float, float]], flops: float) -> float:
    """Lossu at `flops` on the least-squares line (in log FLOPs) through the LINE_POINTS points nearest it."""
    if len(points) < 2:
        raise InvalidValueError(f"a vocabulary's curve needs at least 2 points to fit a line; got {len(points)}")
    x = math.log(flops)
    near = sorted(points, key=lambda p: abs(math.log(p[0]) - x))[:LINE_POINTS]
    slope, intercept = statistics.linear_regression([math.log(f) for f, _ in near], [loss for _, loss in near])
    return slope * x + intercept


def tao_table() -> list[TaoRow]:
    """The shipped table (scaling_files/tao2024-vocab.csv), as derive wrote it."""
    if not SHIPPED.is_file():  # a broken install: the package data did not come along
        raise MissingDataError(f"{SHIPPED} is missing; reinstall embedlab")
    with SHIPPED.open(encoding="utf-8", newline="") as f:
        return [TaoRow(int(r["non_vocab_params"]), int(r["embed_dim"]), float(r["share"]), float(r["flops"]),
                       int(r["vocab_size"]), float(r["lossu"])) for r in csv.DictReader(f)]  # fmt: skip


def optimal_vocabularies(rows: Iterable[TaoRow]) -> list[TaoRow]:
    """The row with the lowest Lossu of each (non-vocabulary size, level), smallest size and level first.

    >>> [(r.non_vocab_params // 10**6, r.vocab_size) for r in optimal_vocabularies(tao_table()) if r.share == 1]
    [(33, 6144), (84, 8192), (150, 10240), (316, 24576), (631, 24576), (1129, 32768)]
    """
    best: dict[tuple[int, float], TaoRow] = {}
    for row in rows:
        key = (row.non_vocab_params, row.share)
        if key not in best or row.lossu < best[key].lossu:
            best[key] = row
    return [best[key] for key in sorted(best)]


def write_table(rows: list[TaoRow], path: Path) -> None:
    """Write `rows` as the shipped CSV (FIELDS, Lossu to 6 decimals)."""
    with path.open("w", encoding="utf-8", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(FIELDS)
        for r in rows:
            out.writerow([r.non_vocab_params, r.embed_dim, r.share, f"{r.flops:.6e}", r.vocab_size, f"{r.lossu:.6f}"])
