"""The table and figure of docs/arena.md's "Does a ViT need more data than a CNN?": the arena's small
ViT and a small CNN of about its size trained on the first 1K, 4K, 15K and 60K Fashion-MNIST images.

    python docs/vit_data_figures.py                       # all runs, figures/vit_data.png, a markdown table
    python docs/vit_data_figures.py --runs FILE.json      # where the runs are kept (a killed run resumes)

Each (model, size, seed) is trained for arena.data_scale.STEPS steps (embedlab.arena.data_scale) and
scored on the whole test split. The runs are written to --runs as each one ends, so the script picks
up where it stopped; delete the file to start again. About 35 minutes on the 2-core machine.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from embedlab.arena.data_scale import MODELS, SEEDS, SIZES, DataRun, data_run, data_table, lead_shrinks
from embedlab.files import atomic_write_text

OUT = Path(__file__).parent / "figures" / "vit_data.png"
LABELS = {"vit": "small ViT (4-px patches, D 64, 2 layers)", "cnn": "small CNN (3 convs: 32, 64, 128)"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=Path, default=Path("runs/vit_data.json"))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    done = [DataRun(**r) for r in json.loads(args.runs.read_text())] if args.runs.exists() else []
    have = {(r.model, r.n_train, r.seed) for r in done}
    for seed in SEEDS:  # every size at seed 0 first: a stopped run still has a whole curve
        for n in SIZES:
            for model in MODELS:
                if (model, n, seed) in have:
                    continue
                run = data_run(model, n, seed)
                done.append(run)
                args.runs.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(args.runs, json.dumps([asdict(r) for r in done], indent=1))
                print(f"{model} n {n:,} seed {seed}: test {run.accuracy:.4f}, train {run.train_accuracy:.4f}, "
                      f"{run.epochs:.1f} epochs, {run.seconds:.0f} s", flush=True)  # fmt: skip
    rows = data_table(done)
    draw(rows, args.out)
    first = {m: next(r for r in done if r.model == m) for m in MODELS}
    print(
        f"\nsteps {done[0].steps:,}; "
        + ", ".join(
            f"{m}: {r.params:,} parameters, {r.forward_flops / 1e6:.1f} MFLOPs a forward pass" for m, r in first.items()
        )
    )
    head = ("training images", "ViT test accuracy", "CNN test accuracy", "CNN's lead", "verdict", "pixels' regression")
    print("\n| " + " | ".join(head) + " |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        cells = [f"{row[m]['mean']:.3f} [{row[m]['interval'][0]:.3f}, {row[m]['interval'][1]:.3f}]"
                 for m in ("vit", "cnn", "cnn_lead")]  # fmt: skip
        print(f"| {row['n_train']:,} | " + " | ".join(cells) + f" | {row['verdict']} | {row['baseline']:.3f} |")
    print("\ntraining accuracy (mean over seeds): " + "; ".join(
        f"{n:,}: " + ", ".join(f"{m} {np.mean([r.train_accuracy for r in done if r.n_train == n and r.model == m]):.3f}"
                               for m in MODELS) for n in SIZES))  # fmt: skip
    print(f"the CNN's lead at {rows[0]['n_train']:,} exceeds its lead at {rows[-1]['n_train']:,}: {lead_shrinks(rows)}")


def draw(rows: list[dict], out: Path) -> None:
    """Test accuracy against training-set size (log axis) with each model's seed interval, and the
    pixels' logistic regression dashed beneath."""
    sizes = [row["n_train"] for row in rows]
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, model in enumerate(MODELS):
        means = np.array([row[model]["mean"] for row in rows])
        low = means - np.array([row[model]["interval"][0] for row in rows])
        high = np.array([row[model]["interval"][1] for row in rows]) - means
        ax.errorbar(sizes, means, yerr=[low, high], marker="o", capsize=4, color=f"C{i}", label=LABELS[model])
    ax.plot(sizes, [row["baseline"] for row in rows], "k--", lw=1, label="logistic regression on the pixels")
    ax.set_xscale("log")
    ax.set_xticks(sizes, [f"{n:,}" for n in sizes])
    ax.set(xlabel="training images (the first n of Fashion-MNIST's 60,000)", ylabel="test accuracy (10,000 images)")
    ax.set_title(f"Same steps at every size; 95% intervals over seeds {', '.join(map(str, rows[0]['seeds']))}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
