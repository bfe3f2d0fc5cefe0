"""`embedlab graph`: a graph's nodes as a table, by random walks and embedlab's skip-gram.

    embedlab graph karate --dim 16 --out karate.txt          # DeepWalk; `embedlab neighbors karate.txt 33`
    embedlab graph les-miserables --p 0.5 --q 2 --out lesmis.safetensors
    embedlab graph karate --dim 16 --evaluate                # k-means, classification, link AUC vs spectral
    embedlab graph planted --groups 10 --size 1000 --p-in 0.01 --p-out 0.0002 --dim 32 --evaluate --json

The library is `embedlab.graphs`; this module parses the options and prints the answer.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from embedlab.cli.choices import GRAPH_DIM, GRAPH_WINDOW, GRAPHS
from embedlab.cli.options import ForceFlag, JsonFlag, path_text, refuse_existing, refuse_inapplicable
from embedlab.errors import InvalidValueError

PLANTED = "planted"


def graph(
    graph: Annotated[str, typer.Argument(metavar="GRAPH", help=f"{' | '.join(GRAPHS)} | {PLANTED} (with --groups …).")],
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            "-o",
            parser=path_text,
            metavar="PATH",
            help="Write the node table here (format by extension: .txt, .safetensors, …; none: a projector folder).",
        ),
    ] = None,
    evaluate: Annotated[
        bool,
        typer.Option(
            "--evaluate",
            help="Score the vectors and a spectral embedding of the same width: communities, classification, link AUC.",
        ),
    ] = False,
    groups: Annotated[int | None, typer.Option("--groups", metavar="K", help="planted: blocks.")] = None,
    size: Annotated[int | None, typer.Option("--size", metavar="N", help="planted: nodes per block.")] = None,
    p_in: Annotated[
        float | None, typer.Option("--p-in", metavar="P", help="planted: edge chance inside a block.")
    ] = None,
    p_out: Annotated[float | None, typer.Option("--p-out", metavar="P", help="planted: edge chance across.")] = None,
    walks: Annotated[int, typer.Option("--walks", metavar="R", help="Walks started at each node.")] = 10,
    length: Annotated[int, typer.Option("--length", metavar="L", help="Nodes per walk.")] = 80,
    p: Annotated[float, typer.Option("--p", metavar="P", help="node2vec's return parameter (1: DeepWalk).")] = 1.0,
    q: Annotated[float, typer.Option("--q", metavar="Q", help="node2vec's in-out parameter (1: DeepWalk).")] = 1.0,
    dim: Annotated[int, typer.Option("--dim", metavar="D", help="Vector width.")] = GRAPH_DIM,
    window: Annotated[int, typer.Option("--window", metavar="W", help="Skip-gram context each side.")] = GRAPH_WINDOW,
    epochs: Annotated[int, typer.Option("--epochs", metavar="E", help="Passes over the walks.")] = 1,
    seed: Annotated[int, typer.Option("--seed", metavar="S", help="Seeds the walks and the training.")] = 1,
    threads: Annotated[int, typer.Option("--threads", metavar="T", help="CPU threads (1: reproducible).")] = 2,
    force: ForceFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Embed a graph's nodes by random walks and skip-gram.

    Node ids are the table's keys, so `embedlab neighbors`, `export` and the lab's projector take it.
    """
    planted = {"groups": groups, "size": size, "p_in": p_in, "p_out": p_out}
    if graph == PLANTED and None in planted.values():
        missing = ", ".join(f"--{k.replace('_', '-')}" for k, v in planted.items() if v is None)
        raise InvalidValueError(f"a planted graph needs {missing}")
    if graph != PLANTED:
        refuse_inapplicable(f"graph {graph}", planted, f"--groups, --size, --p-in and --p-out build a {PLANTED} graph")
    if out is None and not evaluate:
        raise InvalidValueError("nothing to do: add --out PATH to write the table, --evaluate to score it, or both")
    if out is not None:
        from embedlab.vectors.io import output_files

        refuse_existing(output_files(out), force)

    from embedlab.graphs import WalkConfig, embed_graph, load_graph, planted_partition, train_config

    g = planted_partition(**planted, seed=seed) if graph == PLANTED else load_graph(graph)
    walk = WalkConfig(walks_per_node=walks, length=length, p=p, q=q, seed=seed)
    config = train_config(dim=dim, window=window, epochs=epochs, seed=seed, threads=threads)
    answer: dict = {"graph": g.name, "nodes": g.nodes, "edges": g.edges, "walks": walk.__dict__, "dim": dim}
    if out is not None:
        written = embed_graph(g, walk, config).save(out, replace=force)  # exclusive unless --force
        answer["files"] = [str(path) for path in written]
    if evaluate:
        from embedlab.graphs.report import measure

        answer["report"] = measure(g, walk, config).to_dict()
    if as_json:
        typer.echo(json.dumps(answer))
        return
    _show(answer)


def _show(answer: dict) -> None:
    typer.echo(f"{answer['graph']}: {answer['nodes']:,} nodes, {answer['edges']:,} edges, dim {answer['dim']}")
    if "files" in answer:
        typer.echo(f"wrote {', '.join(answer['files'])}")
    report = answer.get("report")
    if report is None:
        return
    rows = [("k-means ARI", "ari"), ("k-means accuracy", "accuracy"), ("classification", "classification"),
            ("link AUC (10% held out)", "link_auc"), ("seconds", "seconds")]  # fmt: skip
    heading = f"spectral d={report['spectral_dim']}"
    typer.echo(f"{'':26}{'walks + skip-gram':>20}{heading:>16}")
    for label, key in rows:
        ours, spectral = report["ours"][key], report["spectral"][key]
        if ours is None:
            continue
        typer.echo(f"{label:26}{ours:>20.3f}{spectral:>16.3f}")
