"""`embedlab neighbors | analogy | evaluate | compare | export`: query, score, compare and convert vector tables.

    embedlab neighbors minilm king -k 5
    embedlab analogy minilm "king - man + woman" --json
    embedlab analogy minilm "king - man + woman" --include-inputs   # usually answers: king
    embedlab evaluate minilm
    embedlab evaluate minilm --resamples 10000 --seed 1 --json     # intervals from more resamples
    embedlab compare minilm runs/wiki -k 10 --top 20               # which shared keys moved, whose neighbours changed
    embedlab export minilm --out minilm.txt                        # the format from the extension
    embedlab export minilm --format projector --out minilm-projector --force

VECTORS is a built-in table name (minilm) or a path in any format `embedlab.vectors.io` reads:
word2vec text (.txt, .vec) or binary (.bin), .safetensors or .npy with NAME.vocab.json, a
projector folder (vectors.tsv + metadata.tsv), or a HuggingFace model folder.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from embedlab.cli.options import JsonFlag
from embedlab.errors import InvalidValueError
from embedlab.vectors import Neighbors, Vectors
from embedlab.vectors.intervals import CONFIDENCE, RESAMPLES, check_bootstrap
from embedlab.vectors.io import EXTENSIONS, FORMATS, format_for, output_files
from embedlab.vectors.similarity import METRICS
from embedlab.vectors.table import ANALOGY_METHODS

VectorsArg = Annotated[
    str, typer.Argument(help="A built-in table (minilm) or a vectors file or folder (word2vec, safetensors, ...).")
]
TopK = Annotated[int, typer.Option("-k", "--topn", help="How many answers to show.")]
Metric = Annotated[str, typer.Option("--metric", help=f"Similarity: {' | '.join(METRICS)}.")]
IncludeInputs = Annotated[
    bool,
    typer.Option(
        "--include-inputs",
        help="Let the query's own words be answers (they are left out by default, as gensim does).",
    ),
]
RestrictVocab = Annotated[
    int | None, typer.Option("--restrict-vocab", help="Search only the first N rows (frequent words first).")
]


def neighbors(
    vectors: VectorsArg,
    word: Annotated[str, typer.Argument(help="The key whose neighbours to list.")],
    topn: TopK = 10,
    metric: Metric = "cosine",
    include_inputs: IncludeInputs = False,
    restrict_vocab: RestrictVocab = None,
    as_json: JsonFlag = False,
) -> None:
    """List the nearest keys to WORD: highest cosine or dot product, or smallest Euclidean distance."""
    table = _load(vectors, as_json)
    answer = table.most_similar(
        word, topn=topn, metric=metric, exclude=not include_inputs, restrict_vocab=restrict_vocab
    )
    _show(answer, table, as_json)


def analogy(
    vectors: VectorsArg,
    expression: Annotated[str, typer.Argument(help='The analogy as vector arithmetic: "king - man + woman".')],
    topn: TopK = 10,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help=f"{' | '.join(ANALOGY_METHODS)}: cosine to the summed unit vectors, or Levy & Goldberg's product.",
        ),
    ] = "3cosadd",
    metric: Metric = "cosine",
    include_inputs: IncludeInputs = False,
    as_json: JsonFlag = False,
) -> None:
    """Solve an analogy: the keys closest to e.g. king − man + woman.

    Without --include-inputs the words of the query are left out of the answers; with it,
    "king - man + woman" usually answers "king" itself, because the sum stays closest to it.
    """
    table = _load(vectors, as_json)
    answer = table.analogy(expression, topn, method=method, metric=metric, exclude=not include_inputs)
    _show(answer, table, as_json)


def evaluate(
    vectors: VectorsArg,
    restrict_vocab: Annotated[
        int, typer.Option("--restrict-vocab", help="Use only the first N rows, as gensim does (300,000).")
    ] = 300_000,
    case_sensitive: Annotated[
        bool, typer.Option("--case-sensitive", help="Match benchmark words exactly (default: any casing).")
    ] = False,
    method: Annotated[str, typer.Option("--method", help="Analogy method: 3cosadd or 3cosmul.")] = "3cosadd",
    resamples: Annotated[
        int, typer.Option("--resamples", help="Bootstrap resamples per interval (100 to 100,000; 0: no intervals).")
    ] = RESAMPLES,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the resampling: the same seed, the same intervals.")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Score a table on WordSim-353 and SimLex-999 (Spearman correlation with human judgements)
    and on the Google analogy set (accuracy per section), with gensim's conventions.

    Beside each Spearman and the total accuracy stands a 95% interval: the range the score stays
    within on 95% of seeded bootstrap resamples of the benchmark's pairs or questions, i.e. how far
    it could move on another sample of items like these.
    """
    from embedlab.vectors.evaluate import evaluate_all

    check_bootstrap(resamples, CONFIDENCE, seed, allow_off=True)  # before the table loads, not after
    table = _load(vectors, as_json)
    with _working("scoring benchmarks", as_json):
        results = evaluate_all(
            table,
            restrict_vocab=restrict_vocab,
            case_insensitive=not case_sensitive,
            method=method,
            resamples=resamples,
            seed=seed,
        )
    if as_json:
        typer.echo(json.dumps({"vectors": vectors, **{n: r and r.to_dict() for n, r in results.items()}}))
        return
    console = Console()
    spread = f"{round(100 * CONFIDENCE)}% interval"
    pairs = Table(title=f"{vectors}: word similarity (Spearman ρ with human scores)")
    for name, justify in (
        ("benchmark", "left"),
        ("spearman", "right"),
        *([(spread, "right")] if resamples else []),
        ("pearson", "right"),
        ("pairs", "right"),
        ("oov", "right"),
    ):
        pairs.add_column(name, justify=justify)
    for name in ("wordsim353", "simlex999"):
        r = results[name]
        if r is None:  # a small table may hold no pair of the benchmark
            pairs.add_row(name, "-", *(["-"] if resamples else []), "-", "0", "every pair")
        else:
            interval = [_interval(r.interval, "{:.4f}")] if resamples else []
            oov = f"{r.oov} ({r.oov_ratio:.1f}%)"
            pairs.add_row(name, f"{r.spearman:.4f}", *interval, f"{r.pearson:.4f}", str(r.pairs), oov)
    console.print(pairs)
    google = results["google"]
    sections = Table(title=f"{vectors}: Google analogies ({google.method}, restrict_vocab {google.restrict_vocab:,})")
    for name, justify in (("section", "left"), ("correct", "right"), ("answered", "right"), ("accuracy", "right")):
        sections.add_column(name, justify=justify)
    if resamples:
        sections.add_column(spread, justify="right")
    for s in (*google.sections, google.total):
        interval = [_interval(google.interval, "{:.1%}") if s is google.total else ""] if resamples else []
        sections.add_row(s.name, str(s.correct), str(s.total), f"{100 * s.accuracy:.1f}%", *interval)
    console.print(sections)
    console.print(
        f"{google.oov} of {google.questions} questions skipped: a word outside the vocabulary", highlight=False
    )
    if resamples:
        console.print(
            f"{spread}s: seeded percentile bootstrap, {resamples} resamples over pairs / questions (seed {seed})",
            highlight=False,
            soft_wrap=True,
        )


