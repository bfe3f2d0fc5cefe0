"""`embedlab compare`: two vector tables key by key, and whether their benchmark scores differ beyond noise.

    embedlab compare minilm runs/wiki -k 10 --top 20               # which shared keys moved, whose neighbours changed
    embedlab compare runs/a runs/b --evaluate --json               # B - A on each benchmark, with its interval

The tables are given as `embedlab neighbors` takes them (vectors.py loads them).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.choices import RESAMPLES
from embedlab.cli.options import JsonFlag, path_text, refuse_inapplicable
from embedlab.cli.vectors import load, working

if TYPE_CHECKING:
    from rich.console import Console


def compare(
    a: Annotated[
        str,
        typer.Argument(
            parser=path_text, metavar="A", help="Table A: a built-in table (minilm), a vectors file or a run folder."
        ),
    ],
    b: Annotated[
        str, typer.Argument(parser=path_text, metavar="B", help="Table B, compared with A on the keys both hold.")
    ],
    k: Annotated[int, typer.Option("-k", metavar="K", help="Neighbours per key for Jaccard@k (1..100).")] = 10,
    top: Annotated[int, typer.Option("--top", metavar="N", help="Largest movers to list (1..1000).")] = 20,
    evaluate: Annotated[
        bool, typer.Option("--evaluate", help="Also score both on the benchmarks: is B's difference beyond noise?")
    ] = False,
    resamples: Annotated[
        int, typer.Option("--resamples", metavar="N", help="Paired bootstrap resamples (100 to 100,000).")
    ] = RESAMPLES,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Seed of the resampling.")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Compare two tables key by key, on the keys both hold.

    Rows are scaled to unit length (neighbours are by cosine), a narrower table is zero-padded to
    the wider width, and A's rows are turned onto B's by orthogonal Procrustes. Per shared key:
    its displacement after that turn, |aR - b| from 0 to 2, and Jaccard@k, the overlap of its k
    nearest shared keys in A and in B, each found in its own table's full space. Lists the
    largest movers, largest displacement first.

    With --evaluate, both tables are scored on the word-pair benchmarks of `embedlab evaluate`
    and the Google analogies, on the items both can score, and a paired bootstrap (the same
    resampled items for both) gives a 95% interval of B - A: a difference whose interval holds
    0 is within the noise.

    A subword (fastText) table takes part with its whole words, each by its composed vector (the
    mean of its own row and its n-grams' rows); the words it would make from n-grams are not keys.
    """
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from embedlab.vectors.compare import compare_tables
    from embedlab.vectors.intervals import CONFIDENCE, check_bootstrap, compare_benchmarks
    from embedlab.vectors.subword import SubwordVectors

    if evaluate:
        check_bootstrap(resamples, CONFIDENCE, seed)  # before the tables load, not after
    else:
        refuse_inapplicable("a comparison without --evaluate", ["resamples", "seed"], "only --evaluate resamples")

    table_a = load(a, as_json)
    table_b = table_a if b == a else load(b, as_json)
    with working("comparing neighbours", as_json):
        result = compare_tables(table_a, table_b, k=k, top=top)
    differences = ()
    if evaluate:
        with working("scoring both on the benchmarks", as_json):
            differences = compare_benchmarks(table_a, table_b, resamples=resamples, seed=seed)
    if as_json:
        scores = {"benchmarks": [d.to_dict() for d in differences]} if evaluate else {}
        typer.echo(json.dumps({**result.to_dict(), **scores}))
        return
    console = Console()
    # one sentence, wrapped between words at the console's width (80 columns when piped)
    console.print(
        f"{escape(a)} vs {escape(b)}: {result.shared:,} shared keys, {result.only_a:,} only in A, "
        f"{result.only_b:,} only in B; widths {result.dim_a} and {result.dim_b}; residual {result.residual:.3f}, "
        f"mean displacement {result.mean_displacement:.3f}, mean Jaccard@{result.k} {result.mean_jaccard:.3f}",
        highlight=False,
    )
    for side, table in (("A", table_a), ("B", table_b)):
        if isinstance(table, SubwordVectors):  # its unseen words are not compared: only rows are
            console.print(f"{side} is a subword table: compared on its whole words' composed vectors", highlight=False)
    shown = 3  # neighbours per side: k of them would not fit 80 columns
    movers = Table()
    # widths add up to 80 columns with the borders; long keys and neighbour lists end in "…"
    movers.add_column("#", justify="right", no_wrap=True)
    movers.add_column("key", no_wrap=True, overflow="ellipsis", max_width=14)
    movers.add_column("moved", justify="right", no_wrap=True, min_width=5)
    movers.add_column(f"J@{result.k}", justify="right", no_wrap=True, min_width=4)
    for side in ("A", "B"):
        movers.add_column(f"near in {side}", no_wrap=True, overflow="ellipsis", max_width=18)
    for rank, m in enumerate(result.movers, 1):
        near_a, near_b = ", ".join(m.neighbours_a[:shown]), ", ".join(m.neighbours_b[:shown])
        movers.add_row(str(rank), m.key, f"{m.displacement:.3f}", f"{m.jaccard:.2f}", near_a, near_b)
    console.print(movers)
    console.print(
        "moved: |a R - b| of unit rows after alignment (0..2); "
        f"J@{result.k}: overlap of the {result.k} nearest shared keys in A and in B (1 = the same keys)",
        highlight=False,
    )
    if evaluate:
        _show_differences(console, differences, resamples, seed)


def _show_differences(console: Console, differences, resamples: int, seed: int) -> None:
    """Both tables' scores on the items both can score, B - A and its paired bootstrap interval."""
    from rich.table import Table

    scores = Table(title="benchmarks, on the items both tables can score")
    for name, justify in (("benchmark", "left"), ("items", "right"), ("A", "right"), ("B", "right"),
                          ("B - A", "right"), ("95% interval", "right"), ("noise", "left")):  # fmt: skip
        scores.add_column(name, justify=justify, no_wrap=True)
    for d in differences:
        low, high = d.interval
        verdict = "beyond" if d.significant else "within"  # does the interval of B - A exclude 0?
        scores.add_row(d.name, f"{d.items:,}", f"{d.a:.3f}", f"{d.b:.3f}", f"{d.difference:+.3f}",
                       f"[{low:+.3f}, {high:+.3f}]", verdict)  # fmt: skip
    console.print(scores)
    if not differences:
        console.print("no benchmark has 2 items both tables can score", highlight=False)
    console.print(f"paired percentile bootstrap, {resamples} resamples (seed {seed}); Spearman for word pairs, "
                  "accuracy for analogies", highlight=False)  # fmt: skip
