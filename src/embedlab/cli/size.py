"""`embedlab size`: parameters and memory of a model's embedding tables.

    embedlab size --preset bert-base
    embedlab size --preset llama-2-7b --tied --dtype bf16
    embedlab size --vocab 100000 --dim 2048 --tied --positions learned --max-len 4096 --dtype fp16
    embedlab size --image-size 384 --patch-size 16 --dim 1024 --positions learned
    embedlab size --vocab 128000 --dim 1024 --hashed-rows 12800          # hashed into 1/10 of the rows
    embedlab size --vocab 128000 --dim 1024 --adaptive-cutoffs 20000,60000 --div-value 4
    embedlab size --vocab 30000 --dim 768 --factor-dim 128    # ALBERT's V × E table and E × D map
    embedlab size --preset bert-base --batch 32 --seq 512   # and the (B, T, D) output's bytes
    embedlab size --preset bert-base --combine concat         # rows concatenated: X and every later layer 3·D wide
    embedlab size --preset bert-base --dsub 4 --qnorm        # the token table product-quantized (a .ftz's bytes)
    embedlab size --list-presets --json

The arithmetic lives in `embedlab.sizing`; this module only builds a layout from the options
and prints the report.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.options import JsonFlag, refuse_inapplicable
from embedlab.cli.size_views import print_presets, print_stored
from embedlab.errors import InvalidValueError
from embedlab.sizing import (
    BYTES_PER_PARAM,
    COMBINES,
    POSITION_KINDS,
    QR_OPS,
    EmbeddingLayout,
    activation_bytes,
    adaptive_bands,
    combine_cost,
    count,
    preset,
    qr_shapes,
    stored_bytes,
    token_matrix,
)
from embedlab.sizing.stored import DSUB

if TYPE_CHECKING:
    from embedlab.sizing import CombineCost, SizeReport, StoredBytes

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
    hashed_rows: Annotated[
        int | None, typer.Option("--hashed-rows", metavar="B", min=1, help="Hash the V ids into B rows (B <= V).")
    ] = None,
    hash_count: Annotated[
        int | None,
        typer.Option("--hash-count", metavar="K", help="Rows per id: 1 the hashing trick, >= 2 hash embeddings."),
    ] = None,
    importance_rows: Annotated[
        int | None,
        typer.Option("--importance-rows", metavar="N", min=1, help="Hash embeddings' weight rows. [default: B]"),
    ] = None,
    qr_buckets: Annotated[
        int | None,
        typer.Option("--qr-buckets", metavar="M", min=1, help="Quotient-remainder: ceil(V/M) + M rows (M <= V)."),
    ] = None,
    qr_op: Annotated[
        str | None,
        typer.Option("--qr-op", metavar="OP", help=f"How the two rows combine: {' | '.join(QR_OPS)}. [default: mult]"),
    ] = None,
    adaptive_cutoffs: Annotated[
        str | None,
        typer.Option(
            "--adaptive-cutoffs", metavar="C,C", help="Adaptive input: first id of each band after the first."
        ),
    ] = None,
    div_value: Annotated[
        float | None,
        typer.Option("--div-value", metavar="X", help="Adaptive: each band X times narrower. [default: 4]"),
    ] = None,
    factor_dim: Annotated[
        int | None,
        typer.Option(
            "--factor-dim", metavar="E", min=1, help="ALBERT's factorised table: V × E, then an E × D map (E <= D)."
        ),
    ] = None,
    dtype: Annotated[
        str, typer.Option("--dtype", metavar="TYPE", help=f"Storage type: {' | '.join(BYTES_PER_PARAM)}.")
    ] = "fp32",
    batch: Annotated[
        int | None, typer.Option("--batch", metavar="B", min=1, help="Also size the output X (B, T, D): B sequences.")
    ] = None,
    seq: Annotated[
        int | None, typer.Option("--seq", metavar="T", min=1, help="Tokens per sequence (text; an image's T is N + 1).")
    ] = None,
    combine: Annotated[
        str | None,
        typer.Option(
            "--combine",
            metavar="HOW",
            help=f"{' | '.join(COMBINES)}: how the token, position and segment rows make X; concat makes X and "
            "every later layer k·D wide, and reports what one block costs there.",
        ),
    ] = None,
    dsub: Annotated[
        int | None,
        typer.Option(
            "--dsub", metavar="N", help="Product quantization: N columns of the token table a byte. [default: 2]"
        ),
    ] = None,
    qnorm: Annotated[bool, typer.Option("--qnorm", help="Product quantization: each row's norm a byte apart.")] = False,
    list_presets: Annotated[bool, typer.Option("--list-presets", help="List the known models and exit.")] = False,
    json_out: JsonFlag = False,
) -> None:
    """Count the parameters and bytes of a model's embedding tables.

    Pass a known model with --preset, or describe a layout: --vocab and --dim for text;
    --image-size, --patch-size and --dim for a ViT. Options given with --preset override that
    field of the preset: --preset llama-2-7b --tied sizes Llama 2 with a tied output head.

    A huge vocabulary can keep fewer rows: hashed (--hashed-rows, --hash-count),
    quotient-remainder (--qr-buckets, --qr-op) or adaptive input (--adaptive-cutoffs,
    --div-value), each counted as its embedlab.layers module holds it; or a narrower one,
    ALBERT's factorised table (--factor-dim E: V × E rows mapped up to D by one E × D matrix),
    shown beside the plain V × D table it replaces.

    Beside it, the token table (one V × D or B × D matrix) stored as fp32, fp16, int8, and
    product-quantized as fastText's .ftz keeps it: ceil(D / --dsub) code bytes a row, plus 256 × D
    float32 centroids (--qnorm: a byte a row and 256 floats more). `embedlab export --out x.ftz`
    writes such a table; docs/quantize.md says what each costs on the word benchmarks.

    With --batch B (and --seq T for text) it also sizes the output the tables hand to
    attention, X of shape (B, T, D), in the same dtype: activations, not parameters. An image's
    T is its N patches + 1 (CLS), so --seq is refused there.

    This is arithmetic on the layout: nothing is allocated, so any size can be counted,
    including ones far larger than this machine.

    Examples:

    \b
      embedlab size --preset bert-base
      embedlab size --vocab 100000 --dim 2048 --positions learned --max-len 4096
      embedlab size --preset gpt2 --untied --dtype fp16 --json
      embedlab size --image-size 224 --patch-size 16 --dim 768 --positions learned
      embedlab size --vocab 128000 --dim 1024 --hashed-rows 12800
      embedlab size --preset bert-base --batch 32 --seq 512
    """
    if list_presets:
        print_presets(json_out)
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
        "hashed_rows": hashed_rows,
        "hash_count": hash_count,
        "importance_rows": importance_rows,
        "qr_buckets": qr_buckets,
        "qr_op": qr_op,
        "adaptive_cutoffs": None if adaptive_cutoffs is None else _cutoffs(adaptive_cutoffs),
        "div_value": div_value,
        "factor_dim": factor_dim,
    }
    layout = _layout(preset_name, {k: v for k, v in overrides.items() if v is not None})
    report = count(layout, dtype)
    if seq is not None and batch is None:
        raise InvalidValueError(f"--seq {seq} needs --batch B: the activations are (B, T, D)")
    acts = {}  # the output X's batch, T and bytes, when asked for
    if batch is not None:
        nbytes = activation_bytes(layout, batch, seq, dtype)  # checks seq against the layout
        acts = {"batch": batch, "seq": layout.n_patches + 1 if layout.is_image else seq, "activation_bytes": nbytes}
    cost = None if combine is None else combine_cost(layout, combine)
    matrix = token_matrix(layout)  # (rows, D), or None: no one matrix to quantize
    if matrix is None:
        what = "an image layout" if layout.is_image else f"a {layout.vocab_table} token table"
        refuse_inapplicable(what, ["dsub", "qnorm"], "product quantization is sized for one (rows, D) token table")
    stored = None if matrix is None else stored_bytes(*matrix, DSUB if dsub is None else dsub, qnorm)
    if cost is not None and acts:  # X is W wide: its bytes grow with it
        acts["activation_bytes"] = acts["activation_bytes"] // layout.dim * cost.width
    if json_out:
        extra = {"token_stored": stored and dataclasses.asdict(stored)}
        extra |= {} if cost is None else {"combine": dataclasses.asdict(cost)}
        if layout.vocab_table == "factorized":  # the plain (V, D) table it replaces, in the same dtype
            plain = layout.vocab_size * layout.dim
            extra |= {"plain_token_params": plain, "plain_token_bytes": plain * report.bytes_per_param}
        typer.echo(json.dumps(dataclasses.asdict(report) | acts | extra))  # plain ints, floats, strs, lists, dicts
    else:
        _print_report(report, preset_name or "custom layout", acts, cost, stored)


def _cutoffs(text: str) -> tuple[int, ...]:
    """ "20000,60000" -> (20000, 60000); the layout checks their order and range."""
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise InvalidValueError(
            f"adaptive cutoffs must be whole numbers separated by commas (e.g. 20000,60000); got {text!r}"
        ) from None


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


def _print_report(
    report: SizeReport, title: str, acts: dict[str, int], cost: CombineCost | None, stored: StoredBytes | None
) -> None:
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
    if layout.vocab_table == "factorized":  # the plain (V, D) table it replaces, not part of the total
        plain = layout.vocab_size * layout.dim
        shape, nbytes = f"{layout.vocab_size}×{layout.dim}", plain * report.bytes_per_param
        table.add_section()
        table.add_row("plain token", shape, f"{plain:,}", f"{nbytes:,}", f"{nbytes / 1024**2:,.2f}", "-")
    if acts:  # values, not parameters: no params count and no share of the tables
        width = report.dim if cost is None else cost.width
        shape, nbytes = f"{acts['batch']}×{acts['seq']}×{width}", acts["activation_bytes"]
        table.add_section()
        table.add_row("activations", shape, "-", f"{nbytes:,}", f"{nbytes / 1024**2:,.2f}", "-")
    console = Console()
    console.print(table)
    notes = _notes(report)
    if acts:
        notes.append(
            "activations: the output X (B, T, D) of one forward pass; it grows with B and T, the tables do not"
        )
    if cost is not None:
        notes.extend(_combine_notes(cost))
    for note in notes:
        console.print(f"  {note}", highlight=False, soft_wrap=True, markup=False)
    if stored is not None:
        print_stored(console, stored)


def _combine_notes(cost: CombineCost) -> list[str]:
    """What adding or concatenating the rows makes every later layer cost."""
    how = " + ".join(cost.parts) if cost.combine == "add" else "[" + " | ".join(cost.parts) + "]"
    lines = [f"{cost.combine}: X = {how}, width {cost.width:,} ({cost.width // cost.dim} × {cost.dim:,})"]
    lines.append(f"one GPT-2 block at width {cost.width:,}: {cost.block_params:,} parameters "
                 f"(12·W² + 13·W), {cost.block_ratio:.2f} × one at {cost.dim:,}")  # fmt: skip
    if cost.head_params and cost.width != cost.dim:
        lines.append(f"output head at width {cost.width:,}: {cost.head_params:,} parameters, untied "
                     f"(a head tied to the {cost.dim:,}-wide token table cannot read it)")  # fmt: skip
    return lines


def _shapes(layout: EmbeddingLayout) -> dict[str, str]:
    D, P, C = layout.dim, layout.patch_size, layout.in_channels
    rows = layout.n_patches + 1 if layout.is_image else layout.max_len
    return {
        "token": _token_shape(layout),
        "position": f"{rows}×{D}",
        "segment": f"{layout.n_segments}×{D}",
        "output": _output_shape(layout),
        "patch": f"{D}×{C}×{P}×{P} + {D}",  # Conv2d weight and bias
        "cls": f"1×{D}",
    }


def _token_shape(layout: EmbeddingLayout) -> str:
    """The token table's shape, or its parts' for a smaller kind: "12800×1024" (hashed), "358×1024 + 358×1024"."""
    V, D, kind = layout.vocab_size, layout.dim, layout.vocab_table
    if kind == "hashed":
        return f"{layout.hashed_rows}×{D}"
    if kind == "hash-embedding":
        return f"{layout.hashed_rows}×{D} + {layout.importance_rows}×{layout.hash_count}"
    if kind == "quotient-remainder":
        (q, w), (m, _) = qr_shapes(V, D, layout.qr_buckets, layout.qr_op)
        return f"{q}×{w} + {m}×{w}"
    if kind == "adaptive":
        bands = adaptive_bands(V, D, layout.adaptive_cutoffs, layout.div_value)
        return "bands " + "/".join(str(width) for _, width in bands)
    if kind == "factorized":
        return f"{V}×{layout.factor_dim} + {layout.factor_dim}×{D}"
    return f"{V}×{D}"


def _output_shape(layout: EmbeddingLayout) -> str:
    if layout.vocab_table != "adaptive":
        return f"{layout.vocab_size}×{layout.dim}"
    clusters = f"{len(layout.adaptive_cutoffs)}×{layout.dim}"
    return f"{clusters} clusters" if layout.tied else "adaptive softmax"


def _notes(report: SizeReport) -> list[str]:
    """One line for each zero row whose absence is a modelling choice worth naming."""
    layout, notes = report.layout, []
    if layout.positions != "learned":
        notes.append(f"position: {layout.positions}, {_POSITION_NOTES[layout.positions]}")
    V, kind = layout.vocab_size, layout.vocab_table
    if kind in ("hashed", "hash-embedding"):
        B, k = layout.hashed_rows, layout.hash_count
        how = "one row each (the hashing trick)" if k == 1 else f"{k} rows each, mixed by learned weights"
        notes.append(f"token: {V:,} ids hashed into {B:,} rows ({V / B:.3g} ids a row), {how}")
    elif kind == "quotient-remainder":
        notes.append(f"token: id i reads quotient row i // {layout.qr_buckets} and remainder row i % ")
        notes[-1] += f"{layout.qr_buckets}, combined by {layout.qr_op}; no two ids share both"
    elif kind == "adaptive":
        notes.append(f"token: {report.token_rows:,} rows in frequency bands, each narrower one mapped to D")
    elif kind == "factorized":
        E, ratio = layout.factor_dim, V * layout.dim / report.token_params
        notes.append(f"token: {V:,} rows {E} wide, each mapped up to {layout.dim:,} by one shared {E}×{layout.dim:,} "
                     f"matrix: {ratio:.2f}× fewer parameters than the plain table below")  # fmt: skip
    if kind == "adaptive" and layout.tied:
        notes.append("output: tied adaptive softmax, reusing the bands and maps; its cluster rows count here")
    elif kind == "factorized" and layout.tied:
        notes.append("output: tied, the head maps h down by the same matrix and reads the same rows (counted once)")
    elif not layout.is_image and layout.tied:
        notes.append("output: tied, the head reuses the token table (counted once)")
    if layout.is_image:
        notes.append(f"patch: {layout.n_patches} patches; position rows include the CLS token")
    return notes
