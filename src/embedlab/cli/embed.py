"""`embedlab embed`: walk a real model's input pipeline and show every addend.

embedlab embed "the cat sat on the mat"
embedlab embed "the cat sat" --pair "on the mat" --dims 6
embedlab embed "the cat sat on the mat" --json
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.options import JsonFlag, path_text
from embedlab.errors import check_int

if TYPE_CHECKING:
    from rich.table import Table

    from embedlab.models.pipeline import Walk


def embed(
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The text to embed (sentence A).")],
    model: Annotated[
        str,
        typer.Option(
            "--model",
            "-m",
            parser=path_text,
            metavar="NAME",
            help="A built-in model (minilm) or a HuggingFace-format folder.",
        ),
    ] = "minilm",
    pair: Annotated[
        str | None,
        typer.Option("--pair", metavar="TEXT", help="A second text, embedded as sentence B (segment 1)."),
    ] = None,
    dims: Annotated[
        int, typer.Option("--dims", metavar="N", help="How many leading coordinates of each row to print.")
    ] = 4,
    as_json: JsonFlag = False,
) -> None:
    """Walk TEXT through a real model's input embedding, step by step.

    Shows its pieces and ids, the token, position and segment rows, their sum and the LayerNorm
    output, with the L2 norm of each: the norms show which addend dominates the sum. --json
    prints every full row.
    """
    from rich.console import Console

    from embedlab.models.pipeline import Pipeline

    check_int("--dims", dims, low=0)
    walk = Pipeline.load(model).walk(text, pair)
    if as_json:
        typer.echo(json.dumps({"model": model, **walk.to_dict()}))
        return
    console = Console()
    console.print(_norm_table(walk, model))
    means = ", ".join(f"{name} {sum(v) / len(v):.3f}" for name, v in walk.norms().items())
    console.print(f"Mean norm over the {len(walk.ids)} pieces: {means}", highlight=False)
    if dims:
        console.print(_row_table(walk, dims))


_SHORT = {"token": "tok", "position": "pos", "segment": "seg", "total": "sum", "output": "out"}


def _norm_table(walk: Walk, model: str) -> Table:
    from rich.table import Table

    norms = walk.norms()
    table = Table(
        title=f"{model}: {len(walk.ids)} pieces, the L2 norm of each addend",
        caption="sum = token + position + segment;  out = LayerNorm(sum)",
    )
    for name, justify in (("t", "right"), ("piece", "left"), ("id", "right"), ("seg id", "right")):
        table.add_column(name, justify=justify)
    for name in norms:
        table.add_column(f"‖{_SHORT[name]}‖", justify="right")
    for t, (piece, id_, seg) in enumerate(zip(walk.pieces, walk.ids, walk.segment_ids, strict=True)):
        table.add_row(str(t), piece, str(id_), str(seg), *(f"{norms[n][t]:.3f}" for n in norms))
    return table


def _row_table(walk: Walk, dims: int) -> Table:
    from rich.table import Table

    rows = walk.rows()
    D = next(iter(rows.values())).shape[-1]
    shown = min(dims, D)
    table = Table(title=f"Rows: the first {shown} of {D} coordinates")
    table.add_column("piece")
    table.add_column("addend")
    for j in range(shown):
        table.add_column(f"x{j}", justify="right")
    for t, piece in enumerate(walk.pieces):
        for i, (name, matrix) in enumerate(rows.items()):
            values = (f"{v:+.4f}" for v in matrix[t, :shown].tolist())
            table.add_row(piece if i == 0 else "", _SHORT[name], *values, end_section=i == len(rows) - 1)
    return table
