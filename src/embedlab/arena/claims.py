"""The claims docs/arena.md makes, re-derived from a race's and a sweep's results.json alone (the
recorded ones ship with embedlab: data/races.py), so a sceptical reader's checks are code, not prose.

    tolerance_goal(race, "large-v-hashed", "large-v-untied", 0.02)   paired gap, its bounds, met or not
    latency_by_seed(race)            each text strategy's latency seed by seed, the slowest in each seed
    flops_per_second(race)           each strategy's measured training throughput in FLOPs per second
    bits_per_token_gain(sweep, race)  the sweep's winners on a Lossu-like figure (Tao et al.'s measure)
    holm_orderings(race)             the race's orderings judged from its results as one Holm family:
                                     what the lab and `embedlab advise` read, whatever the file recorded
    rejudged(race)                   those beside the verdicts its results.json recorded
    frequency_ladder(race)           all text -> rare words -> unseen words, per strategy, judged

Everything here reads the race's `results` (each figure's per-seed values) and `runs`; nothing trains.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter

from embedlab.arena.noise import family_verdicts, t_interval, t_quantile_at, upper_bound
from embedlab.arena.tasks import Result, orderings
from embedlab.errors import InvalidValueError

LADDER = ("bits_per_byte", "rare_bits_per_byte", "unseen_bits_per_byte")  # all text, then ever rarer words
TOLERANCE_LEVEL = 0.95  # a tolerance goal is judged by the one-sided 95% bound of the paired gap


def _values(race: dict, strategy: str, metric: str) -> dict[int, float]:
    """seed -> the strategy's figure on `metric` in that seed."""
    for r in race["results"]:
        if r["strategy"] == strategy and r["metric"] == metric and r["value"] is not None:
            return dict(zip(r["seeds"], r["values"], strict=True))
    raise InvalidValueError(f"the race has no {metric} for {strategy}")


def paired_gap(race: dict, metric: str, a: str, b: str) -> list[float]:
    """Per-seed a - b on `metric`, over the seeds both ran (seed order)."""
    va, vb = _values(race, a, metric), _values(race, b, metric)
    return [va[s] - vb[s] for s in sorted(set(va) & set(vb))]


def tolerance_goal(race: dict, strategy: str, control: str, tolerance: float, metric: str = "bits_per_byte") -> dict:
    """ "`strategy` is within +`tolerance` of `control` on `metric` (lower is better)", judged by the
    one-sided 95% bounds of the per-seed gap (strategy - control): "met" when the upper bound is at
    most the tolerance, "refuted" when the lower bound is above it, "not established" otherwise.
    `seeds_needed`: the seeds at which the bound's margin t·s/√n, at the gap's measured spread s,
    would shrink to the tolerance (how many it would take to tell a tie from a +tolerance loss).
    -> {"gap", "interval" (two-sided 95%), "upper", "lower", "verdict", "seeds_needed", "params_ratio"}."""
    gaps = paired_gap(race, metric, strategy, control)
    if len(gaps) < 2:
        raise InvalidValueError(f"a tolerance needs at least 2 seeds; the race has {len(gaps)}")
    mean = statistics.fmean(gaps)
    upper = upper_bound(gaps, TOLERANCE_LEVEL)
    lower = 2 * mean - upper  # the matching one-sided lower bound
    spread = statistics.stdev(gaps)
    n = 2
    while n < 10_000 and t_quantile_at(TOLERANCE_LEVEL, n - 1) * spread / math.sqrt(n) > tolerance:
        n += 1
    params = {r["strategy"]: r["value"] for r in race["results"] if r["metric"] == "embedding_params_arena"}
    return {
        "gap": mean,
        "interval": list(t_interval(gaps)),
        "upper": upper,
        "lower": lower,
        "verdict": "met" if upper <= tolerance else "refuted" if lower > tolerance else "not established",
        "seeds_needed": n,
        "params_ratio": params[control] / params[strategy],
    }


def latency_by_seed(race: dict, names: list[str] | None = None) -> dict:
    """Each text strategy's latency (ms) seed by seed (or only `names`') -> {"ms": {strategy: [per
    seed]}, "mean": {strategy: mean}, "slowest": the slowest strategy in each seed, in seed order}."""
    text = names or [s["name"] for s in race["strategies"] if s["kind"] == "text"]
    ms = {name: _values(race, name, "latency_ms") for name in text}
    seeds = sorted(set.intersection(*(set(v) for v in ms.values())))
    return {
        "ms": {name: [v[s] for s in seeds] for name, v in ms.items()},
        "mean": {name: statistics.fmean(v.values()) for name, v in ms.items()},
        "slowest": [max(text, key=lambda name: ms[name][s]) for s in seeds],
    }


def flops_per_second(race: dict) -> dict[str, list[float]]:
    """strategy -> its runs' training FLOPs per second (train_flops / train_seconds), seed order: the
    throughput each strategy's FLOPs budget was spent at on the machine that ran it."""
    out: dict[str, list[float]] = {}
    for run in sorted(race["runs"], key=lambda r: (r["strategy"], r["seed"])):
        out.setdefault(run["strategy"], []).append(run["train_flops"] / run["train_seconds"])
    return {s["name"]: out[s["name"]] for s in race["strategies"] if s["name"] in out}


