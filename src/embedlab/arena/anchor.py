"""The sweep's anchor: does the arena's winning vocabulary move with compute and width as Tao et al.
2024's compute-optimal vocabulary does, and where would "BPE 32K is the balanced default" start to hold?

    trend = tao_trend()          # their optimum at the top FLOPs level, against non-vocabulary parameters
    trend.exponent, trend.params_at(32_000)     # V* ∝ N^exponent; the N where V* reaches 32K
    compare(sweep_summary)       # the arena's trend beside theirs: JSON-ready

Their optimum (data/scaling.py: the vocabulary of lowest Lossu at the largest compute every
vocabulary of a size reached) grows from 6,144 at 33M non-vocabulary parameters to 32,768 at
1.13B. A power law V* = c·N^k fitted to those six points by least squares in log-log says where
V* reaches 32K, and what it predicts at the arena's ~0.1-0.4M: an extrapolation far below their
smallest model (two orders of magnitude and more), which is a direction, not a forecast.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from embedlab.data.scaling import optimal_vocabularies, tao_table
from embedlab.errors import InvalidValueError

BALANCED_DEFAULT = 32_000  # the lesson's "BPE 32K is the balanced default"


@dataclass(frozen=True)
class PowerLaw:
    """y = coefficient · x^exponent, fitted to `points` (x, y) by least squares on log y against log x."""

    coefficient: float
    exponent: float
    points: tuple[tuple[float, float], ...]

    def at(self, x: float) -> float:
        return self.coefficient * x**self.exponent

    def params_at(self, y: float) -> float:
        """The x where the fitted y reaches `y`."""
        return (y / self.coefficient) ** (1 / self.exponent)


def power_law(points: list[tuple[float, float]]) -> PowerLaw:
    """Fit y = c·x^k to (x, y) points (positive), least squares in log-log.

    >>> law = power_law([(1.0, 2.0), (10.0, 20.0), (100.0, 200.0)])
    >>> round(law.coefficient, 6), round(law.exponent, 6)
    (2.0, 1.0)
    """
    if len(points) < 2 or any(x <= 0 or y <= 0 for x, y in points):
        raise InvalidValueError(f"a power law needs at least 2 positive (x, y) points; got {points}")
    k, log_c = statistics.linear_regression([math.log(x) for x, _ in points], [math.log(y) for _, y in points])
    return PowerLaw(math.exp(log_c), k, tuple(points))


def tao_trend(share: float = 1.0) -> PowerLaw:
    """Their optimal vocabulary against non-vocabulary parameters at one FLOPs level (a share of F*)."""
    best = [r for r in optimal_vocabularies(tao_table()) if r.share == share]
    if not best:
        raise InvalidValueError(f"no FLOPs level {share} in the table; levels are shares 0.125, 0.25, 0.5, 1.0")
    return power_law([(float(r.non_vocab_params), float(r.vocab_size)) for r in best])


def _direction(first: float, last: float) -> str:
    return "grows" if last > first else "shrinks" if last < first else "stays"


def compare(summary: dict, metric: str = "bits_per_byte") -> dict:
    """The arena sweep's trend (`summary`: sweep.sweep_summary's, before "anchor" is added) beside Tao et al.'s.

    -> {"tao": their six optima and the power law, "params_at_32k": the N where their V* reaches
    32K, "overtakes_32k_at": where 32K overtakes 24K in their measurements (overtakes_at; the two
    bound where 32K becomes the optimum), "arena": per width the winning vocabulary at each budget
    (smallest first), its direction with compute, the body's non-vocabulary parameters and Tao's
    extrapolated V* there;
    "with_width": the winner's direction from the narrowest to the widest body at the largest budget;
    "same_direction": whether the arena's winner moves as theirs does (larger with compute and with
    the body), None where it does not move at all}.
    """
    law = tao_trend()
    tao = [{"non_vocab_params": int(x), "vocab_size": int(y)} for x, y in law.points]
    arena = []
    for width in summary["plan"]["widths"]:
        wins = sorted((w for w in summary["winners"] if w["width"] == width and w["metric"] == metric),
                      key=lambda w: w["budget_flops"])  # fmt: skip
        point = next(p for p in summary["points"] if p["width"] == width)
        body = [r["params_non_embedding"] for r in point["strategies"] if r["params_non_embedding"] is not None]
        params = statistics.median(body) if body else None  # positions differ a little with each tokenizer's T
        arena.append({
            "width": width,
            "winners": [{"budget_flops": w["budget_flops"], "winner": w["winner"], "vocab_size": w["vocab_size"]}
                        for w in wins],
            "with_compute": _direction(wins[0]["vocab_size"], wins[-1]["vocab_size"]) if wins else None,
            "non_vocab_params": params,
            "tao_vocab_at_params": None if params is None else law.at(params),
        })  # fmt: skip
    top = [a["winners"][-1]["vocab_size"] for a in arena if a["winners"]]
    with_width = _direction(top[0], top[-1]) if len(top) > 1 else None
    moves = [a["with_compute"] for a in arena if a["with_compute"] not in (None, "stays")]
    moves += [with_width] if with_width not in (None, "stays") else []
    return {
        "metric": metric,
        "tao": tao,
        "tao_exponent": law.exponent,
        "tao_coefficient": law.coefficient,
        "params_at_32k": law.params_at(BALANCED_DEFAULT),
        "overtakes_32k_at": overtakes_at(),
        "arena": arena,
        "with_width": with_width,
        "same_direction": None if not moves else all(m == "grows" for m in moves),
    }


def overtakes_at(larger: int = 32_768, smaller: int = 24_576, share: float = 1.0) -> float:
    """Where, by Tao et al.'s own measurements at one FLOPs level, vocabulary `larger` overtakes
    `smaller` for good: the non-vocabulary size at which Lossu(larger) - Lossu(smaller) crosses 0 for
    the last time, read off a line in log N between the two sizes around it. Beside `params_at_32k`
    (the power law through all six optima) it bounds "where 32K becomes the optimum" from below.

    `overtakes_at()` is about 0.70B: 32,768 trails 24,576 at 632M and leads at 1.13B.
    """
    rows = [r for r in tao_table() if r.share == share]
    sizes = sorted({r.non_vocab_params for r in rows})
    lossu = {(r.non_vocab_params, r.vocab_size): r.lossu for r in rows}
    if not sizes or any((n, v) not in lossu for n in sizes for v in (larger, smaller)):
        raise InvalidValueError(f"the table lacks vocabulary {larger} or {smaller} at FLOPs level {share}")
    gap = [lossu[n, larger] - lossu[n, smaller] for n in sizes]
    if gap[-1] >= 0:
        raise InvalidValueError(f"{larger} does not overtake {smaller} at the largest size in their data")
    j = max(i for i in range(len(sizes) - 1) if gap[i] >= 0)  # the last size at which `larger` trails
    f = gap[j] / (gap[j] - gap[j + 1])
    return math.exp(math.log(sizes[j]) + f * math.log(sizes[j + 1] / sizes[j]))
