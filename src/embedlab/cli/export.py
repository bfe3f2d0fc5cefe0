"""`embedlab export`: a vector table written in another format.

    embedlab export minilm --out minilm.txt                        # the format from the extension
    embedlab export minilm --format projector --out minilm-projector --force
    embedlab export minilm --out minilm.ftz --dsub 4 --qnorm       # product-quantized, as fastText's

VECTORS is what `embedlab neighbors` reads (cli/vectors.py): a built-in table name or a path.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from embedlab.cli.choices import EXTENSIONS, FORMATS
from embedlab.cli.options import ForceFlag, JsonFlag, path_text, refuse_existing, refuse_inapplicable
from embedlab.cli.vectors import VectorsArg, load, working


def export(
    vectors: VectorsArg,
    out: Annotated[
        str,
        typer.Option(
            "--out", "-o", parser=path_text, metavar="PATH", help="File to write (a folder for --format projector)."
        ),
    ],
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            metavar="NAME",
            help=f"One of: {', '.join(FORMATS)}. Default: from the extension of --out "
            f"({', '.join(EXTENSIONS)}; none for a projector folder).",
        ),
    ] = None,
    dsub: Annotated[
        int | None,
        typer.Option(
            "--dsub", metavar="N", help="ftz: columns per code byte, dividing the width (fastText's 2). [default: 2]"
        ),
    ] = None,
    qnorm: Annotated[
        bool, typer.Option("--qnorm", help="ftz: quantize each row's norm apart (a byte a row), as fastText's -qnorm.")
    ] = False,
    force: ForceFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Write a table in another format.

    A .ftz (--format ftz) is the table product-quantized as fastText's `quantize` does it: each row
    cut into sub-vectors of --dsub columns, each stored as the byte naming the nearest of 256
    centroids; the fastText tool (print-word-vectors, nn) and `embedlab neighbors` read it. It needs
    at least 256 rows. A subword table keeps its n-grams there, quantized with its word rows.

    The files are written atomically: a failed write leaves no partial file. An existing file is
    replaced only with --force; without it the export stops before loading anything.
    """
    from embedlab.vectors.io import QUANTIZED_FORMATS, format_for, output_files
    from embedlab.vectors.io.quantized import DSUB

    asked = format_for(out) if format is None else format
    refuse_existing(output_files(out, asked), force)
    if asked not in QUANTIZED_FORMATS:  # before the table loads
        mode = f"--format {asked}" if format else f"{asked}, the format of {out}"
        refuse_inapplicable(mode, ["dsub", "qnorm"], "it keeps every number; only ftz quantizes")
    table = load(vectors, as_json)
    chosen = table.save_format(out, format)  # a subword table's .bin is fastText's format
    quantizer = {"dsub": DSUB if dsub is None else dsub, "qnorm": qnorm} if chosen in QUANTIZED_FORMATS else None
    with working(f"writing {chosen}", as_json):  # exclusive: another writer since the check loses
        written = table.save(out, format, replace=force, dsub=dsub, qnorm=qnorm)
    nbytes = sum(p.stat().st_size for p in written)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "vectors": vectors,
                    "format": chosen,
                    "rows": len(table),
                    "dim": table.vector_size,
                    "files": [str(p) for p in written],
                    "bytes": nbytes,
                    "quantizer": quantizer,
                }
            )
        )
        return
    how = "" if quantizer is None else f" (dsub {quantizer['dsub']}{', qnorm' if qnorm else ''})"
    typer.echo(
        f"wrote {len(table)} rows × {table.vector_size} as {chosen}{how}, {nbytes:,} bytes: "
        f"{', '.join(map(str, written))}"
    )
