"""The race: every strategy trained with every seed, then every task reported, all in one folder.

    race = Race.open("runs/arena", BUDGETS["quick"])       # a new folder, or the same race resumed
    race = Race.resume("runs/arena")                       # the race in the folder, on its own setting
    summary = race.run(on_event=print)                     # {"strategies", "tasks", "results", ...}

The folder:
    race.json                the race's setting (budget, strategies, tasks, device): written first (read_setting)
    runs/STRATEGY-seedN.json one finished run (a strategy trained once): written atomically when it ends
    text/, tokenizers/       the split corpus and the trained tokenizers, reused on resume (in `data`
                             when given: a budget sweep's races share one copy, arena/sweep.py)
    results.json             every task's Results and the runs behind them (what --json prints; read_results)
    *.png                    one bar chart per task, and the learning curves

A killed race resumes: the runs already written are read back, not trained again, and the race
goes on with the next one. A folder holding another race (another budget or device) is refused
unless `force`, which deletes its runs and results first; a folder holding anything else is refused.
A new race claims its folder exclusively (files.make_new_folder): of two races started at once in one
new folder, one gets it and the other an error naming the folder.
A damaged file in the folder is an error naming it and saying how to get past it.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable, Sequence
from dataclasses import MISSING, asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, NotRequired, TypedDict, get_type_hints

import torch

from embedlab.arena.flops import CLOCKS
from embedlab.arena.strategies import BUDGETS, STRATEGIES, TASKS, Budget, strategy
from embedlab.arena.tasks import Result, orderings, results
from embedlab.errors import FileFormatError, InvalidValueError, OutputExistsError, check_choice
from embedlab.files import atomic_write_text, check_path, json_safe, make_new_folder
from embedlab.files.reading import file_exists, json_type_problem, read_json

log = logging.getLogger("embedlab")

RACE_FILE, RESULTS_FILE, RUNS = "race.json", "results.json", "runs"
_RUN_FIELDS = ("strategy", "seed", "budget")  # every run file has them (Race.run writes them first)


# What the race's JSON files hold, by type: they are read back as they are typed (reading.read_json
# types=), so a damaged file with the right keys is an error naming the bad value, never served.
class Setting(TypedDict):
    """race.json."""

    budget: Budget
    device: str
    strategies: NotRequired[list[str]]
    tasks: NotRequired[list[str]]


class Ordering(TypedDict):
    """One entry of results.json's "orderings" (tasks.orderings)."""

    task: str
    metric: str
    better: str
    winner: str
    loser: str
    verdict: str


class RunRecord(TypedDict):
    """A finished run's file (runs/STRATEGY-seedN.json): these, then its TextRun or ImageRun fields."""

    strategy: str
    seed: int
    budget: str


class Summary(TypedDict):
    """results.json: what `run` returns and `embedlab arena --json` prints."""

    budget: Budget
    device: str
    strategies: list[dict[str, Any]]
    tasks: list[str]
    results: list[Result]
    orderings: NotRequired[list[Ordering]]  # a race summarised before orderings were judged has none
    runs: list[dict[str, Any]]  # each a RunRecord, checked by run_problem


_START_OVER = "remove the folder, or force to start a new race there"  # past a damaged race.json
DEVICES = ("cpu", "cuda")


@dataclass(frozen=True)
class RaceEvent:
    """What the race is doing, for a progress bar: `stage` is "preparing" (splitting the corpus,
    training a tokenizer), "training" (`done` of the run's budget spent, `value` the latest curve
    point), "finished" or "resumed" (a run read back from its file)."""

    strategy: str
    seed: int
    stage: str
    done: float = 0.0  # the share of the run's budget spent, 0 to 1 (FLOPs, or seconds with clock "wall")
    value: float | None = None


