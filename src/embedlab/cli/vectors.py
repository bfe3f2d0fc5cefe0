"""`embedlab neighbors | analogy | evaluate`: query and score vector tables (`export` is in export.py).

    embedlab neighbors minilm king -k 5
    embedlab analogy minilm "king - man + woman" --json
    embedlab analogy minilm "king - man + woman" --include-inputs   # usually answers: king
    embedlab evaluate minilm
    embedlab evaluate minilm --resamples 10000 --seed 1 --json     # intervals from more resamples

VECTORS is a built-in table name (minilm) or a path in any format `embedlab.vectors.io` reads:
word2vec text (.txt, .vec) or binary (.bin), .safetensors or .npy with NAME.vocab.json, a
projector folder (vectors.tsv + metadata.tsv), a fastText .bin or .ftz, or a HuggingFace model folder.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.choices import ANALOGY_METHODS, METRICS, RESAMPLES
from embedlab.cli.options import JsonFlag, path_text, refuse_inapplicable
from embedlab.errors import InvalidValueError

if TYPE_CHECKING:
    from rich.console import Console

    from embedlab.vectors import Neighbors, Vectors
    from embedlab.vectors.evaluate import PairResult

VectorsArg = Annotated[
    str,
    typer.Argument(
        parser=path_text,
        metavar="VECTORS",
        help="A built-in table (minilm), or a vectors file or folder (word2vec, safetensors...).",
    ),
]
TopK = Annotated[int, typer.Option("-k", "--topn", metavar="K", help="How many answers to show.")]
Metric = Annotated[str, typer.Option("--metric", metavar="NAME", help=f"Similarity: {' | '.join(METRICS)}.")]
IncludeInputs = Annotated[
    bool,
    typer.Option(
        "--include-inputs",
        help="Let the query's own words be answers (they are left out by default, as gensim does).",
    ),
]
RestrictVocab = Annotated[
    int | None,
    typer.Option("--restrict-vocab", metavar="N", help="Search only the first N rows (frequent words first)."),
]


def neighbors(
    vectors: VectorsArg,
    word: Annotated[str, typer.Argument(metavar="WORD", help="The key whose neighbours to list.")],
    topn: TopK = 10,
    metric: Metric = "cosine",
    include_inputs: IncludeInputs = False,
    restrict_vocab: RestrictVocab = None,
    as_json: JsonFlag = False,
) -> None:
    """List the keys nearest to WORD in a table.

    Nearest means the highest cosine or dot product, or the smallest Euclidean distance
    (--metric). WORD itself is left out unless --include-inputs. A subword (fastText) table
    answers a WORD it has no row for from the word's character n-grams, and says so.
    """
    table = load(vectors, as_json)
    _refuse_degenerate_query(vectors, table, word, metric, restrict_vocab)
    answer = table.most_similar(
        word, topn=topn, metric=metric, exclude=not include_inputs, restrict_vocab=restrict_vocab
    )
    if not answer.keys:  # the rows searched are WORD's own alone: nothing else to rank
        searched = f"{vectors} holds" if restrict_vocab is None else f"--restrict-vocab {restrict_vocab} rows hold"
        raise InvalidValueError(f"{searched} only the row of {word!r}: there is no other row to rank")
    _show(answer, table, as_json)


def _refuse_degenerate_query(vectors: str, table: Vectors, word: str, metric: str, restrict_vocab: int | None) -> None:
    """Refuse a query whose answer would mean nothing: every searched row zero (every score ties), or,
    by cosine, WORD's own row zero (a zero row has no direction: gensim answers nan or 0 for each)."""
    import numpy as np

    searched = table.vectors[: len(table) if restrict_vocab is None else max(restrict_vocab, 0)]
    if len(searched) and not np.any(searched):
        rows = "every row" if len(searched) == len(table) else f"each of the first {len(searched):,} rows"
        raise InvalidValueError(f"{rows} of {vectors} is all zero: no row is nearer than another; train it first")
    if metric == "cosine" and not np.any(table.get_vector(word)):
        raise InvalidValueError(
            f"{word!r} has an all-zero row in {vectors}: a zero row has no direction, so its cosine with every row is "
            "undefined; ask for a word with a trained row, or use --metric dot or euclidean"
        )


