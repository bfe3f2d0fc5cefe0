"""`embedlab tokenizer train` and `embedlab tokenize`: subword tokenizers on real corpora.

    embedlab tokenizer train gcide --vocab-size 8000 --out gcide-8k.json
    embedlab tokenizer train enwiki-sample --vocab-size 2000 --out wiki.json --reference --trace
    embedlab tokenize "unhappiness" --tokenizer gcide-8k.json
    embedlab tokenize "the cat sat" --tokenizer minilm --json
    embedlab tokenizer train lesson.txt --reference --trace --tie first --split none --alphabet chars \\
        --vocab-size 13 --out lesson.json          # lesson 001's hand calculation, ties shown

The fast trainer (HuggingFace) is byte-level with its own tie rule; the options only the
reference trainer has are refused without --reference, each with the reason. An existing --out
is replaced only with --force, checked again when the file is created (another command may have
written it meanwhile). A corpus of one distinct word, or with nothing to merge, is refused.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.choices import SPLITS, TIE_RULES
from embedlab.cli.options import ForceFlag, JsonFlag, as_typed, path_text, path_value, refuse_existing
from embedlab.errors import InvalidValueError, MissingDataError, check_choice
from embedlab.sizing.memory import check_memory

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from embedlab.tokenizer import Merge

app = typer.Typer(help="Train subword tokenizers on a corpus.", no_args_is_help=True, rich_markup_mode=None)


ALPHABETS = {"bytes": "byte", "chars": "char"}  # --alphabet -> BPE's mode
FAST_SPLITS = ("gpt2", "whitespace")  # the splits FastTokenizer.train has too
TIE_HELP = "; ".join(f"{name}: {rule}" for name, rule in TIE_RULES.items())


def train(
    corpus: Annotated[
        str,
        typer.Argument(
            parser=path_text, metavar="CORPUS", help="A built-in corpus (gcide, enwiki-sample) or a text file."
        ),
    ],
    vocab_size: Annotated[
        int,
        typer.Option(
            "--vocab-size",
            metavar="N",
            help="Tokens in all: the alphabet (256 bytes, or the text's characters) and the merges.",
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", parser=path_value, metavar="PATH", help="Where to write the tokenizer (JSON).")
    ],
    reference: Annotated[
        bool, typer.Option("--reference", help="Use embedlab's readable trainer instead of HF tokenizers.")
    ] = False,
    trace: Annotated[
        bool,
        typer.Option("--trace", help="Print each merge, its count and the pairs it tied with (--reference)."),
    ] = False,
    tie: Annotated[
        str,
        typer.Option(
            "--tie",
            metavar="RULE",
            help=f"Which of equally frequent pairs is merged. {TIE_HELP}. first, lexical: --reference.",
        ),
    ] = "hf",
    split: Annotated[
        str,
        typer.Option(
            "--split",
            metavar="RULE",
            help="How text is cut before pairs are counted. gpt2: GPT-2's regex; whitespace: runs of "
            "non-space and runs of space apart; none: the whole text is one sequence, lines joined "
            "by their line breaks, so merges cross words (--reference).",
        ),
    ] = "gpt2",
    alphabet: Annotated[
        str,
        typer.Option(
            "--alphabet",
            metavar="KIND",
            help="bytes: the 256 byte values (GPT-2's table), nothing is out of vocabulary; chars: the "
            "text's distinct characters, another character cannot be encoded (--reference).",
        ),
    ] = "bytes",
    force: ForceFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Train a BPE tokenizer on CORPUS and write it to --out.

    By default both trainers make GPT-2-style byte-level BPE and learn the same merges (ties
    broken as HuggingFace does). --reference runs embedlab's Python trainer, which also starts
    from characters, splits by whitespace or not at all, and breaks ties by other rules: the
    lesson's hand calculation, on a file holding "the cat sat on the mat the cat", is

    \b
      embedlab tokenizer train FILE --reference --trace --tie first \\
        --split none --alphabet chars --vocab-size 13 --out t.json

    The file also records how often each token occurs in the corpus, which `embedlab tokenize`
    shows. An existing file at --out is replaced only with --force.
    """
    from rich.console import Console

    from embedlab.data.corpora import open_corpus
    from embedlab.tokenizer import BPE, FastTokenizer
    from embedlab.tokenizer.vocab import piece_counts

    check_choice("--tie", tie, tuple(TIE_RULES))
    check_choice("--split", split, SPLITS)
    check_choice("--alphabet", alphabet, tuple(ALPHABETS))
    if not reference:
        _refuse_without_reference(tie, split, alphabet, trace)
        what = f"--vocab-size {vocab_size:,} (HuggingFace's trainer reserves a slot for each; --reference does not)"
        check_memory(what, _fast_trainer_bytes(vocab_size))
    if not out.parent.is_dir():
        raise MissingDataError(f"--out: the folder {out.parent} does not exist")
    # the fast trainer writes the piece counts beside the tokenizer, NAME.counts.json
    refuse_existing([out] if reference else [out, out.with_name(out.stem + ".counts.json")], force)
    source = open_corpus(corpus)
    console = Console(stderr=True)
    start = time.perf_counter()
    with _progress(console, as_json) as progress:
        words: set[str] = set()  # the corpus's first distinct words, up to 2: one alone is refused below
        reading = progress.add_task(f"reading {source.name}", total=None)
        lines = _noting_words(_counted(source, progress, reading), words)
        if reference:
            tokenizer = BPE(mode=ALPHABETS[alphabet], split=split, tie=tie)
            merging = progress.add_task("merging", total=None)

            def on_merge(m: Merge) -> None:
                n = len(tokenizer.history)
                progress.update(merging, advance=1, total=vocab_size - m.id + n - 1)
                if trace and not as_json:
                    progress.console.print(_trace_line(n, m, tie), markup=False, highlight=False, soft_wrap=True)

            if split == "none":  # one sequence: the lines' breaks go back between them
                lines = _rejoined(lines)
            tokenizer.train(lines, vocab_size=vocab_size, on_merge=on_merge)
        else:
            tokenizer = FastTokenizer.train(lines, vocab_size=vocab_size, split=split)
            counting = _counted(source, progress, progress.add_task("counting pieces", total=None))
            tokenizer.counts = piece_counts(tokenizer, counting)
    seconds = time.perf_counter() - start
    _refuse_degenerate(source.name, split, words, len(tokenizer.merges) if reference else len(tokenizer.merges()))
    tokenizer.save(out, replace=force)  # exclusive unless --force: the check above was only at the start
    summary = {
        "corpus": source.name,
        "trainer": "reference" if reference else "fast",
        "alphabet": alphabet,
        "split": split,
        "tie": tie,
        "vocab_size": tokenizer.vocab_size,
        "seconds": round(seconds, 2),
        "out": str(out),
    }
    if reference and trace:
        summary["merges"] = [
            {"left": m.left, "right": m.right, "token": m.token, "count": m.count, "tied": m.tied,
             "passed_over": [list(p) for p in m.passed_over]}
            for m in tokenizer.history
        ]  # fmt: skip
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False))
    else:
        Console().print(
            f"{summary['trainer']} BPE, {tokenizer.vocab_size:,} tokens from {source.name} in {seconds:.1f} s -> {out}",
            highlight=False,
            soft_wrap=True,  # a path is never broken across lines: it is copied and pasted
        )


