"""`embedlab advise`: lesson 001's decision chart walked, with this project's evidence beside each branch.

    embedlab advise                                          # a 125M English text model
    embedlab advise --languages 20 --params 70B --seq-len 8192
    embedlab advise --positions sinusoidal --params 350M
    embedlab advise --modality image --detail detail --memory 300MiB --batch 256
    embedlab advise --params 8B --languages 5 --memory 2GiB --json

The chart lives in `embedlab.advise`; this module parses the options and prints the answer.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.choices import ADVISE_POSITIONS, DETAILS, DTYPES, MODALITIES
from embedlab.cli.options import JsonFlag, refuse_inapplicable

if TYPE_CHECKING:
    from embedlab.advise import Advice

TEXT_ONLY = ("languages", "seq_len", "positions")  # the chart's text questions
IMAGE_ONLY = ("image_size", "detail")  # and its image ones
_COLOURS = {"supports": "green", "contradicts": "red", "not measured here": "dim"}


def advise(
    modality: Annotated[
        str, typer.Option("--modality", metavar="KIND", help=f"What the model reads: {' | '.join(MODALITIES)}.")
    ] = "text",
    languages: Annotated[int, typer.Option("--languages", metavar="N", help="Text: how many languages.")] = 1,
    params: Annotated[
        str, typer.Option("--params", metavar="P", help="Model size in parameters: 125M, 7B, 1.5e9.")
    ] = "125M",
    seq_len: Annotated[int, typer.Option("--seq-len", metavar="T", help="Text: tokens per sequence.")] = 1024,
    positions: Annotated[
        str,
        typer.Option("--positions", metavar="KIND", help=f"Text: {' | '.join(ADVISE_POSITIONS)}."),
    ] = "rotary",
    image_size: Annotated[int, typer.Option("--image-size", metavar="PX", help="Image: side in pixels.")] = 224,
    detail: Annotated[
        str,
        typer.Option("--detail", metavar="NEED", help=f"Image: {' | '.join(DETAILS)} (patch 16, 32, 8)."),
    ] = "standard",
    memory: Annotated[
        str | None,
        typer.Option("--memory", metavar="SIZE", help="Budget for tables + one batch's X: 512MiB, 2GB."),
    ] = None,
    batch: Annotated[int, typer.Option("--batch", metavar="B", help="Sequences (or images) per batch.")] = 1,
    dtype: Annotated[str, typer.Option("--dtype", metavar="TYPE", help=f"Storage: {' | '.join(DTYPES)}.")] = "fp32",
    dim: Annotated[
        int | None, typer.Option("--dim", metavar="D", help="Width. [default: the nearest real model's]")
    ] = None,
    json_out: JsonFlag = False,
) -> None:
    """Walk lesson 001's decision chart to an embedding recipe.

    The chart's questions (input, languages, model size, positions, image resolution) and three
    added here (width, sequence length, memory budget) lead to a vocabulary and tokenizer, a tied
    or untied head, positions and their scaling, or a patch size, sized as `embedlab size` counts
    them. Beside each branch stands what this project measured about it (the arena's recorded
    race, docs/training.md, docs/lessons.md), with a verdict: supports, contradicts or not
    measured here. Where a measurement contradicts the chart, the answer says so.

    Examples:

    \b
      embedlab advise --languages 20 --params 70B --seq-len 8192
      embedlab advise --modality image --detail detail --memory 300MiB --batch 256
      embedlab advise --params 8B --languages 5 --memory 2GiB --json
    """
    from embedlab.advise import advice  # sizes typed as text, as here and on the lab page

    other = {"text": IMAGE_ONLY, "image": TEXT_ONLY}.get(modality, ())  # an unknown modality: advice says so
    branch = "image" if other == IMAGE_ONLY else "text"
    refuse_inapplicable(f"--modality {modality}", other, f"a question of the chart's {branch} branch")

    answer = advice(
        modality,
        languages=languages,
        params=params,
        seq_len=seq_len,
        positions=positions,
        image_size=image_size,
        detail=detail,
        memory=memory or "",
        batch=batch,
        dtype=dtype,
        dim=dim or 0,
    )
    if json_out:
        typer.echo(json.dumps(dataclasses.asdict(answer)))
    else:
        _print(answer)


def _print(answer: Advice) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.tree import Tree

    from embedlab.sizing.memory import format_bytes

    console = Console()
    r, size = answer.recipe, answer.size
    table = Table(title="recipe", box=box.SIMPLE_HEAD, show_header=False)
    table.add_column("field", no_wrap=True)
    table.add_column("value")
    if r.modality == "text":
        table.add_row("tokenizer", f"{r.tokenizer}, V = {r.vocab_size:,} ({r.vocab_table} table)")
        table.add_row("output head", "tied to the token table" if r.tied else "untied: a table of its own")
        table.add_row(
            "positions", f"{r.positions}, " + (f"rows × √D = {r.scale:.2f}" if r.scale != 1 else "no scaling")
        )
    else:
        table.add_row("tokenizer", f"{r.tokenizer}, P = {r.patch_size} on {r.image_size} px")
        table.add_row("positions", "learned, one row per patch and CLS; no scaling")
    table.add_row("width", f"D = {r.dim:,}")
    table.add_row("tokens", f"T = {r.tokens:,}")
    table.add_row("parameters", f"{size.total_params:,} = {format_bytes(size.bytes)} in {r.dtype}")
    table.add_row("output X", f"{answer.batch} × {r.tokens:,} × {r.dim:,} = {format_bytes(answer.activation_bytes)}")
    if answer.budget:
        table.add_row("budget", f"{format_bytes(answer.budget)}: {'fits' if answer.fits else 'does not fit'}")
    console.print(table)
    tree = Tree("the chart's path")
    for b in answer.path:
        colour = _COLOURS[b.verdict]
        added = "" if b.from_lesson else " (added here)"
        node = tree.add(f"{b.question}{added} {b.answer} → {b.rule}  [{colour}]{b.verdict}[/{colour}]")
        for e in b.evidence:
            node.add(f"[{_COLOURS[e.verdict]}]{e.verdict}[/]: {e.finding} [dim]({e.source})[/dim]")
    console.print(tree, highlight=False)
    for line in answer.disagreements:
        console.print(f"[red]disagrees:[/red] {line}", highlight=False, soft_wrap=True)
