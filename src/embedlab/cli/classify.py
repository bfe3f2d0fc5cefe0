"""`embedlab classify`: fastText's supervised classifier, its files both ways.

embedlab classify train gcide-domains --out domains.bin                    # fastText's defaults
embedlab classify train train.txt --out m.bin --epoch 25 --lr 1.0 --word-ngrams 2
embedlab classify train train.txt --out m.bin --resume                     # after a kill
embedlab classify test m.bin gcide-domains-test                            # N, P@1, R@1 as `fasttext test`
embedlab classify test m.bin test.txt -k 3 --per-label --json
embedlab classify predict m.bin test.txt -k 2                              # as `fasttext predict-prob`
embedlab classify quantize m.bin --cutoff 100000 --qnorm --retrain --input train.txt   # m.ftz
echo "a genus of fishes" | embedlab classify predict m.bin -

DATA is fastText's format (`__label__X some text`, several labels a line allowed), a file, "-" (standard
input, for predict and test), or the built-in gcide domains: gcide-domains (training) and
gcide-domains-test. MODEL is a supervised .bin or .ftz, written by the fastText tool or by embedlab.
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from embedlab.cli.options import ForceFlag, JsonFlag, as_typed, path_text, path_value, refuse_existing

app = typer.Typer(help="Train, test and run fastText's text classifier.", no_args_is_help=True)

DataArg = Annotated[
    str,
    typer.Argument(
        metavar="DATA", parser=path_text, help="Labelled text: a file, - (standard input), gcide-domains(-test)."
    ),
]
ModelArg = Annotated[Path, typer.Argument(metavar="MODEL", parser=path_value, help="A supervised .bin or .ftz.")]
TopK = Annotated[int, typer.Option("-k", "--k", metavar="K", help="How many labels each line gets, best first.")]
Threshold = Annotated[float, typer.Option("--threshold", metavar="P", help="Only labels of probability >= P (0 to 1).")]


def _text(data: str):
    """DATA -> LabelledText: a built-in name, "-", or a file."""
    from embedlab.data.gcide import DOMAIN_SETS, domain_text
    from embedlab.models.labelled import LabelledText

    if data == "-":
        return LabelledText.of(sys.stdin.buffer.read(), "standard input")
    if data in DOMAIN_SETS and not os.path.exists(data):
        return LabelledText.of(domain_text(DOMAIN_SETS[data]), data)
    return LabelledText.read(data)


def train(
    data: DataArg,
    out: Annotated[
        Path, typer.Option("--out", "-o", parser=path_value, metavar="MODEL.bin", help="The .bin to write.")
    ],
    dim: Annotated[int, typer.Option("--dim", metavar="D", help="Width of each row.")] = 100,
    lr: Annotated[float, typer.Option("--lr", metavar="RATE", help="Learning rate at the start (falls to 0).")] = 0.1,
    epoch: Annotated[int, typer.Option("--epoch", metavar="N", help="Passes over DATA.")] = 5,
    word_ngrams: Annotated[
        int, typer.Option("--word-ngrams", metavar="N", help="Longest word n-gram with a hashed row (1: words only).")
    ] = 1,
    bucket: Annotated[int, typer.Option("--bucket", metavar="B", help="Hashed rows for word and char n-grams.")] = (
        2_000_000
    ),
    min_count: Annotated[int, typer.Option("--min-count", metavar="N", help="Words seen fewer times get no row.")] = 1,
    min_count_label: Annotated[
        int, typer.Option("--min-count-label", metavar="N", help="Labels seen fewer times are dropped.")
    ] = 0,
    min_n: Annotated[int, typer.Option("--min-n", metavar="N", help="Shortest character n-gram.")] = 0,
    max_n: Annotated[int, typer.Option("--max-n", metavar="N", help="Longest character n-gram (0: none).")] = 0,
    loss: Annotated[str, typer.Option("--loss", metavar="NAME", help="softmax, ns, hs or ova.")] = "softmax",
    neg: Annotated[int, typer.Option("--neg", metavar="N", help="Labels drawn per step with --loss ns.")] = 5,
    threads: Annotated[int, typer.Option("--threads", metavar="N", help="Threads (default: the machine's cores).")] = 0,
    seed: Annotated[int, typer.Option("--seed", metavar="S", help="Seed of the start and the draws.")] = 0,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the killed run that writes --out.")] = False,
    checkpoint_every: Annotated[
        float, typer.Option("--checkpoint-every", metavar="SECONDS", help="Seconds between checkpoints.")
    ] = 60.0,
    force: ForceFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Train fastText's classifier on DATA into a .bin.

    fastText's flags and defaults; the .bin is the tool's format, so `fasttext predict` and `fasttext test`
    read it. A run killed mid-way continues with --resume."""
    from embedlab.errors import MissingDataError, OutputExistsError, check_float
    from embedlab.train.supervised import Supervised, train_classifier
    from embedlab.vectors.io.fasttext_inplace import fasttext_in_place

    settings = Supervised(dim, lr, epoch, word_ngrams, bucket, min_count, min_count_label, min_n, max_n, loss, neg,
                          threads or os.cpu_count() or 1, seed)  # fmt: skip
    check_float("checkpoint_every", checkpoint_every, low=0.0)
    refuse_existing([out], force)
    text = _text(data)
    text.check_labelled()
    partial = out.with_name(out.name + ".partial")
    if resume and not partial.exists():
        raise MissingDataError(f"no checkpoint at {partial} to resume; run without --resume to start")
    if not resume:
        _claim(partial, force, OutputExistsError)
    for stale in out.parent.glob(f".{out.name}.*.tmp"):  # a killed run's half-written .bin: this run owns the name
        stale.unlink()
    started = time.perf_counter()
    try:  # the tables are trained inside the .bin being written: no copy of them at the end
        with fasttext_in_place(out, replace=force) as place, _bar(as_json) as tick:
            model = train_classifier(text, settings, tick, partial, resume, checkpoint_every, place)
    except BaseException:
        if partial.exists() and partial.stat().st_size == 0:
            partial.unlink()  # only the claim: nothing to resume
        raise
    partial.unlink(missing_ok=True)
    summary = {
        "out": str(out), "words": model.nwords, "labels": len(model.words) - model.nwords, "tokens": model.ntokens,
        "rows": len(model.input), "dim": model.dim, "bytes": out.stat().st_size,
        "seconds": round(time.perf_counter() - started, 3), "resumed": resume,
    }  # fmt: skip
    _report(
        summary,
        f"{out}: {summary['labels']} labels, {summary['words']:,} words, {summary['rows']:,} rows x {model.dim} "
        f"({summary['bytes'] / 1e6:,.1f} MB), trained on {model.ntokens:,} tokens x {epoch} epochs "
        f"in {summary['seconds']:.1f} s",
        as_json,
    )