app.command("train")(as_typed(train))


def _fast_trainer_bytes(vocab_size: int) -> int:
    """What HuggingFace's BPE trainer (tokenizers 0.23) reserves before it reads a line: a hash table
    for `vocab_size` entries, 33 bytes a slot (a String key, a u32 id, a control byte), its slots the
    power of two at or above 8/7 of the entries. Measured: --vocab-size 5,000,000,000 asked for
    283,467,841,552 bytes (2**33 slots) and aborted the process, which no Python code can catch."""
    slots = 1 << (-(-vocab_size * 8 // 7) - 1).bit_length()
    return 33 * slots


def _refuse_without_reference(tie: str, split: str, alphabet: str, trace: bool) -> None:
    """The HF trainer is byte-level with its own tie rule and trains line by line: say which
    option needs the reference trainer, and why."""
    refusals = [
        (tie != "hf", f"--tie {tie} needs --reference: HuggingFace's trainer breaks ties only its own way (hf)"),
        (split not in FAST_SPLITS, f"--split {split} needs --reference: HuggingFace's trainer cuts lines apart"),
        (alphabet != "bytes", f"--alphabet {alphabet} needs --reference: HuggingFace's byte alphabet is fixed"),
        (trace, "--trace needs --reference: HuggingFace's trainer does not report its merges as it makes them"),
    ]
    for refused, message in refusals:
        if refused:
            raise InvalidValueError(message)


def _trace_line(n: int, m: Merge, tie: str) -> str:
    """merge      2: 't' + 'h' -> 'th'  (count 3, tied with 'h' + 'e'; --tie first takes the pair seen first ...)"""
    line = f"merge {n:>6}: {m.left!r} + {m.right!r} -> {m.token!r}  (count {m.count:,}"
    if m.tied == 1:
        return line + ")"
    named = ", ".join(f"{left!r} + {right!r}" for left, right in m.passed_over)
    more = m.tied - 1 - len(m.passed_over)
    named += f" and {more:,} more" if more else ""
    return f"{line}, tied with {named}; --tie {tie} takes {TIE_RULES[tie]})"


def tokenize(
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The text to split into pieces.")],
    tokenizer: Annotated[
        str,
        typer.Option(
            "--tokenizer", "-t", parser=path_text, metavar="NAME", help="A tokenizer file, a model folder, or minilm."
        ),
    ] = "minilm",
    as_json: JsonFlag = False,
) -> None:
    """Split TEXT into subword pieces and ids.

    With a tokenizer trained by `embedlab tokenizer train`, which records corpus counts, each
    piece also shows how often it occurred in the corpus: how well its row can train.
    """
    from rich.console import Console
    from rich.table import Table

    from embedlab.tokenizer import load_tokenizer
    from embedlab.vectors.frequency import band

    if not text:  # zero pieces would print as an answer; whitespace alone is text (byte-level: its own pieces)
        raise InvalidValueError("TEXT must be a non-empty string; give the text to split into pieces")
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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

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


def _noting_words(lines: Iterable[str], words: set[str]) -> Iterator[str]:
    """`lines` as they are, adding their whitespace-separated words to `words` until it holds 2."""
    for line in lines:
        if len(words) < 2:
            words.update(line.split()[:2])
        yield line


def _refuse_degenerate(corpus: str, split: str, words: set[str], merges: int) -> None:
    """Refuse a tokenizer that learned nothing general: a corpus of one distinct word (its merges only
    spell that word; --split none takes the corpus as one sequence, as lesson 001's text, and is
    exempt) or no merge at all (every word one symbol)."""
    if len(words) == 1 and split != "none":
        raise InvalidValueError(
            f"corpus {corpus} holds one distinct word, {next(iter(words))!r}: a tokenizer trained on it only "
            "learns to spell that word; give a corpus of many words"
        )
    if merges == 0:
        raise InvalidValueError(
            f"corpus {corpus} has nothing to merge (no pair of symbols occurs in it); give a corpus of many words"
        )


def _rejoined(lines: Iterable[str]) -> Iterator[str]:
    """Corpus lines (their breaks stripped) with a "\\n" before each but the first: the text as it was."""
    for n, line in enumerate(lines):
        yield "\n" + line if n else line


def _counted(lines: Iterable[str], progress: Progress, task) -> Iterator[str]:
    """Pass lines through, advancing a progress task every 10,000."""
    n = 0
    for n, line in enumerate(lines, 1):
        if n % 10_000 == 0:
            progress.update(task, completed=n)
        yield line
    progress.update(task, completed=n)
