"""`embedlab context`: one word's vector in several sentences, layer by layer through a real encoder.

embedlab context "he sat on the river bank" "she paid the cheque into the bank" --word bank
embedlab context "…" "…" --word bank --layer 6 --json
"""

from __future__ import annotations

import json
from itertools import combinations
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.choices import NEAREST, POOLINGS
from embedlab.cli.options import JsonFlag, path_text
from embedlab.errors import check_int

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from embedlab.models.context import ContextView


def context(
    texts: Annotated[
        list[str], typer.Argument(metavar="TEXTS", help="Two or more sentences that each contain the word.")
    ],
    word: Annotated[
        str, typer.Option("--word", "-w", metavar="WORD", help="The word to follow (it must be in every text).")
    ],
    layer: Annotated[
        int | None,
        typer.Option("--layer", "-l", metavar="N", help="Show only this layer (0 = the input embedding)."),
    ] = None,
    pooling: Annotated[
        str,
        typer.Option(
            "--pooling",
            metavar="HOW",
            help=f"A word of several pieces: {' | '.join(POOLINGS)} (the mean of its pieces, or the first).",
        ),
    ] = "mean",
    nearest: Annotated[
        int, typer.Option("--nearest", "-k", metavar="K", help="Static token rows listed per occurrence.")
    ] = NEAREST,
    model: Annotated[
        str,
        typer.Option(
            "--model", "-m", parser=path_text, metavar="NAME", help="A built-in model (minilm) or a BERT-family folder."
        ),
    ] = "minilm",
    as_json: JsonFlag = False,
) -> None:
    """Follow WORD through every layer of a real encoder, in TEXTS.

    At layer 0 (the input embedding) each occurrence is the same token row plus its position and
    segment rows; each encoder layer mixes in the rest of its sentence. For every layer: the
    cosine between every pair of occurrences, their norms, and the mean cosine between any two
    different tokens of the texts (the level to read the cosines against). For the shown layer
    (the last unless --layer): the rows of the static token table closest to each contextual
    vector. --json adds every occurrence's full vector.
    """
    from rich.console import Console

    from embedlab.files import json_safe
    from embedlab.models.context import ContextModel

    view = ContextModel.load(model).compare(texts, word, pooling=pooling, nearest=nearest)
    if layer is not None:
        layer = check_int("--layer", layer, low=0, high=len(view.layers) - 1)
    if as_json:
        typer.echo(json.dumps({"model": model, **json_safe(view.answer(layer, vectors=True))}))
        return
    console = Console()
    console.print(_cosine_table(view, layer))
    _print_nearest(console, view, len(view.layers) - 1 if layer is None else layer)


def _label(view: ContextView, i: int) -> str:
    """'2' for the word's only occurrence in text 2, '2b' for its second one there."""
    at = view.occurrences[i]
    same = [o for o in view.occurrences if o.text == at.text]
    return f"{at.text + 1}" if len(same) == 1 else f"{at.text + 1}{'abcdefghij'[same.index(at) % 10]}"


def _cosine_table(view: ContextView, layer: int | None) -> Table:
    from rich.table import Table

    n, pieces = len(view.occurrences), " ".join(view.word_pieces)
    how = "one piece" if len(view.word_pieces) == 1 else f"{view.pooling} of its pieces"
    table = Table(
        title=f"{view.word!r} ({pieces}: {how}) in {len(view.batch.texts)} texts",
        caption="layer 0 = the input embedding; base = mean cosine of two different tokens of the texts",
    )
    table.add_column("layer", justify="right")
    pairs = list(combinations(range(n), 2))
    for a, b in pairs:
        table.add_column(f"cos {_label(view, a)}·{_label(view, b)}", justify="right")
    for i in range(n):
        table.add_column(f"‖{_label(view, i)}‖", justify="right")
    table.add_column("base", justify="right")
    shown = view.layers if layer is None else [view.layers[layer]]
    for lv in shown:
        cells = [f"{lv.cosines[a][b]:.3f}" for a, b in pairs] + [f"{x:.2f}" for x in lv.norms]
        table.add_row(str(lv.layer), *cells, f"{lv.baseline:.3f}")
    return table


def _print_nearest(console: Console, view: ContextView, layer: int) -> None:
    lv = view.layers[layer]
    if not lv.nearest or not lv.nearest[0]:
        return
    console.print(f"Closest static token rows to each vector at layer {layer}:", highlight=False)
    for i, close in enumerate(lv.nearest):
        at = view.occurrences[i]
        words = ", ".join(f"{row.piece} {row.cosine:.2f}" for row in close)
        console.print(f"  {_label(view, i)}: {view.batch.texts[at.text]!r}: {words}", highlight=False)