def compare(
    a: Annotated[str, typer.Argument(help="Table A: a built-in table (minilm), a vectors file or a run folder.")],
    b: Annotated[str, typer.Argument(help="Table B, compared with A on the keys both hold.")],
    k: Annotated[int, typer.Option("-k", help="Neighbours per key for Jaccard@k (1..100).")] = 10,
    top: Annotated[int, typer.Option("--top", help="Largest movers to list (1..1000).")] = 20,
    evaluate: Annotated[
        bool, typer.Option("--evaluate", help="Also score both on the benchmarks: is B's difference beyond noise?")
    ] = False,
    resamples: Annotated[
        int, typer.Option("--resamples", help="Paired bootstrap resamples (100 to 100,000).")
    ] = RESAMPLES,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the resampling.")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Compare two tables key by key, on the keys both hold.

    Rows are scaled to unit length (neighbours are by cosine), a narrower
    table is zero-padded to the wider width, and A's rows are turned onto
    B's by orthogonal Procrustes. Per shared key: its displacement after
    that turn, |a R - b| from 0 to 2, and Jaccard@k, the overlap of its k
    nearest shared keys in A and in B, each found in its own table's full
    space. Lists the largest movers, largest displacement first.

    With --evaluate, both tables are scored on WordSim-353, SimLex-999
    and the Google analogies, on the items both can score, and a paired
    bootstrap (the same resampled items for both) gives a 95% interval
    of B - A: a difference whose interval holds 0 is within the noise.
    """
    # (lines kept under 76 characters: the help shows each docstring line break as it is)
    from embedlab.vectors.compare import compare_tables
    from embedlab.vectors.intervals import compare_benchmarks

    if evaluate:
        check_bootstrap(resamples, CONFIDENCE, seed)  # before the tables load, not after

    table_a = _load(a, as_json)
    table_b = table_a if b == a else _load(b, as_json)
    with _working("comparing neighbours", as_json):
        result = compare_tables(table_a, table_b, k=k, top=top)
    differences = ()
    if evaluate:
        with _working("scoring both on the benchmarks", as_json):
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


def export(
    vectors: VectorsArg,
    out: Annotated[str, typer.Option("--out", "-o", help="File to write (a folder for --format projector).")],
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            help=f"One of: {', '.join(FORMATS)}. Default: from the extension of --out "
            f"({', '.join(EXTENSIONS)}; none for a projector folder).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace files that already exist at --out.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Write a table in another format (atomically: a failed write leaves no partial file).

    An existing file is never replaced without --force: the export stops before loading anything.
    """
    format = format_for(out) if format is None else format
    existing = next((path for path in output_files(out, format) if path.exists()), None)
    if existing is not None and not force:
        raise InvalidValueError(f"{existing} already exists; add --force to replace it")
    table = _load(vectors, as_json)
    with _working(f"writing {format}", as_json):
        written = table.save(out, format)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "vectors": vectors,
                    "format": format,
                    "rows": len(table),
                    "dim": table.vector_size,
                    "files": [str(p) for p in written],
                }
            )
        )
        return
    typer.echo(f"wrote {len(table)} rows × {table.vector_size} as {format}: {', '.join(map(str, written))}")


