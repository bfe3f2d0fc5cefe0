"""`embedlab arena`: race the six embedding strategies of lesson 001 on real tasks.

embedlab arena --quick --out runs/arena-quick          # about 3 minutes: a first look
embedlab arena --out runs/arena                        # the full race (3 seeds, about an hour here)
embedlab arena --quick --tasks lm,cost --out runs/a --json
embedlab arena --quick --clock wall --out runs/wall     # the same seconds per run, not the same FLOPs
embedlab arena --sweep --out runs/sweep                 # the budget axis: 4 text strategies, 5 budgets, 2 widths
embedlab arena --sweep --quick --out runs/sweep-quick   # the same on the quick race's data: minutes
embedlab arena --figures --out runs/arena               # draw a race's or a sweep's figures again, no training
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.choices import CLOCKS, DEVICES, STRATEGIES, TASKS
from embedlab.cli.options import JsonFlag, path_value, refuse_inapplicable
from embedlab.errors import InvalidValueError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from embedlab.arena.runner import Race


def arena(
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", parser=path_value, metavar="DIR", help="The race's folder (results.json, figures, runs)."
        ),
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
            "--clock",
            metavar="NAME",
            help=f"What a run's budget counts: {' | '.join(CLOCKS)} (flops: the same steps on any machine).",
        ),
    ] = "flops",
    sweep: Annotated[
        bool,
        typer.Option("--sweep", help="The budget sweep: the text strategies at 5 compute budgets and 2 body widths."),
    ] = False,
    figures: Annotated[
        bool, typer.Option("--figures", help="Draw the figures of the race or sweep in --out again; train nothing.")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Start over in a folder that holds another race.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Race the ways to embed (lessons 001 and 002) on real tasks.

    The strategies (small V tied, large V untied, subword BPE, character-level, patch 16 and
    patch 32, and lesson 002's tables for a huge vocabulary: large V with adaptive input, hashed,
    or quotient-remainder) are measured on language modelling (held-out bits per byte), rare words,
    Fashion-MNIST classification and cost, each trained on the same compute (training FLOPs
    counted from the model's shapes; --clock wall: the same seconds on this machine instead).

    A killed race resumes where it stopped when run again with the same --out; a folder that
    holds another race is started over only with --force. The arena keeps the lesson's
    proportions at a size two cores can train; the table printed first sets the two scales side
    by side. --sweep races the four text strategies at budgets spanning 16x (1/8 to 2 of the full
    race's; with --quick 1/8 to 1 of the quick race's) at widths d = 64 and 128: which vocabulary
    wins at which budget and width, beside Tao et al. 2024's compute-optimal vocabularies.
    """
    from rich.console import Console

    from embedlab.arena.runner import Race, RaceEvent

    if figures:
        from embedlab.arena.redraw import redraw

        paths = redraw(out)
        if as_json:
            typer.echo(json.dumps({"figures": [str(p) for p in paths]}))
        else:
            typer.echo(f"{len(paths)} figures drawn again in {out}")
        return
    if sweep:
        # a sweep's points race fixed strategies and tasks on FLOPs: say so rather than ignore the options
        refuse_inapplicable(
            "--sweep", ["tasks", "strategies", "clock"], "it races its own strategies and tasks on FLOPs budgets"
        )
        _sweep(out, "quick" if quick else "full", device, force, as_json)
        return

    race = Race.open(
        out,
        "quick" if quick else "full",
        _names(strategies, "--strategies"),
        _names(tasks, "--tasks"),
        device,
        force,
        clock,
    )
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
    console.print(f"results.json and figures in {out}", highlight=False, soft_wrap=True)


