"""The budget axis: the four text strategies raced at several compute budgets and two body widths.

    sweep = Sweep.open("runs/sweep", "quick")        # a new folder, or the same sweep resumed
    summary = sweep.run()                             # {"plan", "points", "winners", "anchor", ...}

Each point of the sweep (a width D and a share of the base race's text FLOPs) is one arena race
(runner.Race) of the text strategies on the lm, rare and cost tasks, in its own folder, so a killed
sweep resumes run by run as a race does. Every point shares one split corpus and one set of
tokenizers (a tokenizer does not depend on the width or the budget).

The folder:
    sweep.json            the sweep's plan and device: written first (Sweep.read_plan)
    text/, tokenizers/    shared by every point
    d64/x0.125/ ...       one race folder per point: race.json, runs/, results.json, its figures
    results.json          the sweep's summary (sweep_summary): every point, the winner at each, the anchor
    sweep.png             bits per byte against training FLOPs, a line per strategy, a panel per width

A folder holding another sweep is refused unless `force`, which deletes its points and results
first; a folder holding a race, or anything else, is refused. A new sweep claims its folder
exclusively (files.make_new_folder): of two sweeps started at once there, one gets it. Every JSON
file is read back by its type (SweepSetting, SweepSummary): a damaged value is an error naming it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import NotRequired, TypedDict

from embedlab.arena.noise import verdict
from embedlab.arena.runner import RACE_FILE, RESULTS_FILE, Race, RaceEvent, check_device
from embedlab.arena.strategies import BUDGETS, STRATEGIES, Budget
from embedlab.errors import InvalidValueError, OutputExistsError, check_choice
from embedlab.files import atomic_write_text, check_path, json_safe, make_new_folder
from embedlab.files.reading import read_json

SWEEP_FILE, FIGURE = "sweep.json", "sweep.png"
SWEEP_STRATEGIES = ("small-v-tied", "large-v-untied", "bpe-32k", "bytes")  # lesson 001's four text strategies
SWEEP_TASKS = ("lm", "rare", "cost")
METRICS = ("bits_per_byte", "rare_bits_per_byte")  # the winners are judged on these (lower is better)


@dataclass(frozen=True)
class SweepPlan:
    """Which races a sweep runs: the base race's budget at each share of its text FLOPs, at each width."""

    name: str
    base: Budget  # the race budget each point scales (one of arena.strategies.BUDGETS)
    shares: tuple[float, ...]  # of the base budget's text_flops, smallest first
    widths: tuple[int, ...]  # TinyLM widths D (Budget.text_dim)
    seeds: tuple[int, ...]

    def budget(self, width: int, share: float) -> Budget:
        """The race budget of one point: the base's, with share × its text FLOPs and width D."""
        name = f"{self.name}-sweep-d{width}-x{share:g}"
        return replace(self.base, name=name, text_flops=self.base.text_flops * share, text_dim=width, seeds=self.seeds)

    def points(self) -> list[tuple[int, float]]:
        """(width, share) of every point, narrow body and small budget first."""
        return [(width, share) for width in self.widths for share in self.shares]


# The full sweep spans 16x of compute around the full race's 8e12 text FLOPs (1/8 to 2 of it) at
# d = 64 and 128, one seed: on the idle 2-core machine (40-55 GFLOP/s at d = 64, about 1.6x that
# at d = 128) about 50 + 30 minutes of training, within the 2 hours the issue allows; a second seed
# would double it. The quick sweep takes 1/8 to 1 of the quick race's 5e11 (8x): minutes. Below
# 1/8 the quick race's budget buys large V no step at d = 128 (a step there is 4.2e10 FLOPs).
SWEEPS: dict[str, SweepPlan] = {
    "full": SweepPlan("full", BUDGETS["full"], (0.125, 0.25, 0.5, 1.0, 2.0), (64, 128), (0,)),
    "quick": SweepPlan("quick", BUDGETS["quick"], (0.125, 0.25, 0.5, 1.0), (64, 128), (0,)),
}


# What the sweep's JSON files hold, by type (reading.read_json types=): a damaged file with the right
# keys is an error naming the bad value, never served.
class SweepSetting(TypedDict):
    """sweep.json."""

    plan: SweepPlan
    device: str


class SweepRow(TypedDict):
    """One strategy at one point (_point): its figures, each None where it has none."""

    strategy: str
    vocab_size: int
    bits_per_byte: float | None
    bits_per_byte_seeds: list[tuple[int, float | None]]
    rare_bits_per_byte: float | None
    rare_bits_per_byte_seeds: list[tuple[int, float | None]]
    seeds: list[int]
    train_flops: NotRequired[float | None]
    params_total: NotRequired[float | None]
    params_embedding: NotRequired[float | None]


