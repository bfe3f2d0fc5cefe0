"""The results files the docs' commands write (docs/results/*.json) are what the pages quote: each figure
below is formatted from the file at the page's rounding and looked up in the page's text.

docs/init_figures.py writes init_scale.json (docs/init_scale.md's table), docs/karate_figures.py writes
karate.json (docs/graphs.md's karate table, the README's Graph nodes figures, docs/lessons.md 000.16),
bench/w2v_gap.py writes w2v_gap.json (docs/benchmarks.md's subword gap table and speed ratios).
The karate spectral figures are also recomputed here (seconds), and held to the bar the page draws.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from embedlab.graphs import community_recovery, load_graph, spectral_embedding

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"


def _read(name: str) -> dict:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


def _page(path: str) -> str:
    return " ".join((ROOT / path).read_text(encoding="utf-8").split())  # line breaks as spaces


def test_init_scale_table_is_the_results_file():
    results = _read("init_scale.json")
    sweeps = results["sweeps"]
    page = _page("docs/init_scale.md")
    for i, run in enumerate(sweeps[0]["runs"]):
        cells = []
        for sweep in sweeps:
            r = sweep["runs"][i]
            loss = "inf" if r["final_loss"] is None else f"{r['final_loss']:.2f}"  # null: not finite
            cells.append(f"{loss} {r['verdict']}")
        assert f"| {run['sigma']:g} | " + " | ".join(cells) + " |" in page
    assert results["recorded"]["command"].startswith("python docs/init_figures.py")
    assert results["recorded"]["threads"] == 1  # the page's figures are one thread's


def test_the_unstable_cell_is_explained_with_its_swing():
    sgd_tied = next(s for s in _read("init_scale.json")["sweeps"] if s["optimizer"] == "sgd" and s["tied"])
    run = next(r for r in sgd_tied["runs"] if r["sigma"] == 10)
    last = run["losses"][-sgd_tied["final_window"] :]
    page = _page("docs/init_scale.md")
    assert f"between {math.floor(min(last))} and {math.ceil(max(last))}" in page
    assert f"this commit's code gives {run['final_loss']:.2f}" in page


def test_karate_figures_are_the_results_file():
    k = _read("karate.json")
    graphs, readme, lessons = _page("docs/graphs.md"), _page("README.md"), _page("docs/lessons.md")
    for name, row in [("deepwalk", "DeepWalk (p = q = 1)"), ("node2vec q 0.5", "node2vec p = 1, q = 0.5")]:
        assert f"{row}, embedlab | 1-5 | " + ", ".join(f"{v:.3f}" for v in k[name]["values"]) in graphs
    spectral = k["spectral 16"]
    values = ", ".join(f"{v:.3f}" for v in spectral["values"])
    assert f"| spectral, 16 dims | 1-5 | {values} (mean {spectral['mean']:.3f}) |" in graphs
    assert f"{min(spectral['ari']):.2f} to {max(spectral['ari']):.2f}".replace("-", "−") in graphs
    assert f"not one seed's {spectral['values'][0]:.3f}" in graphs
    walks = k["deepwalk"]
    assert f"accuracy {walks['min']:.3f}-{walks['max']:.3f} from 16-dim DeepWalk" in lessons
    assert f"{spectral['min']:.3f}-{spectral['max']:.3f} (mean {spectral['mean']:.3f})" in lessons
    assert "0.94-0.97 at 16 dimensions" in readme and f"{walks['min']:.2f}-{walks['max']:.2f}" == "0.94-0.97"
    assert (
        f"gets {spectral['min']:.2f}-{spectral['max']:.2f} over the same seeds (mean {spectral['mean']:.2f};" in readme
    )
    page = k["lab page"]
    assert (page["p"], page["q"], page["walks"], page["seed"]) == (1.0, 1.0, 1, 1)  # the README names these
    passes = " → ".join(f"{a:.2f}" for a in page["accuracy"])
    assert f"(p = q = 1, one walk per member, seed 1, one thread) accuracy goes {passes}" in readme
    assert f"spectral {page['spectral']['16']:.2f} at 16 dims with seed 1" in readme


def test_the_spectral_spread_is_below_the_walks_here_too():
    # the per-seed figures may differ on another machine (the solver's start, BLAS): the bar is what holds
    graph = load_graph("karate")
    found = [
        community_recovery(spectral_embedding(graph, 16, seed=s), graph.labels, seed=s).accuracy for s in range(1, 6)
    ]
    assert max(found) < 0.8 < min(_read("karate.json")["deepwalk"]["values"])
    assert all(a * 34 == pytest.approx(round(a * 34)) for a in found)  # members placed right, out of 34


def _spread(figure: dict, scale: float, spec: str) -> str:
    return f"{figure['mean'] * scale:{spec}} [{figure['min'] * scale:{spec}}, {figure['max'] * scale:{spec}}]"


def test_subword_gap_table_is_the_results_file():
    gap = _read("w2v_gap.json")
    page = _page("docs/benchmarks.md")
    for method, result in gap["methods"].items():
        for side, s in result["sides"].items():  # Spearman at 3 decimals, Google in % at 1
            cells = [_spread(s[k], 1, ".3f") for k in ("wordsim353", "simlex999", "rw")]
            cells.append(_spread(s["google"], 100, ".1f"))
            assert f"| {method} | {side} | {s['runs']} | " + " | ".join(cells) + f" | {s['wall']['mean']:.0f} |" in page
        if result["speed"] is not None:
            assert f"{method}: {result['speed']['median']:.2f}×" in page
