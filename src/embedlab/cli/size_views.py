"""The tables `embedlab size` prints beside its report: the presets (--list-presets), and the token
table stored as fp32, fp16, int8 and product-quantized codes (embedlab.sizing.stored)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from embedlab.sizing import PRESETS

if TYPE_CHECKING:
    from rich.console import Console

    from embedlab.sizing import StoredBytes


def print_presets(json_out: bool) -> None:
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


def print_stored(console: Console, stored: StoredBytes) -> None:
    """The token table's bytes stored four ways, each against fp32's."""
    from rich import box
    from rich.table import Table

    table = Table(title=f"token table {stored.rows:,}×{stored.dim:,} stored as", box=box.SIMPLE_HEAD)
    for name in ("storage", "bytes", "MiB", "fp32 / it"):
        table.add_column(name, justify="left" if name == "storage" else "right", no_wrap=True)
    q = stored.quantized
    kinds = {"fp32": stored.fp32, "fp16": stored.fp16, "int8 (weights only)": stored.int8}
    if q is not None:
        kinds[f"product-quantized, dsub {q.dsub}{', qnorm' if q.qnorm else ''}"] = q.bytes
    for name, nbytes in kinds.items():
        table.add_row(name, f"{nbytes:,}", f"{nbytes / 1024**2:,.2f}", f"{stored.fp32 / nbytes:.2f}")
    console.print(table)
    if q is None:
        note = f"{stored.rows:,} rows cannot be product-quantized: each sub-space learns 256 centroids from the rows"
    else:
        norms = f" + {q.norms:,} qnorm bytes" if q.qnorm else ""
        note = (f"product-quantized: {q.rows:,} × {q.nsubq:,} code bytes + 256 × {q.dim:,} × 4 codebook bytes{norms}, "
                "as fastText's .ftz (embedlab export --out x.ftz)")  # fmt: skip
    console.print(f"  {note}", highlight=False, soft_wrap=True, markup=False)
