"""`embedlab distill` and `embedlab encode`: an encoder made static, and sentence vectors from either.

embedlab distill minilm --out m2v-minilm                 # 256 dims, float16, Model2Vec's folder
embedlab distill minilm --out recipe --pooling mean --weighting zipf   # Model2Vec's own recipe
embedlab distill minilm --out m2v-64 --dim 64 --weighting none --float32
embedlab distill minilm --out fitted --train enwiki-sample  # then fitted to the teacher's sentence vectors
embedlab distill minilm --out words --add-words 5000     # enwiki-sample's commonest split words, whole
embedlab encode m2v-minilm "the cat sat" "a dog lay" --json
embedlab encode minilm "the cat sat" "a dog lay"        # the teacher itself, for comparison
"""

from __future__ import annotations

import dataclasses
import json
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from embedlab.cli.options import ForceFlag, JsonFlag, path_text, refuse_inapplicable
from embedlab.cli.vectors import working


def distill(
    model: Annotated[
        str,
        typer.Argument(metavar="MODEL", parser=path_text, help="An encoder: minilm or a BERT folder."),
    ],
    out: Annotated[
        str,
        typer.Option("--out", "-o", parser=path_text, metavar="DIR", help="The folder to write."),
    ],
    dim: Annotated[int, typer.Option("--dim", metavar="D", help="Width after PCA: 1 to the encoder's width.")] = 256,
    pooling: Annotated[
        str, typer.Option("--pooling", metavar="NAME", help="token+input, token, or mean (Model2Vec's).")
    ] = "token+input",
    weighting: Annotated[
        str,
        typer.Option(
            "--weighting",
            metavar="NAME",
            help="SIF weights from counts of --counts-corpus, zipf (Model2Vec's: by token rank), or none.",
        ),
    ] = "counts",
    sif: Annotated[float, typer.Option("--sif", metavar="A", help="The SIF coefficient, in (0, 1).")] = 1e-4,
    counts_corpus: Annotated[
        str,
        typer.Option(
            "--counts-corpus", parser=path_text, metavar="CORPUS", help="What --weighting counts reads: a name or file."
        ),
    ] = "enwiki-sample",
    add_words: Annotated[
        int,
        typer.Option(
            "--add-words", metavar="N", help="Add the N commonest words of --words-from that MODEL splits, whole."
        ),
    ] = 0,
    words_from: Annotated[
        str,
        typer.Option(
            "--words-from",
            parser=path_text,
            metavar="CORPUS",
            help="Where --add-words counts words: a name or a file (a word list keeps its order).",
        ),
    ] = "enwiki-sample",
    train: Annotated[
        str | None,
        typer.Option(
            "--train",
            parser=path_text,
            metavar="CORPUS",
            help="Then fit the rows to the teacher's vectors of its sentences: gcide, enwiki-sample or a file.",
        ),
    ] = None,
    texts: Annotated[
        int, typer.Option("--texts", metavar="N", help="Sentences of --train the teacher reads (~90 a second).")
    ] = 20_000,
    epochs: Annotated[int, typer.Option("--epochs", metavar="N", help="Passes of the fit over them.")] = 20,
    float32: Annotated[bool, typer.Option("--float32", help="Store float32 rows (default: float16).")] = False,
    force: ForceFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Distil an encoder into a static sentence model.

    Every token of MODEL's vocabulary goes through the encoder alone; the outputs are reduced by PCA
    to --dim and weighted by SIF, and saved as Model2Vec's folder (model2vec and sentence-transformers
    load it). A sentence is then the mean of its pieces' rows: no attention, a lookup and a sum.
    With --add-words, the commonest words of a corpus that MODEL reads as several pieces join the
    vocabulary whole, each row the encoder's output over all of its pieces. With --train, the teacher
    then reads --texts sentences of a corpus (kept in the cache: a run cut short resumes) and the rows
    are fitted to its sentence vectors.
    """
    from embedlab.errors import InvalidValueError, check_int
    from embedlab.train.distill import distill as run

    folder = Path(out)
    if weighting == "none":
        refuse_inapplicable("--weighting none", ["sif"], "no row is weighted")
    if weighting != "counts":
        refuse_inapplicable(f"--weighting {weighting}", ["counts_corpus"], "nothing is counted")
    if train is None:
        refuse_inapplicable("a distillation without --train", ["texts", "epochs"], "nothing is fitted")
    check_int("--add-words", add_words, low=0)
    if add_words == 0:
        refuse_inapplicable("a distillation without --add-words", ["words_from"], "no word is added")
    check_int("--texts", texts, low=20)  # the fit holds out every 10th text: 2 held out at least
    check_int("--epochs", epochs, low=1)
    # refused before the encoder runs (half a minute), as StaticModel.save would refuse them after it
    if folder.exists() and not folder.is_dir():
        raise InvalidValueError(f"{folder} is a file; --out names the folder to write")
    if not force and folder.is_dir() and any(folder.iterdir()):
        raise InvalidValueError(f"{folder} already exists; add --force to replace it")
    fit_texts = _fit_texts(train, texts)  # a bad corpus is refused before the encoder runs
    words = _words(model, words_from, add_words)
    with _progress(as_json) as stage:
        static = run(model, dim=dim, pooling=pooling, weighting=weighting, sif=sif, corpus=counts_corpus,
                     float16=not float32, words=words, progress=stage("tokens through the encoder"))  # fmt: skip
        if add_words:
            static.config["words_from"] = words_from
        if fit_texts is not None:
            from embedlab.models.encoder import Encoder
            from embedlab.train.static_fit import fit_table, teacher_targets

            targets = teacher_targets(Encoder.load(model), fit_texts, progress=stage("sentences through the teacher"))
            static, report = fit_table(static, fit_texts, targets, epochs=epochs, progress=stage("fitting the rows"))
            static.config["fit"] = {"corpus": train, **dataclasses.asdict(report)}
    static.save(folder, force=force)
    size = sum(p.stat().st_size for p in folder.iterdir())
    summary = {"model": model, "out": str(folder), "rows": len(static.rows), "dim": static.dim,
               "dtype": str(static.rows.dtype), "bytes": size, **static.config}  # fmt: skip
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        # what was added, which is fewer than asked when the corpus runs out of words the teacher splits
        added = f", {summary['added_words']:,} of them words added" if add_words else ""
        typer.echo(
            f"{folder}: {summary['rows']:,} rows × {static.dim} ({summary['dtype']}){added}, {size / 1e6:.1f} MB"
        )


def encode(
    model: Annotated[
        str, typer.Argument(metavar="MODEL", parser=path_text, help="A static model folder, or an encoder (minilm).")
    ],
    texts: Annotated[list[str], typer.Argument(metavar="TEXT...", help="The texts to encode.")],
    dims: Annotated[int, typer.Option("--dims", metavar="N", help="Leading coordinates to print.")] = 4,
    as_json: JsonFlag = False,
) -> None:
    """Sentence vectors of texts, and their cosine similarities.

    A static model (`embedlab distill`'s, or Model2Vec's) averages its pieces' rows; an encoder
    runs every layer and mean-pools its last one, as all-MiniLM-L6-v2 does.
    """
    import numpy as np

    from embedlab.errors import check_int
    from embedlab.vectors.similarity import unit_rows

    check_int("--dims", dims, low=0)
    with working(f"encoding with {model}", as_json):
        vectors = _encoder(model)(list(texts))
    unit = unit_rows(vectors)
    similarity = unit @ unit.T
    if as_json:
        typer.echo(json.dumps({"model": model, "dim": vectors.shape[1], "texts": texts,
                               "vectors": vectors.tolist(), "similarity": similarity.tolist()}))  # fmt: skip
        return
    for text, row in zip(texts, vectors, strict=True):
        lead = " ".join(f"{x:+.3f}" for x in row[:dims])
        typer.echo(f"{text!r}: norm {np.linalg.norm(row):.3f}  [{lead}{' …' if dims < len(row) else ''}]")
    if len(texts) > 1:
        typer.echo("cosine similarity:")
        for i, text in enumerate(texts):
            typer.echo("  " + " ".join(f"{s:+.3f}" for s in similarity[i]) + f"  {text!r}")


def _encoder(model: str):
    """MODEL -> texts -> (N, D): a static model folder's encode, else the encoder's mean pooling."""
    from embedlab.vectors.static import StaticModel, is_static_folder

    if is_static_folder(model):
        return StaticModel.load(model).encode
    from embedlab.models.encoder import Encoder

    return Encoder.load(model).sentence_vectors


def _fit_texts(corpus: str | None, count: int) -> list[str] | None:
    """The sentences --train fits on, or None without --train."""
    if corpus is None:
        return None
    from embedlab.train.static_fit import training_texts

    return training_texts(corpus, count)


def _words(model: str, corpus: str, count: int) -> list[str]:
    """The words --add-words adds: the commonest of `corpus` that the teacher splits (none for 0)."""
    if count == 0:
        return []
    from embedlab.data.corpora import open_corpus
    from embedlab.data.models import resolve_model
    from embedlab.models.pretrained import load_tokenizer
    from embedlab.train.distill_vocabulary import frequent_words

    return frequent_words(load_tokenizer(resolve_model(model)), open_corpus(corpus), count)


@contextmanager
def _progress(quiet: bool):
    """Bars on stderr, one a stage (a terminal only, never with --json): yields stage(description) ->
    advance(n), or -> None."""
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield lambda description: None
        return
    with Progress(console=console, transient=True) as bar:

        def stage(description: str):
            task = bar.add_task(description, total=None)
            return lambda n: bar.update(task, advance=n)

        yield stage