def _interval(interval: tuple[float, float] | None, number: str) -> str:
    """A bootstrap interval as a table cell, "[low, high]"; "-" where there is none (nothing answered)."""
    return "-" if interval is None else "[" + ", ".join(map(number.format, interval)) + "]"


def _load(source: str, quiet: bool) -> Vectors:
    with _working(f"loading {source}", quiet):
        return Vectors.load(source)


@contextmanager
def _working(what: str, quiet: bool):
    """A spinner on stderr while a step runs (only on a terminal, never with --json)."""
    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield
        return
    with console.status(what + "…"):
        yield


def _show(answer: Neighbors, table: Vectors, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps({"vectors": table.name, **answer.to_dict()}))
        return
    order = "higher is closer" if answer.higher_is_better else "distance: lower is closer"
    inputs = ", ".join(answer.inputs)
    allowed = f"query words excluded: {inputs}" if answer.excluded else f"query words allowed as answers: {inputs}"
    view = Table()
    view.add_column("#", justify="right")
    view.add_column("key")
    view.add_column(answer.metric, justify="right")
    for rank, (key, score) in enumerate(answer, 1):
        view.add_row(str(rank), key, f"{score:.4f}")
    console = Console()
    # plain lines rather than a table title, which rich would wrap to the table's narrow width
    console.print(f"{answer.query} in {table.name}: {answer.metric}, {order}", highlight=False, soft_wrap=True)
    console.print(view)
    console.print(allowed, highlight=False, soft_wrap=True)
