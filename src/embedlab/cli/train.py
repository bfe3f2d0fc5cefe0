"""`embedlab train`: train an embedding table on a corpus into an output folder.

    embedlab train enwiki-sample --out runs/wiki                        # skip-gram, dim 100, 5 epochs
    embedlab train gcide --out runs/gcide --method cbow --dim 300 --threads 2
    embedlab train enwiki-sample --out runs/lm --method lm --vocab-size 4000 --untied
    embedlab train enwiki-sample --out runs/wiki --resume               # after a crash or Ctrl-C
    embedlab train gcide --out runs/ft --subwords                       # fastText's model: n-grams 3-6, 2M buckets
    embedlab train gcide --out runs/ft --subwords --method cbow --min-n 2 --max-n 5 --buckets 500000
    embedlab train gcide --out runs/fl --subwords --floret --buckets 50000   # floret's compact table
    embedlab train enwiki-sample --out runs/lm-pre --method lm --dim 100 --init-from runs/wiki   # sgns rows start it
    embedlab train enwiki-sample --out runs/lm-fixed --method lm --freeze                        # a fixed random table
    torchrun --nproc_per_node=2 -m embedlab train gcide --out runs/gcide-2p

Settings not given take the method's defaults; with --resume they are read from the folder, and
any given that differ from the folder's run are an error.
"""

from __future__ import annotations

import json
import math
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from embedlab.cli.choices import DEVICES, MAX_HASH_COUNT, METHODS
from embedlab.cli.options import JsonFlag, path_text, path_value, refuse_inapplicable

# the options of one method family, refused with the other (--subwords and --freeze: RunConfig says why)
WORD2VEC_ONLY = ("window", "negative", "min_count", "epoch_decay")
LM_ONLY = ("vocab_size", "tied")

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from embedlab.train.run import RunResult