class Race:
    """One race in one folder; see the module docstring."""

    def __init__(
        self, folder: Path, budget: Budget, strategies: tuple[str, ...], tasks: tuple[str, ...], device: str,
        data: Path | None = None,
    ) -> None:  # fmt: skip
        self.folder, self.budget, self.strategies, self.tasks, self.device = folder, budget, strategies, tasks, device
        self.data = folder if data is None else Path(data)  # where text/ and tokenizers/ live

    @classmethod
    def open(
        cls, folder: str | Path, budget: Budget | str = "quick", strategies: Sequence[str] | None = None,
        tasks: Sequence[str] | None = None, device: str = "cpu", force: bool = False, clock: str | None = None,
        data: str | Path | None = None,
    ) -> Race:  # fmt: skip
        """A race in `folder`: a new one, or the one already there if it has the same setting.
        `clock` ("flops" or "wall") replaces the budget's; `data` is where the split corpus and the
        tokenizers are kept (default: `folder`)."""
        if isinstance(budget, str):
            budget = BUDGETS[check_choice("budget", budget, tuple(BUDGETS))]
        if clock is not None:
            budget = replace(budget, clock=check_choice("clock", clock, CLOCKS))
        names = tuple(strategy(name).name for name in (strategies or budget.strategies or STRATEGIES))
        tasks = tuple(check_choice("task", task, TASKS) for task in (tasks or TASKS))
        device = check_device(device)
        folder = Path(check_path(folder, "a race's folder"))
        setting = {"budget": asdict(budget), "device": device}
        race_file = folder / RACE_FILE
        if file_exists(race_file, "a race setting"):
            if not force and race_file.stat().st_size == 0:  # claimed by make_new_folder, not yet written
                raise OutputExistsError(f"{folder} was taken by another race starting there; choose another folder")
            before = cls.read_setting(folder) if not force else None  # force starts over, even on a damaged race.json
            if before is not None and not _same_setting(before, setting):
                raise InvalidValueError(
                    f"{folder} holds a {before['budget']['name']} race on {before['device']}; pick another folder, "
                    "or force to start over there"
                )
            if force:
                shutil.rmtree(folder / RUNS, ignore_errors=True)
                (folder / RESULTS_FILE).unlink(missing_ok=True)
        else:
            if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
                raise InvalidValueError(f"{folder} exists and holds no race; pick an empty or new folder")
            make_new_folder(folder, RACE_FILE)  # exclusive: of two races started here at once, one gets it
        (folder / RUNS).mkdir(parents=True, exist_ok=True)
        atomic_write_text(race_file, json.dumps({**setting, "strategies": names, "tasks": tasks}, indent=1))
        return cls(folder, budget, names, tasks, device, None if data is None else Path(data))

    @classmethod
    def resume(cls, folder: str | Path) -> Race:
        """The race recorded in `folder`'s race.json, on the budget, strategies, tasks and device it
        was begun with (whichever budget that was: a named one or a test's smaller one)."""
        setting = cls.read_setting(folder)
        budget = cls.read_budget(folder, setting)
        return cls.open(folder, budget, setting.get("strategies"), setting.get("tasks"), setting["device"])

    @classmethod
    def read_budget(cls, folder: str | Path, setting: dict | None = None) -> Budget:
        """The Budget `folder`'s race.json records (`setting`: that file, when already read), a field
        added since it was written at its default; comparable (==) with BUDGETS' own."""
        setting = cls.read_setting(folder) if setting is None else setting
        defaults = {f.name: f.default for f in fields(Budget) if f.default is not MISSING}
        budget = {**defaults, **setting["budget"]}
        try:
            return Budget(**{k: tuple(v) if isinstance(v, list) else v for k, v in budget.items()})
        except TypeError as err:  # a field this version does not know, or one missing
            path = Path(folder) / RACE_FILE
            raise FileFormatError(f"{path}: not a readable race setting ({err}); {_START_OVER}") from err

    @staticmethod
    def read_setting(folder: str | Path) -> dict:
        """The setting in `folder`'s race.json: {"budget": {...}, "device", "strategies", "tasks"}."""
        path = Path(folder) / RACE_FILE
        return read_json(path, "race setting", _START_OVER, types=Setting)

    @staticmethod
    def read_results(folder: str | Path) -> dict | None:
        """The summary in `folder`'s results.json (what `run` returned), or None before the race ends."""
        path = Path(folder) / RESULTS_FILE
        if not file_exists(path, "a race results file"):
            return None
        recover = "run the race again to write it (its finished runs are kept), or remove it"
        summary = read_json(path, "race results file", recover, types=Summary)
        problem = next((p for i, run in enumerate(summary["runs"]) if (p := run_problem(run, f"runs[{i}]"))), None)
        if problem is not None:
            raise FileFormatError(f"{path}: not a readable race results file ({problem}); {recover}")
        return summary

    def pairs(self) -> list[tuple[str, int]]:
        """(strategy, seed) of every run the race needs: strategies with an applicable task."""
        needed = [s for s in self.strategies if any(STRATEGIES[s].applies_to(t) for t in self.tasks)]
        return [(name, seed) for name in needed for seed in self.budget.seeds]

    def run_file(self, name: str, seed: int) -> Path:
        return self.folder / RUNS / f"{name}-seed{seed}.json"

    def finished(self) -> dict[tuple[str, int], dict]:
        """The runs already written, by (strategy, seed)."""
        done = {}
        for name, seed in self.pairs():
            path = self.run_file(name, seed)
            if file_exists(path, "a finished run"):
                recover = "remove it, and the race trains that run again when it resumes"
                run = read_json(path, "arena run", recover, keys=_RUN_FIELDS)
                if (problem := run_problem(run)) is not None:
                    raise FileFormatError(f"{path}: not a readable arena run ({problem}); {recover}")
                done[name, seed] = run
        return done

    def run(self, on_event: Callable[[RaceEvent], None] | None = None) -> dict:
        """Train every run not yet written, then write results.json and the figures; -> the summary."""
        emit = on_event or (lambda event: None)
        done = self.finished()
        text_data = None
        for name, seed in self.pairs():
            if (name, seed) in done:
                emit(RaceEvent(name, seed, "resumed"))
                continue
            s = STRATEGIES[name]
            emit(RaceEvent(name, seed, "preparing"))

            def progress(done: float, value: float | None, name=name, seed=seed) -> None:
                emit(RaceEvent(name, seed, "training", done, value))

            if s.kind == "text":
                from embedlab.arena import text  # imported here: the image-only race needs none of it

                text_data = text_data or text.prepare_text(self.budget, self.data / "text")
                tokenizer = text.tokenizer_for(s, text_data, self.data / "tokenizers")
                run = text.run_text(s, self.budget, seed, text_data, tokenizer, self.device, progress)
            else:
                from embedlab.arena import vision

                run = vision.run_image(s, self.budget, seed, self.device, progress)
            done[name, seed] = record = {"strategy": name, "seed": seed, "budget": self.budget.name, **asdict(run)}
            atomic_write_text(self.run_file(name, seed), json.dumps(json_safe(record)))
            emit(RaceEvent(name, seed, "finished", 1.0))
        summary = self.summary(done)
        summary = json_safe(summary)  # a NaN (no rare bytes held out, say) is null in JSON
        atomic_write_text(self.folder / RESULTS_FILE, json.dumps(summary, indent=1))
        from embedlab.arena import figures  # matplotlib loads only when a race ends, not with the CLI

        figures.draw(summary, self.folder)
        return summary

    def summary(self, done: dict[tuple[str, int], dict]) -> dict:
        """The JSON the race reports: strategies (both scales), tasks, every Result, the orderings
        judged against seed noise (tasks.orderings), the runs."""
        rows = []
        for name in self.strategies:
            runs = {seed: run for (n, seed), run in done.items() if n == name}
            for task in self.tasks:
                rows += results(STRATEGIES[name], task, runs)
        return {
            "budget": asdict(self.budget),
            "device": self.device,
            "strategies": [STRATEGIES[name].to_dict() for name in self.strategies],
            "tasks": list(self.tasks),
            "results": [r.to_dict() for r in rows],
            "orderings": orderings(rows),  # every pair's order on every metric, Holm-adjusted: holds, within noise
            "runs": [done[key] for key in sorted(done)],
        }


