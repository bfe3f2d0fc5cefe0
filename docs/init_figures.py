"""The figure and table of docs/init_scale.md: TinyLM's token table at σ = 1e-4 … 100, measured.

    python docs/init_figures.py                 # four sweeps (AdamW, SGD × untied, tied): figures/init_scale.png
    python docs/init_figures.py --out FILE.png  # the figure elsewhere
    python docs/init_figures.py --results F.json  # the figures elsewhere (default: docs/results/init_scale.json)

Each sweep is embedlab.sims.init_sweep.init_sweep at its defaults (60 steps of 16 × 64 bytes of
enwiki-sample, D 64, 2 layers, seed 0), on one thread: ~10 s each on a loaded 2-core machine. The
numbers the page quotes are printed as a markdown table and written, with every run's losses and norms,
to docs/results/init_scale.json, which tests/docs/test_results.py holds the pages to. An infinite final
loss is drawn at 10⁴ and written as null (JSON has no infinity).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import platform
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import torch

from embedlab.sims.init_sweep import InitSweep, init_sweep

OUT = Path(__file__).parent / "figures" / "init_scale.png"
RESULTS = Path(__file__).parent / "results" / "init_scale.json"
SETTINGS = [("adamw", False), ("adamw", True), ("sgd", False), ("sgd", True)]


def name(sweep: InitSweep) -> str:
    return f"{sweep.optimizer}, {'tied' if sweep.tied else 'untied'}"


def draw(sweeps: list[InitSweep], out: Path) -> None:
    """Top: norms at init against σ (untied head, the first sweep) and the final loss of every sweep;
    bottom: the first sweep's loss curves and the tied head's logits."""
    first = sweeps[0]
    sigmas = [r.sigma for r in first.runs]
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    ax = axes[0, 0]
    for i, layer in enumerate(first.activation_layers):
        ax.loglog(sigmas, [r.activation_norms[i] for r in first.runs], "o-", label=layer)
    ax.set(title="mean row length at init (untied head)", xlabel="σ of the token table")
    ax.legend(fontsize=8)
    ax = axes[0, 1]
    for i, layer in enumerate(first.gradient_layers):
        ax.loglog(sigmas, [r.gradient_norms[i] for r in first.runs], "o-", label=layer)
    ax.set(title="‖∂L/∂θ‖ of each layer at init (untied head)", xlabel="σ of the token table")
    ax.legend(fontsize=8)
    ax = axes[1, 0]
    for r in first.runs:
        ax.plot(r.losses, label=f"σ = {r.sigma:g}: {r.verdict}")
    ax.axhline(first.unigram_loss, color="grey", ls="--", lw=1, label=f"H₁ = {first.unigram_loss:.2f} (unigram)")
    ax.set(title=f"training loss, {name(first)}", xlabel="step", ylabel="nats")
    ax.legend(fontsize=8)
    ax = axes[1, 1]
    for sweep in sweeps:
        finals = [min(r.final_loss, 1e4) for r in sweep.runs]  # an infinite loss drawn at the top edge
        ax.loglog(sigmas, finals, "o-", label=name(sweep))
    ax.axhline(first.uniform_loss, color="black", ls=":", lw=1, label=f"ln V = {first.uniform_loss:.2f}")
    ax.axhline(first.unigram_loss, color="grey", ls="--", lw=1, label=f"H₁ = {first.unigram_loss:.2f}")
    ax.set(
        title=f"final loss (mean of the last {first.final_window} of {first.steps} steps)",
        xlabel="σ of the token table",
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)


def table(sweeps: list[InitSweep]) -> str:
    """σ -> final loss and verdict of each sweep, as markdown."""
    lines = ["| σ | " + " | ".join(name(s) for s in sweeps) + " |", "|---|" + "---|" * len(sweeps)]
    for i, r in enumerate(sweeps[0].runs):
        cells = [f"{s.runs[i].final_loss:.2f} {s.runs[i].verdict}" for s in sweeps]
        lines.append(f"| {r.sigma:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _finite(value):
    """Non-finite floats as None, in nested lists and dicts: JSON has no infinity or NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def results(sweeps: list[InitSweep]) -> dict:
    """Every sweep as its dataclass holds it, with how it was run (the page's figures are read from here)."""
    return {
        "recorded": {
            "command": "python " + " ".join(["docs/init_figures.py", *sys.argv[1:]]),
            "threads": torch.get_num_threads(),
            "torch": torch.__version__,
            "machine": platform.machine(),
        },
        "sweeps": [_finite(dataclasses.asdict(s)) for s in sweeps],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    # one thread: the machine is shared, and the page's figures were measured so (another thread count sums
    # floats in another order, and the final losses move by a few hundredths)
    torch.set_num_threads(1)
    sweeps = [init_sweep(optimizer=optimizer, tied=tied) for optimizer, tied in SETTINGS]
    draw(sweeps, args.out)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(results(sweeps), indent=1) + "\n", encoding="utf-8")
    print(table(sweeps))
    first = sweeps[0]
    print(f"\nH1 {first.unigram_loss:.3f}, ln V {first.uniform_loss:.3f}, {first.corpus_bytes} bytes")
    for sweep in sweeps:
        print(f"\n{name(sweep)} norms at init")
        for r in sweep.runs:
            acts = ", ".join(f"{n} {v:.3g}" for n, v in zip(sweep.activation_layers, r.activation_norms, strict=True))
            grads = ", ".join(f"{n} {v:.2g}" for n, v in zip(sweep.gradient_layers, r.gradient_norms, strict=True))
            print(f"σ {r.sigma:g}: start {r.losses[0]:.2f}; {acts}; grad {grads}")


if __name__ == "__main__":
    main()
