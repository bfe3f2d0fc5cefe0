"""`embedlab arena`: race the six embedding strategies of lesson 001 on real tasks.

embedlab arena --quick --out runs/arena-quick          # about 3 minutes: a first look
embedlab arena --out runs/arena                        # the full race (3 seeds, about an hour here)
embedlab arena --quick --tasks lm,cost --out runs/a --json
embedlab arena --quick --clock wall --out runs/wall     # the same seconds per run, not the same FLOPs
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.choices import DEVICES, STRATEGIES, TASKS
from embedlab.cli.options import JsonFlag

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from embedlab.arena.runner import Race


def arena(
    out: Annotated[
        Path,
        typer.Option("--out", "-o", metavar="DIR", help="The race's folder (results.json, figures, runs)."),
    ],
    quick: Annotated[bool, typer.Option("--quick", help="The quick race (about 3 minutes), not the full one.")] = False,
    tasks: Annotated[
        str | None,
        typer.Option(
            "--tasks", metavar="LIST", help=f"Tasks to report, comma-separated: {', '.join(TASKS)} (default all)."
        ),
    ] = None,
    strategies: Annotated[
        str | None,
        typer.Option(
            "--strategies",
            metavar="LIST",
            # a hand-broken list (\b: not rewrapped), so no name is cut at its hyphen
            help="\b\nStrategies to race, comma-separated (default all):\n"
            + ",\n".join(", ".join(STRATEGIES[i : i + 3]) for i in range(0, len(STRATEGIES), 3)),
        ),
    ] = None,
    device: Annotated[
        str, typer.Option("--device", metavar="NAME", help=f"Where to train: {' | '.join(DEVICES)}.")
    ] = "cpu",
    clock: Annotated[
        str,
        typer.Option(
            "--clock", metavar="NAME", help="What a run's budget counts: flops (the same steps on any machine) | wall."
        ),
    ] = "flops",
    force: Annotated[bool, typer.Option("--force", help="Start over in a folder that holds another race.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Race lesson 001's six embedding strategies and lesson 002's huge-vocabulary tables on real tasks.

    The strategies (small V tied, large V untied, subword BPE, character-level, patch 16 and
    patch 32) are measured on language modelling (held-out bits per byte), rare words,
    Fashion-MNIST classification and cost, each trained on the same compute (training FLOPs
    counted from the model's shapes; --clock wall: the same seconds on this machine instead).

    A killed race resumes where it stopped when run again with the same --out; a folder that
    holds another race is started over only with --force. The arena keeps the lesson's
    proportions at a size two cores can train; the table printed first sets the two scales side
    by side.
    """
    from rich.console import Console

    from embedlab.arena.runner import Race, RaceEvent

    race = Race.open(out, "quick" if quick else "full", _names(strategies), _names(tasks), device, force, clock)
    console = Console(stderr=as_json)
    if not as_json:
        console.print(scale_table(race))
    with _progress(console) as progress:
        bars: dict[tuple[str, int], int] = {}

        def on_event(event: RaceEvent) -> None:
            key = (event.strategy, event.seed)
            if key not in bars:
                bars[key] = progress.add_task(f"{event.strategy} seed {event.seed}", total=None, note="")
            bar = bars[key]
            if event.stage == "resumed":
                progress.update(bar, total=1, completed=1, note="read back from its file")
            elif event.stage == "preparing":
                progress.update(bar, note="preparing")
            elif event.stage == "training":
                note = "" if event.value is None else f"last point {event.value:.3f}"
                progress.update(bar, total=1, completed=event.done, note=note)
            else:
                progress.update(bar, total=1, completed=1, note="done")

        summary = race.run(on_event)
    if as_json:
        typer.echo(json.dumps(summary))
        return
    console.print(results_table(summary))
    console.print(f"results.json and figures in {out}", highlight=False)


def scale_table(race: Race) -> Table:
    """The lesson's strategies at its scale and at the arena's."""
    from rich import box
    from rich.table import Table

    from embedlab.arena.strategies import strategy

    table = Table(
        title=f"The {race.budget.name} race: the lesson's scale and the arena's",
        box=box.SIMPLE_HEAD,
        caption="V×d: the token table; px/px: patch side of image side; params: embedding only",
    )
    table.add_column("strategy", min_width=11)
    for name in ("lesson", "params", "tokens", "arena", "params"):
        table.add_column(name, justify="right", no_wrap=True)  # numbers never wrap nor shrink to "…"
    for name in race.strategies:
        s = strategy(name)
        table.add_row(s.label, _size(s.lesson), f"{s.lesson_params:,}", s.lesson_tokens, _size(s.arena),
                      f"{s.arena_params:,}")  # fmt: skip
    return table


def results_table(summary: dict) -> Table:
    """One row per strategy: each task's headline, the mean over seeds with its spread."""
    from rich import box
    from rich.table import Table

    metrics = [("lm", "bits_per_byte"), ("rare", "rare_bits_per_byte"), ("image", "accuracy"),
               ("cost", "tokens_per_input"), ("cost", "training_throughput"), ("cost", "latency_ms")]  # fmt: skip
    metrics = [m for m in metrics if m[0] in summary["tasks"]]
    seeds = summary["budget"]["seeds"]
    title = f"Measured ({summary['budget']['name']} race, seeds {', '.join(map(str, seeds))})"
    table = Table(title=title, box=box.SIMPLE_HEAD)
    table.add_column("strategy")
    for task, metric in metrics:
        table.add_column(f"{task}: {metric.replace('_', ' ').replace('training ', '')}", justify="right")
    found = {(r["strategy"], r["task"], r["metric"]): r for r in summary["results"]}
    for s in summary["strategies"]:
        cells = []
        for task, metric in metrics:
            r = found.get((s["name"], task, metric))
            if r is None or not r["applicable"]:
                cells.append("n/a")
            else:
                low, high = r["spread"]
                spread = f" ({_number(low)}–{_number(high)})" if len(r["values"]) > 1 else ""
                cells.append(_number(r["value"]) + spread)
        table.add_row(s["label"], *cells)
    return table


def _number(x: float) -> str:
    """4 significant digits, thousands as 63,650 rather than 6.365e+04."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def _size(layout) -> str:
    """'2,000×64' for a table (the label says whether it is tied), '16 px/224' for patches."""
    if layout.is_image:
        return f"{layout.patch_size} px/{layout.image_size}"
    return f"{layout.vocab_size:,}×{layout.dim:,}"


def _names(text: str | None) -> list[str] | None:
    return None if text is None else [name.strip() for name in text.split(",") if name.strip()]


def _progress(console: Console) -> Progress:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[note]}"),
                    TimeElapsedColumn(), console=console, transient=False)  # fmt: skip
