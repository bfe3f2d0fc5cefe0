"""`embedlab size`: parameters and memory of a model's embedding tables.

    embedlab size --preset bert-base
    embedlab size --preset llama-2-7b --tied --dtype bf16
    embedlab size --vocab 100000 --dim 2048 --tied --positions learned --max-len 4096 --dtype fp16
    embedlab size --image-size 384 --patch-size 16 --dim 1024 --positions learned
    embedlab size --list-presets --json

The arithmetic lives in `embedlab.sizing`; this module only builds a layout from the options
and prints the report.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.options import JsonFlag
from embedlab.errors import InvalidValueError
from embedlab.sizing import BYTES_PER_PARAM, POSITION_KINDS, PRESETS, EmbeddingLayout, count, preset

if TYPE_CHECKING:
    from embedlab.sizing import SizeReport

# Why a position kind holds no parameters; printed under the table.
_POSITION_NOTES = {
    "sinusoidal": "computed from a formula, nothing learned",
    "rotary": "rotates q and k inside attention, nothing learned here",
    "relative": "T5's (buckets, heads) bias sits in attention, not here",
    "none": "no position information",
}


def size(
    preset_name: Annotated[
        str | None, typer.Option("--preset", metavar="NAME", help="A known model (see --list-presets).")
    ] = None,
    vocab: Annotated[
        int | None, typer.Option("--vocab", metavar="V", help="Vocabulary size: rows of the token table.")
    ] = None,
    dim: Annotated[
        int | None, typer.Option("--dim", metavar="D", help="Embedding width: every table's row size.")
    ] = None,
    tied: Annotated[
        bool | None,
        typer.Option("--tied/--untied", help="Whether the output head shares the token table. [default: tied]"),
    ] = None,
    positions: Annotated[
        str | None,
        typer.Option("--positions", metavar="KIND", help=f"{' | '.join(POSITION_KINDS)}. [default: none]"),
    ] = None,
    max_len: Annotated[
        int | None, typer.Option("--max-len", metavar="T", help="Rows of a learned position table.")
    ] = None,
    segments: Annotated[
        int | None, typer.Option("--segments", metavar="N", help="Rows of the segment table (BERT: 2).")
    ] = None,
    image_size: Annotated[
        int | None, typer.Option("--image-size", metavar="PX", help="ViT: image side in pixels.")
    ] = None,
    patch_size: Annotated[
        int | None, typer.Option("--patch-size", metavar="PX", help="ViT: patch side in pixels.")
    ] = None,
    channels: Annotated[
        int | None, typer.Option("--channels", metavar="C", help="ViT: image channels. [default: 3]")
    ] = None,
    dtype: Annotated[
        str, typer.Option("--dtype", metavar="TYPE", help=f"Storage type: {' | '.join(BYTES_PER_PARAM)}.")
    ] = "fp32",
    list_presets: Annotated[bool, typer.Option("--list-presets", help="List the known models and exit.")] = False,
    json_out: JsonFlag = False,
) -> None:
    """Count the parameters and bytes of a model's embedding tables.

    Pass a known model with --preset, or describe a layout: --vocab and --dim for text;
    --image-size, --patch-size and --dim for a ViT. Options given with --preset override that
    field of the preset: --preset llama-2-7b --tied sizes Llama 2 with a tied output head.

    This is arithmetic on the layout: nothing is allocated, so any size can be counted,
    including ones far larger than this machine.

    Examples:

    \b
      embedlab size --preset bert-base
      embedlab size --vocab 100000 --dim 2048 --positions learned --max-len 4096
      embedlab size --preset gpt2 --untied --dtype fp16 --json
      embedlab size --image-size 224 --patch-size 16 --dim 768 --positions learned
    """
    if list_presets:
        _print_presets(json_out)
        return
    overrides = {
        "vocab_size": vocab,
        "dim": dim,
        "tied": tied,
        "positions": positions,
        "max_len": max_len,
        "n_segments": segments,
        "image_size": image_size,
        "patch_size": patch_size,
        "in_channels": channels,
    }
    layout = _layout(preset_name, {k: v for k, v in overrides.items() if v is not None})
    report = count(layout, dtype)
    if json_out:
        typer.echo(json.dumps(dataclasses.asdict(report)))  # every value is a plain int, float, str or dict
    else:
        _print_report(report, preset_name or "custom layout")


def _layout(preset_name: str | None, given: dict[str, object]) -> EmbeddingLayout:
    """A preset with `given` fields replaced, or a layout from `given` alone."""
    if preset_name is not None:
        return dataclasses.replace(preset(preset_name), **given)
    if "dim" not in given or not given.keys() & {"vocab_size", "patch_size"}:
        raise InvalidValueError(
            "nothing to size: pass --preset NAME (see --list-presets), or --vocab V --dim D, "
            "or --image-size S --patch-size P --dim D"
        )
    return EmbeddingLayout(**given)  # type: ignore[arg-type]


def _print_report(report: SizeReport, title: str) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    layout, width = report.layout, report.bytes_per_param
    table = Table(
        title=f"{title}: embedding parameters in {report.dtype} ({width} B/param)",
        box=box.SIMPLE_HEAD,
    )
    for name in ("table", "shape", "params", "bytes", "MiB", "share"):
        justify = "left" if name in ("table", "shape") else "right"
        table.add_column(name, justify=justify, no_wrap=True)
    shapes = _shapes(layout)
    for name, n in report.params.items():
        nbytes = report.table_bytes(name)
        table.add_row(
            name,
            shapes[name] if n else "-",
            f"{n:,}",
            f"{nbytes:,}",
            f"{nbytes / 1024**2:,.2f}",
            f"{report.shares[name]:.2%}",
        )
    table.add_section()
    table.add_row("total", "", f"{report.total_params:,}", f"{report.bytes:,}", f"{report.mib:,.2f}", "100%")
    console = Console()
    console.print(table)
    for note in _notes(report):
        console.print(f"  {note}", highlight=False, soft_wrap=True)


def _shapes(layout: EmbeddingLayout) -> dict[str, str]:
    V, D, P, C = layout.vocab_size, layout.dim, layout.patch_size, layout.in_channels
    rows = layout.n_patches + 1 if layout.is_image else layout.max_len
    return {
        "token": f"{V}×{D}",
        "position": f"{rows}×{D}",
        "segment": f"{layout.n_segments}×{D}",
        "output": f"{V}×{D}",
        "patch": f"{D}×{C}×{P}×{P} + {D}",  # Conv2d weight and bias
        "cls": f"1×{D}",
    }


def _notes(report: SizeReport) -> list[str]:
    """One line for each zero row whose absence is a modelling choice worth naming."""
    layout, notes = report.layout, []
    if layout.positions != "learned":
        notes.append(f"position: {layout.positions}, {_POSITION_NOTES[layout.positions]}")
    if not layout.is_image and layout.tied:
        notes.append("output: tied, the head reuses the token table (counted once)")
    if layout.is_image:
        notes.append(f"patch: {layout.n_patches} patches; position rows include the CLS token")
    return notes


def _print_presets(json_out: bool) -> None:
    if json_out:
        typer.echo(json.dumps({name: layout.to_dict() for name, layout in PRESETS.items()}))
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(title="presets", box=box.SIMPLE_HEAD)
    for column in ("name", "V", "D", "positions", "max_len", "segs", "tied", "image/P"):
        justify = "right" if column in ("V", "D", "max_len", "segs") else "left"
        table.add_column(column, justify=justify, no_wrap=True)
    for name, lay in PRESETS.items():
        table.add_row(
            name,
            str(lay.vocab_size) if lay.vocab_size else "-",
            str(lay.dim),
            lay.positions,
            str(lay.max_len) if lay.max_len else "-",
            str(lay.n_segments) if lay.n_segments else "-",
            ("yes" if lay.tied else "no") if not lay.is_image else "-",
            f"{lay.image_size}/{lay.patch_size}" if lay.is_image else "-",
        )
    Console().print(table)