def bytes_per_token(race: dict) -> dict[str, float]:
    """text strategy -> held-out bytes per token: the byte model's tokens per held-out line (the
    lines' bytes) over the strategy's own, the same lines for every tokenizer."""
    tokens = {r["strategy"]: r["value"] for r in race["results"] if r["metric"] == "tokens_per_input"}
    return {s["name"]: tokens["bytes"] / tokens[s["name"]] for s in race["strategies"] if s["kind"] == "text"}


def bits_per_token_gain(sweep: dict, race: dict) -> list[dict]:
    """The sweep scored as Tao et al. score a vocabulary: their Lossu is a loss per token less the
    unigram model's, lower is better; here the same per-token figure is minus the gain over the
    unigram baseline in bits per byte times the tokenizer's bytes per token (from `race`, whose
    tokenizers the sweep shares). -> per point {"width", "share", "budget_flops", "lossu_like":
    {strategy: bits per token}, "winner", "bpb_winner" (the sweep's own winner on bits per byte)}."""
    per_token = bytes_per_token(race)
    out = []
    for point in sweep["points"]:
        rows = {r["strategy"]: r for r in point["strategies"] if r["gain_over_unigram"] is not None}
        lossu = {name: -r["gain_over_unigram"] * per_token[name] for name, r in rows.items()}
        out.append({"width": point["width"], "share": point["share"], "budget_flops": point["budget_flops"],
                    "lossu_like": lossu, "winner": min(lossu, key=lossu.get),
                    "bpb_winner": min(rows, key=lambda name: rows[name]["bits_per_byte"])})  # fmt: skip
    return out


def holm_orderings(race: dict) -> list[dict]:
    """The race's orderings judged from its `results` alone (tasks.orderings: every pair on every
    metric, one family, Holm-adjusted), whatever its results.json recorded: a race recorded before
    issue 32 holds per-comparison verdicts, each judged at 95% on its own. The lab's arena page and
    `embedlab advise` read these, so both say what the race says once its 502 claims are one family.
    -> the orderings as results.json holds them, with "p" and "p_holm"."""
    return orderings([Result(**r) for r in race["results"]])


def rejudged(race: dict) -> dict:
    """The race's orderings judged again from its `results` (holm_orderings), beside the verdicts its
    results.json recorded. -> {"orderings": the new ones,
    "family": their number, "recorded": Counter of the recorded verdicts, "holm": Counter of the new,
    "lost": the orderings that held as recorded and are within noise after Holm's correction,
    "constant": how many of the holding ones no seed moves (p = 0: baselines, counts)}."""
    new = holm_orderings(race)
    key = [(o["task"], o["metric"], o["winner"], o["loser"]) for o in new]
    if key != [(o["task"], o["metric"], o["winner"], o["loser"]) for o in race["orderings"]]:
        raise InvalidValueError("the race's recorded orderings are not the pairs its results give")
    lost = [o for o, old in zip(new, race["orderings"], strict=True)
            if old["verdict"] == "holds" and o["verdict"] != "holds"]  # fmt: skip
    return {
        "orderings": new,
        "family": len(new),
        "recorded": Counter(o["verdict"] for o in race["orderings"]),
        "holm": Counter(o["verdict"] for o in new),
        "lost": lost,
        "constant": sum(o["verdict"] == "holds" and o["p"] == 0 for o in new),
    }


def verdict_of(judged: list[dict], metric: str, winner: str, loser: str) -> str:
    """The verdict on "winner beats loser" on `metric` among `judged` orderings ("contradicted" where
    the recorded order is the other way round and holds)."""
    for o in judged:
        if o["metric"] == metric and {o["winner"], o["loser"]} == {winner, loser}:
            if o["winner"] == winner or o["verdict"] == "within noise":
                return o["verdict"]
            return "contradicted"
    raise InvalidValueError(f"no ordering of {winner} and {loser} on {metric}")


def frequency_ladder(race: dict) -> list[dict]:
    """Lesson 001's quality hierarchy as the race measures it: per text strategy, bits per byte on all
    held-out text, on rare words (seen 1-10 times) and on unseen words, and the claims "all text beats
    rare words" and "rare words beat unseen ones" on the per-seed gaps, the 2 × strategies claims as
    one Holm family. -> per strategy {"strategy", "all", "rare", "unseen", "rare_gap", "unseen_gap",
    "rare_verdict", "unseen_verdict"} (gaps: mean bits per byte more on the rarer words)."""
    text = [s["name"] for s in race["strategies"] if s["kind"] == "text"]
    gaps = []
    for name in text:
        every, rare, unseen = (_seeded(race, name, m) for m in LADDER)
        gaps.append([r - a for r, a in zip(rare, every, strict=True)])  # > 0: rare words cost more
        gaps.append([u - r for u, r in zip(unseen, rare, strict=True)])  # > 0: unseen ones more still
    judged = family_verdicts(gaps)
    out = []
    for i, name in enumerate(text):
        every, rare, unseen = (statistics.fmean(_seeded(race, name, m)) for m in LADDER)
        out.append({"strategy": name, "all": every, "rare": rare, "unseen": unseen,
                    "rare_gap": statistics.fmean(gaps[2 * i]), "unseen_gap": statistics.fmean(gaps[2 * i + 1]),
                    "rare_verdict": judged[2 * i][0], "unseen_verdict": judged[2 * i + 1][0]})  # fmt: skip
    return out


def _seeded(race: dict, strategy: str, metric: str) -> list[float]:
    values = _values(race, strategy, metric)
    return [values[s] for s in sorted(values)]