class SweepPoint(TypedDict):
    width: int
    share: float
    budget_flops: float
    strategies: list[SweepRow]


class SweepWinner(TypedDict):
    """One entry of `winners`."""

    width: int
    share: float
    metric: str
    winner: str
    vocab_size: int
    runner_up: str | None
    margin: float | None
    verdict: str | None


class SweepSummary(TypedDict):
    """results.json: what `run` returns and `embedlab arena --sweep --json` prints."""

    plan: SweepPlan
    points: list[SweepPoint]
    winners: list[SweepWinner]


@dataclass(frozen=True)
class SweepEvent:
    """A point's race event: `width` and `share` say which point."""

    width: int
    share: float
    race: RaceEvent


class Sweep:
    """One sweep in one folder; see the module docstring."""

    def __init__(self, folder: Path, plan: SweepPlan, device: str) -> None:
        self.folder, self.plan, self.device = folder, plan, device

    @classmethod
    def open(
        cls, folder: str | Path, plan: SweepPlan | str = "quick", device: str = "cpu", force: bool = False
    ) -> Sweep:
        """A sweep in `folder`: a new one, or the one already there if it has the same plan."""
        if isinstance(plan, str):
            plan = SWEEPS[check_choice("sweep", plan, tuple(SWEEPS))]
        folder, device = Path(check_path(folder, "a sweep's folder")), check_device(device)
        setting = json.loads(json.dumps({"plan": asdict(plan), "device": device}))
        if (folder / RACE_FILE).is_file():
            raise InvalidValueError(f"{folder} holds an arena race, not a sweep; pick another folder")
        if (folder / SWEEP_FILE).is_file():
            if not force and (folder / SWEEP_FILE).stat().st_size == 0:  # claimed by make_new_folder, not yet written
                raise OutputExistsError(f"{folder} was taken by another sweep starting there; choose another folder")
            before = cls.read_plan(folder) if not force else None
            if before is not None and {k: before.get(k) for k in setting} != setting:
                raise InvalidValueError(
                    f"{folder} holds a {before['plan']['name']} sweep on {before['device']}; pick another folder, "
                    "or force to start over there"
                )
            if force:
                for width in {*plan.widths, *_widths_in(folder)}:
                    shutil.rmtree(folder / f"d{width}", ignore_errors=True)
                for name in (RESULTS_FILE, FIGURE):
                    (folder / name).unlink(missing_ok=True)
        else:
            if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
                raise InvalidValueError(f"{folder} exists and holds no sweep; pick an empty or new folder")
            make_new_folder(folder, SWEEP_FILE)  # exclusive: of two sweeps started here at once, one gets it
        atomic_write_text(folder / SWEEP_FILE, json.dumps(setting, indent=1))
        return cls(folder, plan, device)

    @staticmethod
    def read_plan(folder: str | Path) -> dict:
        """`folder`'s sweep.json: {"plan": {...}, "device"}."""
        path = Path(folder) / SWEEP_FILE
        recover = "remove the folder, or force to start a new sweep there"
        return read_json(path, "sweep plan", recover, types=SweepSetting)

    @staticmethod
    def read_results(folder: str | Path) -> dict | None:
        """The summary in `folder`'s results.json, or None before the sweep ends. Its "anchor" is
        derived again (anchor.compare): it is Tao et al.'s published table beside the sweep's winners,
        not a measurement, so a sweep written before a field was added to it shows that field too."""
        from embedlab.arena.anchor import compare

        path = Path(folder) / RESULTS_FILE
        if not path.is_file():
            return None
        recover = "run the sweep again to write it (its finished runs are kept), or remove it"
        summary = read_json(path, "sweep results file", recover, types=SweepSummary)
        summary["anchor"] = compare(summary)
        return summary

    def point_folder(self, width: int, share: float) -> Path:
        return self.folder / f"d{width}" / f"x{share:g}"

    def run(self, on_event: Callable[[SweepEvent], None] | None = None) -> dict:
        """Race every point not yet finished, then write results.json and sweep.png; -> the summary."""
        emit = on_event or (lambda event: None)
        races = {}
        # the smallest share at every width first: a budget that buys some strategy no step (the
        # only way a point can fail) is refused in the first minutes, not after the narrow body's hour
        for width, share in sorted(self.plan.points(), key=lambda point: (point[1], point[0])):
            race = Race.open(self.point_folder(width, share), self.plan.budget(width, share), SWEEP_STRATEGIES,
                             SWEEP_TASKS, self.device, data=self.folder)  # fmt: skip
            races[width, share] = race.run(lambda event, w=width, s=share: emit(SweepEvent(w, s, event)))
        summary = json_safe(sweep_summary(self.plan, self.device, races))
        atomic_write_text(self.folder / RESULTS_FILE, json.dumps(summary, indent=1))
        from embedlab.arena import figures

        figures.draw_sweep(summary, self.folder)
        return summary