def train(
    corpus: Annotated[
        str,
        typer.Argument(
            parser=path_text, metavar="CORPUS", help="A built-in corpus (enwiki-sample, gcide) or a UTF-8 text file."
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            parser=path_value,
            metavar="DIR",
            help="Output folder: new or empty (or the run to --resume).",
        ),
    ],
    method: Annotated[
        str | None,
        typer.Option(
            "--method", metavar="NAME", help=f"{' | '.join(METHODS)}: skip-gram, CBOW, or a small transformer LM."
        ),
    ] = None,
    dim: Annotated[
        int | None, typer.Option("--dim", metavar="D", help="Embedding width (default: word2vec 100, lm 128).")
    ] = None,
    window: Annotated[
        int | None, typer.Option("--window", metavar="N", help="word2vec: words each side, at most (default: 5).")
    ] = None,
    negative: Annotated[
        int | None, typer.Option("--negative", metavar="N", help="word2vec: noise words per true one (default: 5).")
    ] = None,
    epochs: Annotated[
        int | None, typer.Option("--epochs", metavar="N", help="Passes over the corpus (default: word2vec 5, lm 1).")
    ] = None,
    min_count: Annotated[
        int | None,
        typer.Option("--min-count", metavar="N", help="word2vec: drop words seen fewer times (default: 5)."),
    ] = None,
    lr: Annotated[
        float | None,
        typer.Option(
            "--lr", metavar="RATE", help="Learning rate (default: word2vec 0.025 decaying to 0; lm AdamW 3e-3)."
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", metavar="N", help="Seeds the tables and every random draw (default: 1).")
    ] = None,
    device: Annotated[
        str | None, typer.Option("--device", metavar="NAME", help=f"{' | '.join(DEVICES)} (default: cpu).")
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option("--threads", metavar="N", help="CPU threads (default: 2); word2vec with 1 is bit-reproducible."),
    ] = None,
    subwords: Annotated[
        bool | None,
        typer.Option(
            "--subwords",
            help="sgns, cbow: fastText's model, each word the mean of its row and its character n-grams' rows.",
        ),
    ] = None,
    min_n: Annotated[
        int | None, typer.Option("--min-n", metavar="N", help="--subwords: shortest n-gram of <word> (default: 3).")
    ] = None,
    max_n: Annotated[
        int | None, typer.Option("--max-n", metavar="N", help="--subwords: longest n-gram (default: 6).")
    ] = None,
    buckets: Annotated[
        int | None,
        typer.Option("--buckets", metavar="N", help="--subwords: hashed n-gram rows (default: 2,000,000)."),
    ] = None,
    floret: Annotated[
        bool | None,
        typer.Option(
            "--floret",
            help="--subwords: floret's mode (its -mode floret), no word rows: each word the mean of the rows its "
            "key <word> and its n-grams hash to, in one compact table (e.g. --buckets 50000).",
        ),
    ] = None,
    hash_count: Annotated[
        int | None,
        typer.Option(
            "--hash-count",
            metavar="K",
            help=f"--floret: rows each word and n-gram is hashed to, 1..{MAX_HASH_COUNT} (floret's -hashCount; "
            "default: 2).",
        ),
    ] = None,
    pair_steps: Annotated[
        bool | None,
        typer.Option(
            "--pair-steps",
            help="sgns --subwords: the centre's rows take every pair's step at once, as gensim and fastText "
            "(slower); by default they take the window's summed steps once.",
        ),
    ] = None,
    ngram_divisor: Annotated[
        bool | None,
        typer.Option(
            "--ngram-divisor",
            help="sgns --subwords: divide the centre's summed rows by its n-gram count, as gensim's skip-gram; by "
            "default by its row count (n-grams + 1), as fastText.",
        ),
    ] = None,
    epoch_decay: Annotated[
        float | None,
        typer.Option(
            "--epoch-decay",
            metavar="SHARE",
            help="word2vec: the share of each epoch's fall in rate taken within it, in (0, 1] (default: 0.5, "
            "gensim's corpus_file mode with 2 workers, which scored higher than the straight line at the same "
            "speed; 1: the straight line of gensim's iterable mode and the C tool).",
        ),
    ] = None,
    vocab_size: Annotated[
        int | None, typer.Option("--vocab-size", metavar="N", help="lm: BPE pieces (default: 4000).")
    ] = None,
    tied: Annotated[
        bool | None, typer.Option("--tied/--untied", help="lm: the output head reads the token table, or has its own.")
    ] = None,
    init_from: Annotated[
        str | None,
        typer.Option(
            "--init-from",
            parser=path_text,
            metavar="TABLE",
            help="Start the table's rows from TABLE's rows of the same key (a built-in model such as minilm, a run "
            "folder, a .txt/.bin/.safetensors file; its width must be --dim); other rows keep the run's init.",
        ),
    ] = None,
    freeze: Annotated[
        bool | None,
        typer.Option(
            "--freeze",
            help="lm: keep the token table fixed (with --init-from: frozen pretrained; without: fixed random). "
            "Tied, the output head is the same table and stays fixed too.",
        ),
    ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run in --out from its checkpoint.")] = False,
    watch: Annotated[
        list[str] | None,
        typer.Option(
            "--watch", metavar="TOKEN", help="Record this token's row over the run; repeatable (default: a themed set)."
        ),
    ] = None,
    checkpoint_every: Annotated[
        float,
        typer.Option(
            "--checkpoint-every", metavar="SECONDS", help="Seconds between checkpoints: the most work a kill loses."
        ),
    ] = 60.0,
    evaluate: Annotated[
        bool, typer.Option("--evaluate/--no-evaluate", help="Score the table on WordSim, SimLex, Google.")
    ] = True,
    as_json: JsonFlag = False,
) -> None:
    """Train an embedding table on CORPUS into the folder --out.

    word2vec (sgns, cbow) learns word rows; lm trains a 2-layer causal transformer over BPE pieces
    and keeps its token table. The folder holds vectors.safetensors (+ vocab with counts),
    vectors.txt (word2vec text), update_counts.npy, snapshots of the --watch rows, metrics.json,
    and checkpoints while it runs. Query it with `embedlab neighbors DIR WORD`.

    With --subwords (fastText's and gensim FastText's model) the table holds each word's composed
    vector, and subwords.safetensors its word rows, n-gram bucket rows and bucket update counts
    (with --floret: the bucket rows and counts alone, and the hash count).

    Sizes are set against this machine's memory before anything is allocated: a --dim, --window
    or --vocab-size too large for it stops the run at once, with both figures.
    """
    from rich.console import Console

    from embedlab.train import run
    from embedlab.train.config import RunConfig
    from embedlab.train.distributed import Dist

    if method == "lm":
        refuse_inapplicable("--method lm", WORD2VEC_ONLY, "a transformer over BPE pieces in fixed windows")
    elif method is not None or not resume:  # a resumed run's method is the folder's, checked by RunConfig
        refuse_inapplicable(f"--method {method or 'sgns'}", LM_ONLY, "word2vec trains whole words, with no head")
    # every option named after a RunConfig setting is that setting; None leaves it to the default (or the run's)
    settings = {f.name for f in fields(RunConfig) if f.init}
    config = RunConfig(**{name: value for name, value in locals().items() if name in settings})
    dist = Dist.from_env(config.device)
    console = Console(stderr=True)
    quiet = as_json or not dist.main
    try:
        with _progress(console, quiet) as progress:
            task = progress.add_task(f"{config.method} on {config.corpus}", total=None, rate="", loss="")

            def on_progress(p: run.Progress) -> None:
                progress.update(task, completed=p.done, total=p.total,
                                rate=f"epoch {p.epoch + 1}/{p.epochs}  {p.rate:,.0f} {p.unit}/s",
                                loss="" if math.isnan(p.loss) else f"loss {p.loss:.3f}")  # fmt: skip

            result = run.train(
                config, out, resume=resume, watch=watch or (), checkpoint_every=checkpoint_every,
                evaluate=evaluate, on_progress=on_progress, dist=dist,
            )  # fmt: skip
    finally:
        dist.close()
    if not dist.main:
        return
    if as_json:
        typer.echo(json.dumps({"out": str(out), "status": result.status, "metrics": result.metrics}))
    else:
        _print_summary(result)


def _print_summary(result: RunResult) -> None:
    from rich.console import Console
    from rich.table import Table

    from embedlab.train.init_table import InitReport

    m = result.metrics
    unit = "pieces" if m["method"] == "lm" else "words"
    table = Table(title=f"{m['method']} on {m['corpus']}: {m['vocabulary']:,} rows × {m['dim']} -> {result.path}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row(f"{unit} trained", f"{m[unit]:,}")
    table.add_row(f"{unit}/s", f"{m[f'{unit}_per_second']:,.0f}" if m[f"{unit}_per_second"] else "-")
    table.add_row("seconds", f"{m['seconds']:.1f}")
    init = m.get("init")
    if init and (init["source"] is not None or init["frozen"]):
        if init["source"] is not None:
            table.add_row("init from", init["source"])
        table.add_row("table start", InitReport(**init).describe())
    if m.get("final_loss") is not None:
        table.add_row("training loss", f"{m['final_loss']:.4f}")
    for name in ("validation_loss", "perplexity", "parameters"):
        if name in m:
            table.add_row(name.replace("_", " "), f"{m[name]:,.4g}" if isinstance(m[name], float) else f"{m[name]:,}")
    for name, label in (("wordsim353", "WordSim-353 ρ"), ("simlex999", "SimLex-999 ρ")):
        r = (m.get("benchmarks") or {}).get(name)
        if r:
            table.add_row(label, f"{r['spearman']:.3f} ({r['pairs']} pairs, {r['oov_ratio']:.0f}% OOV)")
    google = (m.get("benchmarks") or {}).get("google")
    if google:
        table.add_row("Google analogies", f"{google['accuracy']:.1%} of {google['total']['total']:,}")
    Console().print(table)


def _progress(console: Console, quiet: bool) -> Progress:
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TextColumn("{task.fields[loss]}"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        disable=quiet or not console.is_terminal,  # bars only for a person at a terminal
        transient=True,
    )
