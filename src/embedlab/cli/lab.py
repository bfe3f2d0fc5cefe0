"""`embedlab lab`: serve the lab, the web app whose simulations run on real tables.

embedlab lab                                         # MiniLM's table, http://127.0.0.1:8000
embedlab lab --vectors minilm --vectors runs/enwiki-sgns --port 8001
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from embedlab.cli.options import path_text
from embedlab.errors import check_int


def lab(
    vectors: Annotated[
        list[str] | None,
        typer.Option(
            "--vectors",
            parser=path_text,
            metavar="TABLE",
            help="A table to serve: minilm or a path (repeatable; default: minilm).",
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option("--host", metavar="ADDRESS", help="Address to bind; other machines reach it only if you say so."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", metavar="N", help="TCP port.")] = 8000,
) -> None:
    """Serve the lab: simulations of embedding layers on real tables.

    Pages and the JSON API (documented at /docs) run on this machine; requests pick tables by
    the names listed at /api/tables, never by path.
    """
    # Why: a server's parallelism is its concurrent requests. With BLAS and torch each starting a
    # pool of threads inside every request, 32 clients oversubscribed 2 cores (70 requests/s, one
    # lookup waiting 19 s); one math thread per request served 300+. Set before NumPy loads.
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    import uvicorn
    from rich.console import Console

    from embedlab.lab import create_app

    check_int("port", port, low=1, high=65535)
    app = create_app(vectors or ["minilm"])
    Console(stderr=True, highlight=False).print(f"embedlab lab on http://{host}:{port}  (Ctrl-C stops it)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
