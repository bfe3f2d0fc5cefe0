"""`embedlab map`: a table's tiled map built ahead of time, for the lab's projector to open at once.

    embedlab map big.npy                          # PCA layout, tiles kept in big.npy.tiles/
    embedlab map model.bin --method umap --json   # a fastText .bin: every word and n-gram bucket row

VECTORS is what `embedlab neighbors` reads (cli/vectors.py), plus a fastText .bin mapped row for row.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Annotated

import typer

from embedlab.cli.options import JsonFlag
from embedlab.cli.vectors import VectorsArg


def map_(
    vectors: VectorsArg,
    method: Annotated[str, typer.Option("--method", metavar="NAME", help="Layout: pca or umap.")] = "pca",
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seeds the tiles' sample (and UMAP's).")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Build a table's tiled map for the lab's projector.

    Every row gets a point (PCA of all rows, or UMAP fitted on a sample and every row placed by it);
    the points are cut into a quadtree of tiles (a root of 1,000 rows sampled from all, tiles of at
    most 50,000 below it), each with its density contours and region labels. The table is streamed,
    never copied: ten million rows of width 100 take minutes. The files are kept beside the table
    (VECTORS.tiles/, or the cache folder when that one is read-only); a build cut short resumes where
    it stopped, and one of a table that changed since starts again. `embedlab lab --vectors VECTORS`
    then opens the map at once.
    """
    import time

    from embedlab.vectors.map_build import build_map
    from embedlab.vectors.map_source import open_map_source
    from embedlab.vectors.tiles import TileTree

    start = time.perf_counter()
    source = open_map_source(vectors)
    with _bars(as_json) as progress:
        folder = build_map(source, method, seed=seed, progress=progress)
    about = TileTree.open(folder).manifest
    answer = {"vectors": vectors, "method": method, "folder": str(folder), "rows": about["rows"],
              "dim": about["dim"], "tiles": len(about["tiles"]), "depth": about["depth"],
              "seconds": round(time.perf_counter() - start, 3), "stages": about["seconds"]}  # fmt: skip
    if as_json:
        typer.echo(json.dumps(answer))
        return
    typer.echo(f"{vectors}: {about['rows']:,} rows x {about['dim']} mapped by {method.upper()} into "
               f"{len(about['tiles']):,} tiles (depth {about['depth']}) in {answer['seconds']:.1f} s: "
               f"{folder}")  # fmt: skip


@contextmanager
def _bars(quiet: bool):
    """A bar on stderr for each stage of the build (a terminal only, never with --json): yields the
    build's progress(stage, done, total)."""
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield None
        return
    with Progress(console=console, transient=True) as bar:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total or None)
            bar.update(tasks[stage], completed=done, total=total or None)

        yield progress
