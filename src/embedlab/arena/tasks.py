"""The four tasks, as the measurements a race reports: each finished run becomes its results.

A run is one strategy trained once with one seed (arena.text.run_text or arena.vision.run_image);
the tasks read their figures from it:

    lm      held-out bits per byte (lower is better): comparable across tokenizations
    rare    bits per byte on the held-out bytes of words seen 1-10 times in the training text, and
            apart on those of unseen words (each word with its leading space: bits.py)
    image   Fashion-MNIST test accuracy
    cost    embedding parameters at the lesson's scale and the arena's, tokens and attention
            scores per input, training throughput, inference latency

Every quality figure comes with its two baselines, measured on the same tokens (the untrained
model, a unigram model over the strategy's tokens), and the gains over them (baseline less model,
in bits per byte: higher is better).

`results(strategy, task, runs)` turns the runs of every seed into Results: the mean over seeds as
`value`, each seed's figure in `seeds`, min and max in `spread`, and the mean's 95% Student t
interval in `interval`. `orderings(results)` judges each pair's order against that noise, the race's
pairs as one family (Holm's correction: noise.py). A strategy that cannot do a
task (patches on text, bytes on images) gets one Result with `applicable` False and no value:
never a zero that a chart would draw as a bar.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from embedlab.arena.noise import family_verdicts, t_interval
from embedlab.arena.strategies import TASKS, Strategy
from embedlab.errors import InvalidValueError, check_choice


def _with_baselines(field: str) -> tuple[tuple[str, str, str, str], ...]:
    """A quality figure, its two baselines, and the gains over them ("a - b": run field a less b)."""
    prefix = field.removesuffix("bits_per_byte")  # "", "rare_", "unseen_"
    return (
        (field, field, "bits/byte", "lower"),
        (f"untrained_{field}", f"untrained_{field}", "bits/byte", "lower"),
        (f"unigram_{field}", f"unigram_{field}", "bits/byte", "lower"),
        (f"{prefix}gain_over_untrained", f"untrained_{field} - {field}", "bits/byte", "higher"),
        (f"{prefix}gain_over_unigram", f"unigram_{field} - {field}", "bits/byte", "higher"),
    )


# task -> (metric, run field, unit, better) for every metric the task reports, its headline first
METRICS: dict[str, tuple[tuple[str, str, str, str], ...]] = {
    "lm": _with_baselines("bits_per_byte"),
    "rare": (*_with_baselines("rare_bits_per_byte"), *_with_baselines("unseen_bits_per_byte")),
    "image": (("accuracy", "accuracy", "fraction", "higher"),),
    "cost": (
        ("embedding_params_arena", "params_embedding", "parameters", "lower"),
        ("tokens_per_input", "tokens_per_input", "tokens", "lower"),
        ("attention_scores_per_input", "attention_scores_per_input", "scores", "lower"),
        ("latency_ms", "latency_ms", "ms", "lower"),
    ),
}
THROUGHPUT = {"text": ("bytes_per_second", "bytes/s"), "image": ("images_per_second", "images/s")}


@dataclass(frozen=True)
class Result:
    """One figure of one strategy on one task, over seeds."""

    strategy: str
    task: str
    metric: str
    value: float | None  # the mean over seeds; None where the task does not apply
    unit: str
    better: str  # "lower" | "higher"
    seeds: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)  # one per seed, in `seeds` order
    spread: list[float] | None = None  # [min, max] over seeds
    interval: list[float] | None = None  # the mean's 95% interval over seeds (Student t); None for one seed
    applicable: bool = True
    reason: str | None = None  # why not, where not applicable

    def to_dict(self) -> dict:
        return asdict(self)


def not_applicable(strategy: Strategy, task: str) -> Result:
    """The one Result of a task the strategy cannot do."""
    metric, _, unit, better = METRICS[task][0]
    what = "reads no text" if strategy.kind == "image" else "sees no image"
    return Result(strategy.name, task, metric, None, unit, better, applicable=False,
                  reason=f"{strategy.label} {what}: the {task} task does not apply")  # fmt: skip


def results(strategy: Strategy, task: str, runs: dict[int, dict]) -> list[Result]:
    """The Results of `task` from `runs` (seed -> the run's fields, as run_text / run_image give
    them); the cost task adds the lesson-scale parameter count, which no run measures."""
    task = check_choice("task", task, TASKS)
    if not strategy.applies_to(task):
        return [not_applicable(strategy, task)]
    if not runs:
        raise InvalidValueError(f"no finished run of {strategy.name} to report the {task} task from")
    rows = list(METRICS[task])
    if task == "cost":
        name, unit = THROUGHPUT[strategy.kind]
        rows.append(("training_throughput", name, unit, "higher"))
    out = [_over_seeds(strategy.name, task, metric, key, unit, better, runs) for metric, key, unit, better in rows]
    if task == "cost":
        lesson = float(strategy.lesson_params)
        out.insert(0, Result(strategy.name, task, "embedding_params_lesson", lesson, "parameters", "lower",
                             sorted(runs), [lesson] * len(runs), [lesson, lesson]))  # fmt: skip
    return out


def _over_seeds(name: str, task: str, metric: str, key: str, unit: str, better: str, runs: dict[int, dict]) -> Result:
    # a figure a run could not measure (no rare word in a tiny held-out part) is None or NaN: left out
    measured = {seed: _field(runs[seed], key) for seed in sorted(runs)}
    seeds = [seed for seed, value in measured.items() if value is not None and math.isfinite(value)]
    values = [float(measured[seed]) for seed in seeds]
    if not values:
        return Result(name, task, metric, None, unit, better, reason=f"no run measured {metric}")
    mean = sum(values) / len(values)
    interval = t_interval(values)
    return Result(name, task, metric, mean, unit, better, seeds, values, [min(values), max(values)],
                  None if interval is None else list(interval))  # fmt: skip


def orderings(rows: list[Result]) -> list[dict]:
    """Each measured ordering of two strategies on one metric, judged against seed noise: for every
    pair whose means differ, {"task", "metric", "better", "winner", "loser", "p", "p_holm", "verdict"}.
    `p` is the paired t test's two-sided p on "winner beats loser" over their shared seeds; the
    orderings are one family, so `verdict` is judged on Holm's adjusted `p_holm` (noise.family_verdicts):
    "holds" only where the whole family's chance of a false "holds" stays below 5%."""
    pairs, gains = [], []
    for i, r in enumerate(rows):
        for q in rows[i + 1 :]:
            if (r.task, r.metric) != (q.task, q.metric) or r.value is None or q.value is None or r.value == q.value:
                continue
            win, lose = (r, q) if (r.value < q.value) == (r.better == "lower") else (q, r)
            seeds = sorted(set(win.seeds) & set(lose.seeds))
            a = [win.values[win.seeds.index(seed)] for seed in seeds]
            b = [lose.values[lose.seeds.index(seed)] for seed in seeds]
            pairs.append((r, win, lose))
            gains.append([(y - x) if r.better == "lower" else (x - y) for x, y in zip(a, b, strict=True)])
    return [{"task": r.task, "metric": r.metric, "better": r.better, "winner": win.strategy, "loser": lose.strategy,
             "p": p, "p_holm": p_holm, "verdict": judged}
            for (r, win, lose), (judged, p, p_holm) in zip(pairs, family_verdicts(gains), strict=True)]  # fmt: skip


def _field(run: dict, key: str) -> float | None:
    """A run's field, or "a - b": field a less field b (None if either is missing)."""
    if " - " not in key:
        return run.get(key)
    a, b = (run.get(name) for name in key.split(" - "))
    return None if a is None or b is None else a - b