def _widths_in(folder: Path) -> list[int]:
    """The widths whose point folders (dW/) are in `folder`."""
    return [int(p.name[1:]) for p in folder.glob("d*") if p.is_dir() and p.name[1:].isdigit()]


def sweep_summary(plan: SweepPlan, device: str, races: dict[tuple[int, float], dict]) -> dict:
    """The sweep's JSON from each point's race summary (runner.Race.summary), by (width, share)."""
    from embedlab.arena.anchor import compare

    points = [_point(width, share, plan, races[width, share]) for width, share in plan.points()]
    corpus = plan.base.corpus
    summary = {
        "plan": asdict(plan),
        "device": device,
        "corpus": corpus,
        "strategies": [
            {"name": n, "label": STRATEGIES[n].label, "vocab_size": STRATEGIES[n].arena.vocab_size}
            for n in SWEEP_STRATEGIES
        ],  # fmt: skip
        "points": points,
        "winners": winners(points),
    }
    summary["anchor"] = compare(summary)
    return summary


def _result(race: dict, strategy: str, metric: str) -> dict | None:
    return next((r for r in race["results"] if r["strategy"] == strategy and r["metric"] == metric), None)


def _point(width: int, share: float, plan: SweepPlan, race: dict) -> dict:
    """One point: each strategy's held-out figures (mean over seeds, each seed) and what it cost."""
    rows = []
    for name in SWEEP_STRATEGIES:
        runs = [r for r in race["runs"] if r["strategy"] == name]
        row = {"strategy": name, "vocab_size": STRATEGIES[name].arena.vocab_size}
        for metric in (*METRICS, "unseen_bits_per_byte", "gain_over_unigram", "gain_over_untrained"):
            r = _result(race, name, metric)
            row[metric] = None if r is None else r["value"]
            row[f"{metric}_seeds"] = [] if r is None else [[s, v] for s, v in zip(r["seeds"], r["values"], strict=True)]
        row["seeds"] = sorted(r["seed"] for r in runs)
        for key in ("train_flops", "steps", "train_seconds", "params_total", "params_embedding", "context_tokens"):
            values = [r[key] for r in runs]
            row[key] = sum(values) / len(values) if values else None
        total, embedding = row["params_total"], row["params_embedding"]
        # Tao et al.'s "non-vocabulary parameters": all but the token table and an untied head
        row["params_non_embedding"] = None if total is None else total - embedding
        rows.append(row)
    budget = plan.budget(width, share)
    return {"width": width, "share": share, "budget_flops": budget.text_flops, "strategies": rows}


def winners(points: list[dict]) -> list[dict]:
    """At each point and on each of METRICS: the strategy with the lowest mean, the runner-up, the
    margin between them (bits per byte) and the verdict on "winner beats runner-up" over their
    shared seeds (noise.verdict: "within noise" with one seed)."""
    out = []
    for point in points:
        for metric in METRICS:
            rows = sorted((r for r in point["strategies"] if r[metric] is not None), key=lambda r: r[metric])
            if not rows:
                continue
            best, second = rows[0], rows[1] if len(rows) > 1 else None
            entry = {"width": point["width"], "share": point["share"], "budget_flops": point["budget_flops"],
                     "metric": metric, "winner": best["strategy"], "vocab_size": best["vocab_size"],
                     "runner_up": None, "margin": None, "verdict": None}  # fmt: skip
            if second is not None:
                mine, theirs = dict(best[f"{metric}_seeds"]), dict(second[f"{metric}_seeds"])
                seeds = sorted(mine.keys() & theirs.keys())
                a, b = [mine[s] for s in seeds], [theirs[s] for s in seeds]
                entry.update(runner_up=second["strategy"], margin=second[metric] - best[metric],
                             verdict=verdict(a, b, "lower"))  # fmt: skip
            out.append(entry)
    return out
