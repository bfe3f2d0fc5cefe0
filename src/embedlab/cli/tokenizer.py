"""`embedlab tokenizer train` and `embedlab tokenize`: subword tokenizers on real corpora.

    embedlab tokenizer train gcide --vocab-size 8000 --out gcide-8k.json
    embedlab tokenizer train enwiki-sample --vocab-size 2000 --out wiki.json --reference --trace
    embedlab tokenize "unhappiness" --tokenizer gcide-8k.json
    embedlab tokenize "the cat sat" --tokenizer minilm --json
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from embedlab.cli.options import JsonFlag
from embedlab.data.corpora import open_corpus
from embedlab.errors import MissingDataError
from embedlab.tokenizer import BPE, FastTokenizer, load_tokenizer
from embedlab.tokenizer.vocab import piece_counts
from embedlab.vectors.frequency import band

app = typer.Typer(help="Train subword tokenizers on a corpus.", no_args_is_help=True)


@app.command("train")
def train(
    corpus: Annotated[str, typer.Argument(help="A built-in corpus (gcide, enwiki-sample) or a text file.")],
    vocab_size: Annotated[int, typer.Option("--vocab-size", help="Tokens in all: 256 bytes + merges.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the tokenizer (JSON).")],
    reference: Annotated[
        bool, typer.Option("--reference", help="Use embedlab's readable trainer instead of HF tokenizers.")
    ] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Print each merge as it happens (--reference).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Train a byte-level BPE tokenizer on CORPUS and write it to --out.

    Both trainers learn the same merges (ties broken as HuggingFace does). The file also
    records how often each token occurs in the corpus, which `embedlab tokenize` shows.
    """
    if not out.parent.is_dir():
        raise MissingDataError(f"--out: the folder {out.parent} does not exist")
    source = open_corpus(corpus)
    console = Console(stderr=True)
    start = time.perf_counter()
    with _progress(console, as_json) as progress:
        lines = _counted(source, progress, progress.add_task(f"reading {source.name}", total=None))
        if reference:
            tokenizer = BPE(mode="byte", split="gpt2", tie="hf")
            merges = progress.add_task("merging", total=max(vocab_size - 256, 0))

            def on_merge(m) -> None:
                progress.advance(merges)
                if trace:
                    progress.console.print(
                        f"merge {m.id - 255:>6}: {escape(m.left)!r} + {escape(m.right)!r} -> {escape(m.token)!r}"
                        f"  (count {m.count:,})",
                        highlight=False,
                    )

            tokenizer.train(lines, vocab_size=vocab_size, on_merge=on_merge)
        else:
            tokenizer = FastTokenizer.train(lines, vocab_size=vocab_size)
            counting = _counted(source, progress, progress.add_task("counting pieces", total=None))
            tokenizer.counts = piece_counts(tokenizer, counting)
    seconds = time.perf_counter() - start
    tokenizer.save(out)
    summary = {
        "corpus": source.name,
        "trainer": "reference" if reference else "fast",
        "vocab_size": tokenizer.vocab_size,
        "seconds": round(seconds, 2),
        "out": str(out),
    }
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        Console().print(
            f"{summary['trainer']} BPE, {tokenizer.vocab_size:,} tokens from {source.name} "
            f"in {seconds:.1f} s -> {out}",
            highlight=False,
        )


def tokenize(
    text: Annotated[str, typer.Argument(help="The text to split into pieces.")],
    tokenizer: Annotated[
        str, typer.Option("--tokenizer", "-t", help="A tokenizer file, a model folder, or minilm.")
    ] = "minilm",
    as_json: JsonFlag = False,
) -> None:
    """Split TEXT into subword pieces and ids; with corpus counts (tokenizers trained by
    `embedlab tokenizer train`), show how often each piece occurred: how well its row trains."""
    tok = load_tokenizer(tokenizer)
    ids = tok.encode(text)
    rows = []
    for i in ids:
        row = {"piece": tok.piece(i), "id": i}
        if tok.counts:  # only tokenizers trained here carry corpus counts
            row |= {"count": tok.counts[i], "band": band(tok.counts[i])}
        rows.append(row)
    if as_json:
        typer.echo(json.dumps({"text": text, "tokenizer": tokenizer, "pieces": rows}))
        return
    table = Table(title=f"{len(ids)} pieces, vocabulary of {tok.vocab_size:,}")
    for column in rows[0] if rows else ("piece", "id"):
        table.add_column(column, justify="right" if column in ("id", "count") else "left")
    for row in rows:
        table.add_row(*(f"{v:,}" if isinstance(v, int) and k == "count" else str(v) for k, v in row.items()))
    Console().print(table)


def _progress(console: Console, quiet: bool) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=quiet or not console.is_terminal,  # bars only for a person at a terminal
        transient=True,
    )


def _counted(lines: Iterable[str], progress: Progress, task) -> Iterator[str]:
    """Pass lines through, advancing a progress task every 10,000."""
    n = 0
    for n, line in enumerate(lines, 1):
        if n % 10_000 == 0:
            progress.update(task, completed=n)
        yield line
    progress.update(task, completed=n)