def _sweep(out: Path, plan: str, device: str, force: bool, as_json: bool) -> None:
    from rich.console import Console

    from embedlab.arena.sweep import Sweep, SweepEvent

    sweep = Sweep.open(out, plan, device, force)
    console = Console(stderr=as_json)
    with _progress(console) as progress:
        bars: dict[tuple[int, float, str, int], int] = {}

        def on_event(event: SweepEvent) -> None:
            e = event.race
            key = (event.width, event.share, e.strategy, e.seed)
            if key not in bars:
                name = f"d={event.width} ×{event.share:g} {e.strategy} seed {e.seed}"
                bars[key] = progress.add_task(name, total=None, note="")
            done = {"resumed": 1.0, "finished": 1.0, "training": e.done}.get(e.stage, 0.0)
            progress.update(bars[key], total=1, completed=done, note=e.stage)

        summary = sweep.run(on_event)
    if as_json:
        typer.echo(json.dumps(summary))
        return
    for table in sweep_tables(summary):
        console.print(table)
    console.print(anchor_text(summary["anchor"]), highlight=False)
    console.print(f"results.json and sweep.png in {out}", highlight=False, soft_wrap=True)


def sweep_tables(summary: dict) -> list[Table]:
    """Per width: held-out bits per byte of each strategy at each budget, the winner's cell in bold."""
    from rich import box
    from rich.table import Table

    tables = []
    for width in summary["plan"]["widths"]:
        points = [p for p in summary["points"] if p["width"] == width]
        won = {(w["share"], w["winner"]) for w in summary["winners"] if w["width"] == width and w["metric"] ==
               "bits_per_byte"}  # fmt: skip
        seeds = ", ".join(map(str, summary["plan"]["seeds"]))
        title = f"Held-out bits per byte at d = {width}, by training FLOPs (seeds {seeds}; bold: the lowest)"
        table = Table(title=title, box=box.SIMPLE_HEAD)
        table.add_column("strategy", no_wrap=True)
        table.add_column("V", justify="right", no_wrap=True)
        for p in points:
            table.add_column(f"{p['budget_flops']:.2g}", justify="right", no_wrap=True)
        for s in summary["strategies"]:
            cells = []
            for p in points:
                (row,) = [r for r in p["strategies"] if r["strategy"] == s["name"]]
                cell = "n/a" if row["bits_per_byte"] is None else f"{row['bits_per_byte']:.3f}"
                cells.append(f"[bold]{cell}[/bold]" if (p["share"], s["name"]) in won else cell)
            table.add_row(s["label"], f"{s['vocab_size']:,}", *cells)
        tables.append(table)
    return tables


def anchor_text(anchor: dict) -> str:
    """The comparison with Tao et al. 2024 in a few lines."""
    lines = [f"Tao et al. 2024: optimal vocabulary ∝ N^{anchor['tao_exponent']:.2f} over non-vocabulary "
             f"parameters N; 32K becomes the optimum between N ≈ {anchor['overtakes_32k_at']:.2g} (their "
             f"measurements) and {anchor['params_at_32k']:.2g} (the law)."]  # fmt: skip
    for a in anchor["arena"]:
        wins = " → ".join(f"{w['vocab_size']:,}" for w in a["winners"])
        extrapolated = f"their law extrapolated there: {a['tao_vocab_at_params']:,.0f}"
        lines.append(f"d = {a['width']} (N ≈ {a['non_vocab_params']:,.0f}): the winner with compute {wins} "
                     f"({a['with_compute']}); {extrapolated}")  # fmt: skip
    same = {True: "the same way as theirs", False: "not as theirs", None: "nowhere (it does not move)"}
    lines.append(f"The arena's winner points {same[anchor['same_direction']]}.")
    return "\n".join(lines)


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


def _names(text: str | None, option: str) -> list[str] | None:
    """A comma-separated list -> its names; None: not given (all). A list given that names nothing
    would select nothing, and is refused rather than read as "all"."""
    if text is None:
        return None
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise InvalidValueError(f"{option} {text!r} names nothing; give one name or more, comma-separated")
    return names


def _progress(console: Console) -> Progress:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[note]}"),
                    TimeElapsedColumn(), console=console, transient=False)  # fmt: skip