def run_problem(run: dict, where: str = "") -> str | None:
    """Where a run record (a runs/*.json file, or results.json's runs[i]: `where`) is not of its
    types, in words ("runs[2]['seed'] holds a string where a number goes"), or None. Its fields are
    those of its strategy's TextRun or ImageRun; a field it lacks (a run written before the field
    existed) is not asked for, and a strategy this version does not know is checked as a RunRecord."""
    problem = json_type_problem(run, RunRecord, where)
    if problem is not None or run["strategy"] not in STRATEGIES:
        return problem
    if STRATEGIES[run["strategy"]].kind == "text":
        from embedlab.arena.text import TextRun as kind
    else:
        from embedlab.arena.vision import ImageRun as kind
    checked = ((k, h, f"{where}[{k!r}]" if where else k) for k, h in get_type_hints(kind).items() if k in run)
    return next((p for k, h, at in checked if (p := json_type_problem(run[k], h, at))), None)


def check_device(device: str) -> str:
    """`device` if this machine can train there ("cpu", or "cuda" where torch sees a GPU)."""
    device = check_choice("device", device, DEVICES)
    if device == "cuda" and not torch.cuda.is_available():
        raise InvalidValueError("device 'cuda' asked for, but torch sees no CUDA device here")
    return device


def _same_setting(before: dict, setting: dict) -> bool:
    """Whether race.json's `before` is the race `setting` describes. A budget field added since
    `before` was written reads as its default (Budget.text_dim: a race begun before it was d = 64)."""
    defaults = {f.name: f.default for f in fields(Budget) if f.default is not MISSING}
    budget = before.get("budget")
    if isinstance(budget, dict):
        before = {**before, "budget": {**defaults, **budget}}
    as_json = json.loads(json.dumps(before))  # a default tuple reads as the list race.json holds
    return {k: as_json.get(k) for k in setting} == json.loads(json.dumps(setting))
