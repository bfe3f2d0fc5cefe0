"""The `embedlab` command line: one Typer app, one module per command group.

    embedlab size --preset bert-base
    embedlab size --vocab 100000 --dim 2048 --tied --positions learned --max-len 4096 --dtype fp16
    embedlab embed "the cat sat on the mat" --json
    embedlab context "he sat on the river bank" "she paid the cheque into the bank" --word bank
    embedlab tokenizer train gcide --vocab-size 8000 --out gcide-8k.json
    embedlab tokenize "unhappiness" --tokenizer gcide-8k.json
    embedlab neighbors minilm king -k 5
    embedlab analogy minilm "king - man + woman"
    embedlab evaluate minilm --json
    embedlab compare minilm runs/wiki --top 10
    embedlab export minilm --format word2vec-bin --out minilm.bin
    embedlab train enwiki-sample --out runs/wiki
    embedlab arena --quick --out runs/arena-quick
    embedlab advise --languages 20 --params 70B --seq-len 8192
    embedlab graph karate --dim 16 --out karate.txt --evaluate
    embedlab distill minilm --out m2v-minilm
    embedlab encode m2v-minilm "the cat sat" "a dog lay"
    embedlab classify train gcide-domains --out domains.bin --word-ngrams 2
    embedlab lab --vectors minilm --vectors runs/wiki

Every expected error (an `EmbedlabError`, or a usage mistake such as an unknown option) is
printed as one red line on stderr with exit status 2. Set EMBEDLAB_DEBUG=1 to see tracebacks.
Arguments are text: one that is not valid UTF-8 is refused here, before any command sees it.

`embedlab --help` answers at once: the modules here import only typer and rich at the top, and
each command imports the library it needs when it runs (tests/cli/test_help.py holds that line).
Help pages are Typer's plain layout (rich_markup_mode=None): at 80 columns its description column
keeps 44 characters or more, where rich's panels left about 20.

options.py    what several commands share: --json, --force, refusing options that do not apply, errors
              told in the options' names (as_typed, which wraps every command below)
choices.py    the names help pages list (metrics, formats, tie rules...), pinned to their homes by a test
size.py       `embedlab size`: parameters and memory of a layout or a preset
size_views.py its tables beside the report: the presets, the token table stored as fp32/fp16/int8/codes
embed.py      `embedlab embed`: a real model's input pipeline, step by step
context.py    `embedlab context`: one word's vector in several sentences, layer by layer
tokenizer.py  `embedlab tokenize`, `embedlab tokenizer train`
vectors.py    `embedlab neighbors | analogy | evaluate`
export.py     `embedlab export`: a table written in another format (product-quantized .ftz among them)
compare.py    `embedlab compare`: two tables key by key, and their benchmark differences
train.py      `embedlab train`: a run folder, with progress, resume and metrics
arena.py      `embedlab arena`: the embedding strategies raced on real tasks, and the budget sweep
advise.py     `embedlab advise`: lesson 001's decision chart walked, with this project's evidence
graph.py      `embedlab graph`: a graph's nodes as a table (random walks + skip-gram), scored
distill.py    `embedlab distill | encode`: an encoder made a static model, and sentence vectors
classify.py   `embedlab classify train | test | predict`: fastText's classifier, its .bin and .ftz
maps.py       `embedlab map`: a table's tiled map built ahead of time for the lab's projector
lab.py        `embedlab lab`: serve the web lab
"""

from __future__ import annotations

import os
import sys

import typer

from embedlab.cli import (
    advise,
    arena,
    classify,
    compare,
    context,
    distill,
    embed,
    export,
    graph,
    lab,
    maps,
    size,
    tokenizer,
    train,
    vectors,
)
from embedlab.cli.options import as_typed
from embedlab.errors import EmbedlabError, InvalidValueError

app = typer.Typer(
    name="embedlab",
    help="Embedding layers of modern neural networks: size them, walk them, train and query them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.command("size")(as_typed(size.size, vocab_size="vocab", n_segments="segments", in_channels="channels"))
app.command("embed")(as_typed(embed.embed))
app.command("context")(as_typed(context.context))
app.command("tokenize")(as_typed(tokenizer.tokenize))
app.add_typer(tokenizer.app, name="tokenizer")
app.command("neighbors")(as_typed(vectors.neighbors))
app.command("analogy")(as_typed(vectors.analogy))
app.command("evaluate")(as_typed(vectors.evaluate))
app.command("compare")(as_typed(compare.compare))
app.command("export")(as_typed(export.export))
app.command("train")(as_typed(train.train))
app.command("arena")(as_typed(arena.arena))
app.command("advise")(as_typed(advise.advise))
app.command("graph")(as_typed(graph.graph, walks_per_node="walks"))
app.command("distill")(as_typed(distill.distill))
app.command("encode")(as_typed(distill.encode))
app.add_typer(classify.app, name="classify")
app.command("map")(as_typed(maps.map_))
app.command("lab")(as_typed(lab.lab))


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the app and turn expected errors into one line."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        check_text(args)
        # standalone_mode=False: Typer hands us its usage errors instead of printing a box.
        code = app(args=args, prog_name="embedlab", standalone_mode=False)
    except typer.Abort:
        _fail("aborted", 130)
    except typer.TyperException as err:  # usage mistakes: missing argument, bad option value
        ctx = getattr(err, "ctx", None)
        if type(err).__name__ == "NoArgsIsHelpError":  # bare `embedlab`: the help is the answer
            if err.format_message().strip():  # (Typer may have printed it already)
                typer.echo(err.format_message(), err=True)
            sys.exit(2)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        _fail(err.format_message() + hint, err.exit_code)
    except (EmbedlabError, OSError) as err:  # OSError: a path the user named cannot be read or written
        if os.environ.get("EMBEDLAB_DEBUG"):
            raise
        plain_os_error = not isinstance(err, EmbedlabError) and err.filename is not None
        _fail(f"{err.filename}: {err.strerror}" if plain_os_error else str(err), 2)
    sys.exit(code if isinstance(code, int) else 0)


def check_text(args: list[str]) -> None:
    """Raise InvalidValueError if an argument is not valid UTF-8 text.

    Python hands argv bytes it cannot decode over as lone surrogates (b"caf\\xff" arrives as
    "caf\\udcff"), which no tokenizer, table or terminal takes; refusing them here names the
    argument and the byte, instead of a TypeError deep inside a command.
    """
    for n, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as err:
            given = arg.encode("utf-8", "surrogateescape" if _escaped(arg) else "backslashreplace")
            offset = len(arg[: err.start].encode("utf-8"))
            raise InvalidValueError(
                f"argument {n} is not UTF-8 text: {given!r} cannot be decoded at byte {offset}; "
                "embedlab reads its arguments, file names included, as UTF-8"
            ) from None


def _escaped(text: str) -> bool:
    """Whether every surrogate in `text` stands for an undecodable byte (U+DC80..U+DCFF)."""
    return all("\udc80" <= c <= "\udcff" for c in text if "\ud800" <= c <= "\udfff")


def _fail(message: str, status: int) -> None:
    from rich.console import Console
    from rich.markup import escape

    Console(stderr=True, highlight=False).print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
    sys.exit(status)
