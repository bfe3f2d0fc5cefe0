"""The sweep's anchor (arena/anchor.py): the power law, Tao et al.'s trend from the shipped table, and
the comparison's verdict on hand-built sweeps whose winners grow, shrink or stay."""

from __future__ import annotations

import math

import pytest

from embedlab.arena.anchor import compare, power_law, tao_trend
from embedlab.errors import InvalidValueError


def test_a_power_law_through_exact_points():
    law = power_law([(10.0, 3 * 10**0.5), (1000.0, 3 * 1000**0.5), (1e5, 3 * 1e5**0.5)])
    assert law.coefficient == pytest.approx(3.0) and law.exponent == pytest.approx(0.5)
    assert law.at(4.0) == pytest.approx(6.0) and law.params_at(6.0) == pytest.approx(4.0)
    with pytest.raises(InvalidValueError, match="positive"):
        power_law([(1.0, 2.0), (0.0, 3.0)])


def test_their_trend_reaches_32k_near_a_billion_parameters():
    law = tao_trend()
    assert 0.3 < law.exponent < 0.8  # grows, slower than linearly
    assert 5e8 < law.params_at(32_000) < 2e9  # their largest model (1.13B) has 32,768 as its optimum
    by_hand = math.exp(sum(math.log(y) for _, y in law.points) / 6)  # the fit passes through the mean in log-log
    assert law.at(math.exp(sum(math.log(x) for x, _ in law.points) / 6)) == pytest.approx(by_hand)


def _summary(winners: dict[int, list[int]]) -> dict:
    """A sweep summary with the given winning vocabulary at each budget, per width."""
    points, wins = [], []
    for width, vocabs in winners.items():
        for k, vocab in enumerate(vocabs):
            points.append(
                {
                    "width": width,
                    "share": 2**k,
                    "budget_flops": 1e12 * 2**k,
                    "strategies": [{"params_non_embedding": 100 * width**2}],
                }
            )
            wins.append(
                {
                    "width": width,
                    "share": 2**k,
                    "budget_flops": 1e12 * 2**k,
                    "metric": "bits_per_byte",
                    "winner": f"v{vocab}",
                    "vocab_size": vocab,
                }
            )
    return {"plan": {"widths": list(winners)}, "points": points, "winners": wins}


@pytest.mark.parametrize(
    ("winners", "with_compute", "with_width", "same"),
    [
        ({64: [256, 2000, 2000], 128: [2000, 8000, 8000]}, ["grows", "grows"], "grows", True),
        ({64: [8000, 2000, 256], 128: [8000, 2000, 256]}, ["shrinks", "shrinks"], "stays", False),
        ({64: [2000, 2000], 128: [2000, 2000]}, ["stays", "stays"], "stays", None),
    ],
)
def test_the_arenas_direction_against_theirs(winners, with_compute, with_width, same):
    result = compare(_summary(winners))
    assert [a["with_compute"] for a in result["arena"]] == with_compute
    assert result["with_width"] == with_width and result["same_direction"] is same
    law = tao_trend()
    for a, width in zip(result["arena"], winners, strict=True):
        assert a["non_vocab_params"] == 100 * width**2
        assert a["tao_vocab_at_params"] == pytest.approx(law.at(100 * width**2))