def _report(summary: dict, line: str, as_json: bool) -> None:
    """What a command wrote: `summary` as JSON with --json, else the one `line`."""
    typer.echo(json.dumps(summary) if as_json else line)


def _claim(partial: Path, force: bool, exists: type) -> None:
    """Create `partial` empty and exclusively: of two runs writing one model, one goes on."""
    if force:
        partial.unlink(missing_ok=True)
    try:
        os.close(os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    except FileExistsError:
        raise exists(
            f"{partial} exists: another run is writing this model, or a killed one left its checkpoint; "
            "add --resume to continue it or --force to start again"
        ) from None


@contextmanager
def _bar(quiet: bool):
    """A progress callback for train_classifier: a bar on stderr at a terminal, nothing otherwise."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    with Progress(
        TextColumn("training"), BarColumn(), TaskProgressColumn(), TextColumn("{task.fields[loss]}"),
        TimeRemainingColumn(), console=console, disable=quiet or not console.is_terminal, transient=True,
    ) as bar:  # fmt: skip
        task = bar.add_task("training", total=None, loss="")

        def tick(done: int, total: int, loss: float) -> None:
            bar.update(task, completed=done, total=total, loss=f"loss {loss:.4f}")

        yield tick


def predict(model: ModelArg, data: DataArg, k: TopK = 1, threshold: Threshold = 0.0, as_json: JsonFlag = False) -> None:
    """Print each line's K best labels and probabilities.

    One line per line of DATA, as `fasttext predict-prob` prints them."""
    from embedlab.models.bag import Classifier

    clf = Classifier.read(model)
    top = clf.predict(_text(data), k, threshold)
    if as_json:
        lines = [[list(p) for p in top.labels_of(i)] for i in range(len(top.labels))]
        typer.echo(json.dumps({"model": str(model), "predictions": lines}))
        return
    sys.stdout.write("".join(line + "\n" for line in top.lines()))


def test(
    model: ModelArg,
    data: DataArg,
    k: TopK = 1,
    threshold: Threshold = 0.0,
    per_label: Annotated[bool, typer.Option("--per-label", help="Each label's F1, precision, recall too.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Score MODEL on DATA's labels: P@K and R@K.

    As `fasttext test` prints them; --per-label adds each label's F1, precision and recall (as
    `fasttext test-label`, whose recall and F1 are wrong in fastText 0.9.2: it never counts gold labels)."""
    from embedlab.models.bag import Classifier

    clf = Classifier.read(model)
    meter = clf.test(_text(data), k, threshold)
    labels = dict(zip(clf.labels, meter.per_label(), strict=True))
    if as_json:
        answer = {"model": str(model), "examples": meter.examples, "k": k, "precision": meter.precision,
                  "recall": meter.recall}  # fmt: skip
        if per_label:  # NaN (nothing to divide by: fastText's "--------") as null
            answer["labels"] = {
                label: {key: None if v != v else v for key, v in m.items()} for label, m in labels.items()
            }
        typer.echo(json.dumps(answer))
        return
    if per_label:
        for label, m in labels.items():
            shown = [f"{name} : {'--------' if m[key] != m[key] else f'{m[key]:.6f}'}" for name, key in
                     (("F1-Score", "f1"), ("Precision", "precision"), ("Recall", "recall"))]  # fmt: skip
            typer.echo("  ".join(shown) + f"   {label}")
    typer.echo(f"N\t{meter.examples}\nP@{k}\t{meter.precision:.3g}\nR@{k}\t{meter.recall:.3g}")


def quantize(
    model: ModelArg,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", parser=path_value, metavar="MODEL.ftz", help="The .ftz to write (MODEL's .ftz)."),
    ] = None,
    cutoff: Annotated[
        int, typer.Option("--cutoff", metavar="N", help="Keep the N input rows of largest norm (0: all).")
    ] = 0,
    dsub: Annotated[int, typer.Option("--dsub", metavar="N", help="Columns per sub-vector (a code byte each).")] = 2,
    qnorm: Annotated[bool, typer.Option("--qnorm", help="Quantize each row's norm apart (a byte more a row).")] = False,
    qout: Annotated[bool, typer.Option("--qout", help="Quantize the output table too (256 labels or more).")] = False,
    retrain: Annotated[bool, typer.Option("--retrain", help="Train the rows --cutoff keeps again first.")] = False,
    input: Annotated[
        str | None, typer.Option("--input", parser=path_text, metavar="DATA", help="What --retrain trains on.")
    ] = None,
    lr: Annotated[float, typer.Option("--lr", metavar="RATE", help="--retrain's learning rate.")] = 0.05,
    epoch: Annotated[int, typer.Option("--epoch", metavar="N", help="--retrain's passes over --input.")] = 5,
    threads: Annotated[int, typer.Option("--threads", metavar="N", help="--retrain's threads (default: cores).")] = 0,
    seed: Annotated[int, typer.Option("--seed", metavar="S", help="Seed of k-means and --retrain's draws.")] = 0,
    force: ForceFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Compress a classifier into a .ftz, as `fasttext quantize`.

    Each row becomes one byte per --dsub columns (the nearest of 256 centroids learned by k-means), after
    keeping the --cutoff rows of largest norm and, with --retrain, training those again on --input."""
    from embedlab.cli.options import refuse_inapplicable
    from embedlab.errors import InvalidValueError
    from embedlab.train.supervised import retrain as retrain_rows
    from embedlab.vectors.fasttext_quantize import prune, quantize_model
    from embedlab.vectors.io.fasttext import read_fasttext, write_fasttext

    out = out if out is not None else model.with_suffix(".ftz")
    if out.resolve() == model.resolve():
        raise InvalidValueError(f"--out {out} is MODEL itself; give the .ftz another name")
    if not retrain:
        trained = ["input", "lr", "epoch", "threads"]
        refuse_inapplicable("a quantization without --retrain", trained, "nothing is trained")
    elif input is None or not cutoff:
        raise InvalidValueError("--retrain needs --input DATA and --cutoff N (it trains the rows the cutoff keeps)")
    refuse_existing([out], force)
    text = _text(input) if retrain else None
    started = time.perf_counter()
    full = read_fasttext(model)
    kept = prune(full, cutoff) if 0 < cutoff < len(full.input) else full
    if retrain and kept is not full:
        with _bar(as_json) as tick:
            kept = retrain_rows(kept, text, lr, epoch, threads or os.cpu_count() or 1, seed, tick)
    quantized = quantize_model(kept, dsub, qnorm, qout, seed=seed)
    write_fasttext(quantized, out, replace=force)
    before, after = model.stat().st_size, out.stat().st_size
    summary = {"out": str(out), "rows": len(quantized.input), "of_rows": len(full.input), "bytes": after,
               "model_bytes": before, "smaller": round(before / after, 1),
               "seconds": round(time.perf_counter() - started, 3)}  # fmt: skip
    _report(
        summary,
        f"{out}: {summary['rows']:,} of {summary['of_rows']:,} rows, {after / 1e6:,.2f} MB "
        f"({summary['smaller']:,}x smaller than {model}) in {summary['seconds']:.1f} s",
        as_json,
    )


app.command("train")(as_typed(train))
app.command("quantize")(as_typed(quantize))
app.command("predict")(as_typed(predict))
app.command("test")(as_typed(test))