def analogy(
    vectors: VectorsArg,
    expression: Annotated[
        str, typer.Argument(metavar="EXPRESSION", help='The analogy as vector arithmetic: "king - man + woman".')
    ],
    topn: TopK = 10,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            metavar="NAME",
            help=f"{' | '.join(ANALOGY_METHODS)}: cosine to the summed unit vectors, or Levy & Goldberg's product.",
        ),
    ] = "3cosadd",
    metric: Metric = "cosine",
    include_inputs: IncludeInputs = False,
    as_json: JsonFlag = False,
) -> None:
    """Solve an analogy such as king - man + woman.

    Without --include-inputs the words of the query are left out of the answers; with it,
    "king - man + woman" usually answers "king" itself, because the sum stays closest to it.
    """
    table = load(vectors, as_json)
    answer = table.analogy(expression, topn, method=method, metric=metric, exclude=not include_inputs)
    _show(answer, table, as_json)


def evaluate(
    vectors: VectorsArg,
    restrict_vocab: Annotated[
        int,
        typer.Option("--restrict-vocab", metavar="N", help="Use only the first N rows, as gensim does (300,000)."),
    ] = 300_000,
    case_sensitive: Annotated[
        bool, typer.Option("--case-sensitive", help="Match benchmark words exactly (default: any casing).")
    ] = False,
    method: Annotated[
        str, typer.Option("--method", metavar="NAME", help=f"Analogy method: {' | '.join(ANALOGY_METHODS)}.")
    ] = "3cosadd",
    resamples: Annotated[
        int,
        typer.Option(
            "--resamples", metavar="N", help="Bootstrap resamples per interval (100 to 100,000; 0: no intervals)."
        ),
    ] = RESAMPLES,
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", help="Seed of the resampling: the same seed, the same intervals.")
    ] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Score a table on word similarity and analogy benchmarks.

    WordSim-353, SimLex-999, RW (rare words), MEN, SimVerb-3500 and MTurk-771 are scored by
    Spearman correlation with human judgements, the Google analogy set by accuracy per
    section, with gensim's conventions. Each set reports its coverage: how many of its pairs
    or questions the table could score (a pair with a word the table has no vector for is
    skipped).

    A subword table is scored both ways of the fastText paper: sisg gives a word without its
    own row the vector of its n-grams, sisg- a null vector (the pair's cosine is then 0).

    Beside each Spearman and the total accuracy stands a 95% interval: the range the score stays
    within on 95% of seeded bootstrap resamples of the benchmark's pairs or questions, that is,
    how far it could move on another sample of items like these.
    """
    from rich.console import Console
    from rich.table import Table

    from embedlab.vectors.evaluate import evaluate_all
    from embedlab.vectors.intervals import CONFIDENCE, check_bootstrap

    check_bootstrap(resamples, CONFIDENCE, seed, allow_off=True)  # before the table loads, not after
    if resamples == 0:
        refuse_inapplicable("--resamples 0", ["seed"], "the seed draws the resamples, and there are none")
    table = load(vectors, as_json)
    with working("scoring benchmarks", as_json):
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
    pair_results = {name: r for name, r in results.items() if name != "google"}
    if table.composes:  # a subword table: it makes vectors for words without rows
        _show_subword_pairs(console, vectors, pair_results, spread if resamples else None)
    else:
        _show_pairs(console, vectors, pair_results, spread if resamples else None)
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
    answered = google.questions - google.oov
    console.print(
        f"coverage: {answered:,} of {google.questions:,} questions ({_share(answered, google.questions)}); "
        f"{google.oov:,} have an unknown word",
        highlight=False,
    )
    if resamples:
        console.print(
            f"{spread}s: seeded percentile bootstrap, {resamples} resamples of the items (seed {seed})",
            highlight=False,
        )


def _show_pairs(console: Console, vectors: str, results: dict[str, PairResult | None], spread: str | None) -> None:
    """One row per word-pair benchmark: Spearman (with its interval when `spread` names it) and the
    pairs scored of the file's (a plain table scores the pairs whose words have rows). Pearson's r is
    in --json: at 80 columns the coverage has the room."""
    from rich.table import Table

    view = Table(title=f"{vectors}: word similarity (Spearman ρ with human scores)")
    view.add_column("benchmark", no_wrap=True)
    for name in ("spearman", *([spread] if spread else []), "pairs scored", "coverage"):
        view.add_column(name, justify="right", no_wrap=True)
    for name, r in results.items():
        if r is None:  # a small table may hold no pair of the benchmark
            view.add_row(name, "-", *(["-"] if spread else []), f"0 of {_pairs_in(name):,}", "0%")
            continue
        interval = [_interval(r.interval, "{:.4f}")] if spread else []
        scored = f"{r.pairs:,} of {r.total:,}"
        view.add_row(name, f"{r.spearman:.4f}", *interval, scored, _share(r.covered, r.total))
    console.print(view)


def _show_subword_pairs(
    console: Console, vectors: str, results: dict[str, PairResult | None], spread: str | None
) -> None:
    """A subword table: Spearman both ways of the fastText paper (sisg: unseen words from their
    n-grams; sisg−: unseen words as null vectors), then the pairs covered by own rows and by n-grams."""
    from rich.table import Table

    scores = Table(title=f"{vectors}: word similarity (Spearman ρ with human scores)")
    scores.add_column("benchmark", no_wrap=True)
    for name in ("ρ sisg", *([spread] if spread else []), "ρ sisg−", *([spread] if spread else [])):
        scores.add_column(name, justify="right", no_wrap=True)
    coverage = Table(title=f"{vectors}: pairs whose two words get a vector")
    for name, justify in (("benchmark", "left"), ("pairs", "right"), ("own rows", "right"), ("n-grams", "right")):
        coverage.add_column(name, justify=justify, no_wrap=True)
    for name, r in results.items():
        if r is None:
            scores.add_row(name, *["-"] * (4 if spread else 2))
            coverage.add_row(name, f"{_pairs_in(name):,}", "0 (0%)", "0 (0%)")
            continue
        sisg = [f"{r.spearman:.4f}", *([_interval(r.interval, "{:.4f}")] if spread else [])]
        null = [f"{r.spearman_null:.4f}", *([_interval(r.interval_null, "{:.4f}")] if spread else [])]
        scores.add_row(name, *sisg, *null)
        own, made = (f"{n:,} ({_share(n, r.total)})" for n in (r.own_rows, r.covered))
        coverage.add_row(name, f"{r.total:,}", own, made)
    console.print(scores)
    console.print(
        "sisg: a word without its own row gets the mean of its n-gram rows; sisg−: a null vector (its pair's "
        "cosine 0), as in Bojanowski et al. 2017; both over the pairs the n-grams cover",
        highlight=False,
    )
    console.print(coverage)


def _pairs_in(name: str) -> int:
    """How many pairs a built-in word-pair benchmark holds (for a table that covers none of them)."""
    from embedlab.vectors.io.benchmarks import read_benchmark_pairs

    return len(read_benchmark_pairs(name))


def _share(part: int, whole: int) -> str:
    """part / whole as a percentage cell: "93.2%"; "100%" only when whole."""
    share = 100 * part / whole if whole else 0.0
    return "100%" if part == whole else f"{min(share, 99.9):.1f}%"


def _interval(interval: tuple[float, float] | None, number: str) -> str:
    """A bootstrap interval as a table cell, "[low, high]"; "-" where there is none (nothing answered)."""
    return "-" if interval is None else "[" + ", ".join(map(number.format, interval)) + "]"


def load(source: str, quiet: bool) -> Vectors:
    """The table `source` names (embedlab.vectors.load: a subword table for a fastText .bin), with a
    spinner while it loads."""
    from embedlab.vectors import load

    with working(f"loading {source}", quiet):
        return load(source)


@contextmanager
def working(what: str, quiet: bool):
    """A spinner on stderr while a step runs (only on a terminal, never with --json)."""
    from rich.console import Console

    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield
        return
    with console.status(what + "…"):
        yield


def _show(answer: Neighbors, table: Vectors, as_json: bool) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    if as_json:
        typer.echo(json.dumps({"vectors": table.name, **answer.to_dict()}))
        return
    order = "higher is closer" if answer.higher_is_better else "distance: lower is closer"
    # words made from n-grams have no row, so they can be no answer: only the others are excluded or allowed
    own = ", ".join(k for k in answer.inputs if k not in answer.from_ngrams)
    allowed = f"query words excluded: {own}" if answer.exclude_inputs else f"query words allowed as answers: {own}"
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
    if own:
        console.print(allowed, highlight=False, soft_wrap=True)
    if answer.from_ngrams:  # a subword table's answer for words it has no row for
        unseen = escape(", ".join(answer.from_ngrams))
        console.print(
            f"not in {escape(table.name)}, made from character n-grams: {unseen}", highlight=False, soft_wrap=True
        )
