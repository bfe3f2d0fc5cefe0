"""The race's pictures, drawn with matplotlib from its summary (runner.Race.summary):

TASK.png     one bar per strategy for the task's headline metric, the seeds' spread as an error
             bar, "n/a" where the task does not apply (never a zero-height bar)
curves.png   held-out bits per byte (text) and test accuracy (images) against training FLOPs

and the budget sweep's (arena/sweep.py), from its summary:

sweep.png    held-out bits per byte against training FLOPs (log axis), a line per text strategy,
             a panel per body width

arena/redraw.py draws them again from a race's or a sweep's results.json, training nothing.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display on a server or in CI
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import matplotlib.ticker  # noqa: E402

from embedlab.files import atomic_writer  # noqa: E402


def draw(summary: dict, folder: Path) -> list[Path]:
    """Write every figure of `summary` into `folder`; -> the paths written."""
    labels = {s["name"]: s["label"] for s in summary["strategies"]}
    written = [_bars(summary, task, labels, folder / f"{task}.png") for task in summary["tasks"]]
    written.append(_curves(summary, labels, folder / "curves.png"))
    return written


def _bars(summary: dict, task: str, labels: dict[str, str], path: Path) -> Path:
    rows = [r for r in summary["results"] if r["task"] == task]
    headline = next((r["metric"] for r in rows if r["applicable"]), rows[0]["metric"])  # not applicable: 1 row
    rows = [r for r in rows if r["metric"] == headline]
    fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
    for i, r in enumerate(rows):
        if r["value"] is None:  # not applicable, or not measured: a word, never a bar
            ax.text(i, 0, "n/a" if not r["applicable"] else "not measured", ha="center", va="bottom", color="0.45")
            continue
        low, high = r["spread"]
        ax.bar(i, r["value"], color="#2f6fde", yerr=[[r["value"] - low], [high - r["value"]]], capsize=4)
        ax.text(i, r["value"], f" {r['value']:.3g}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(rows)), [labels[r["strategy"]] for r in rows], rotation=20, ha="right")
    unit = next((r["unit"] for r in rows if r["applicable"]), "")
    better = next((r["better"] for r in rows if r["applicable"]), "")
    ax.set_ylabel(f"{headline} ({unit})")
    ax.set_title(f"{task}: {headline}, {better} is better ({summary['budget']['name']} race)")
    if task == "cost":
        ax.set_yscale("log")
    return _save(fig, path)


def _curves(summary: dict, labels: dict[str, str], path: Path) -> Path:
    panels = {"text": ("held-out bits per byte", "bits/byte"), "image": ("Fashion-MNIST test accuracy", "accuracy")}
    kinds = [kind for kind in panels if any(r.get("curve") and _kind(r) == kind for r in summary["runs"])]
    fig, axes = plt.subplots(1, max(len(kinds), 1), figsize=(5 * max(len(kinds), 1), 3.6), layout="constrained",
                             squeeze=False)  # fmt: skip
    for ax, kind in zip(axes[0], kinds, strict=False):
        for run in summary["runs"]:
            if run.get("curve") and _kind(run) == kind:
                flops, values = zip(*run["curve"], strict=True)
                ax.plot(flops, values, marker=".", label=f"{labels[run['strategy']]} (seed {run['seed']})")
        title, unit = panels[kind]
        ax.set(title=title, xlabel="training FLOPs", ylabel=unit)
        ax.legend(fontsize=7)
    return _save(fig, path)


def draw_sweep(summary: dict, folder: Path) -> Path:
    """Write the sweep's figure into `folder`; -> its path."""
    labels = {s["name"]: s["label"] for s in summary["strategies"]}
    widths = summary["plan"]["widths"]
    fig, axes = plt.subplots(1, len(widths), figsize=(5 * len(widths), 3.8), layout="constrained", sharey=True,
                             squeeze=False)  # fmt: skip
    for ax, width in zip(axes[0], widths, strict=True):
        points = [p for p in summary["points"] if p["width"] == width]
        for name, label in labels.items():
            xy = [(r["train_flops"], r["bits_per_byte"]) for p in points for r in p["strategies"]
                  if r["strategy"] == name and r["bits_per_byte"] is not None]  # fmt: skip
            if xy:
                ax.plot(*zip(*xy, strict=True), marker="o", label=label)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # 3×10¹¹ beside 4×10¹¹ would overlap
        ax.set(title=f"body width d = {width}", xlabel="training FLOPs", ylabel="held-out bits per byte")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    seeds = summary["plan"]["seeds"]
    named = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {', '.join(map(str, seeds))}"
    fig.suptitle(f"The {summary['plan']['name']} sweep on {summary['corpus']} ({named}): lower is better")
    return _save(fig, folder / "sweep.png")


def _kind(run: dict) -> str:
    return "image" if "accuracy" in run else "text"


def _save(fig, path: Path) -> Path:
    with atomic_writer(path, "wb") as f:
        fig.savefig(f, format="png", dpi=110)
    plt.close(fig)
    return path
