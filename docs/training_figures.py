"""The figures and tables of docs/training.md, from real training runs.

    python docs/training_figures.py                   # train (or reuse) every run, draw docs/figures/training_*.png
    python docs/training_figures.py --work DIR        # where the runs are cached (default /tmp/embedlab-figures)
    python docs/training_figures.py --quick           # smoke run: corpus slices, small settings, ~2 minutes

The runs, each cached in its own folder under --work (a rerun whose settings match only redraws):

    sgns-d{2,8,32,100,300}   sgns on gcide, 5 epochs, 2 threads, other settings default; the dim-100
                             run also watches the themed words of embedlab.data.themes (sections 1
                             and 2 read it; a cached run that watched other words is trained anew)
    lm-tied, lm-untied       a 2-layer causal LM on enwiki-sample, dim 64, 4 heads, context 64,
                             2,000 BPE pieces, 2 epochs; tied and untied output head

On 2 CPU cores shared with other jobs the set trained in 15 minutes (load average ~3: sgns 7.5,
lm 8) to 25 minutes (load ~6: sgns 12, lm 14); a redraw takes under 10 seconds. The numbers the
page quotes are printed as markdown tables.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from itertools import islice
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import torch
from safetensors import safe_open

from embedlab.data.benchmarks import benchmark_path
from embedlab.data.corpora import open_corpus
from embedlab.data.themes import COLOURS, THEMES
from embedlab.models.lm import LMConfig, TinyLM
from embedlab.train.config import RunConfig
from embedlab.train.corpus import count_words
from embedlab.train.run import train
from embedlab.train.tables import init_tables
from embedlab.vectors import Vectors
from embedlab.vectors.io.benchmarks import read_pairs
from embedlab.vectors.projection import pca_2d
from embedlab.vectors.scoring import folded_vocab
from embedlab.vectors.stats import spearman

QUERIES = ["january", "king", "france", "two", "red", "horse"]  # section 1's neighbour table
FRACTIONS = (0.0, 0.1, 0.5, 1.0)  # the snapshots drawn in section 1, as shares of the run
BANDS = (5_000, 1_000, 0)  # section 2: floors of update-count bands for the rarer word of a pair
FULL = {"gcide": "gcide", "wiki": "enwiki-sample", "dims": (2, 8, 32, 100, 300), "main": 100, "epochs": 5,
        "lm": {"dim": 64, "heads": 4, "context": 64, "vocab_size": 2000, "epochs": 2}}  # fmt: skip
QUICK = {"dims": (2, 16), "main": 16, "epochs": 1,
         "lm": {"dim": 32, "heads": 4, "context": 32, "vocab_size": 512, "epochs": 2}}  # fmt: skip


def trained(folder: Path, config: RunConfig, watch: list[str] | None = None) -> Path:
    """The finished run of `config` in `folder`: reused when its settings match, else trained anew."""
    if (folder / "metrics.json").is_file() and (folder / "figures.json").is_file():
        same_config = json.loads((folder / "run.json").read_text())["config"] == config.to_dict()
        same_watch = json.loads((folder / "figures.json").read_text()).get("watch", []) == list(watch or ())
        if same_config and same_watch:
            return folder
    shutil.rmtree(folder, ignore_errors=True)
    steps = Recorder()
    start = time.perf_counter()
    train(config, folder, watch=watch or (), on_progress=steps)
    wall = time.perf_counter() - start
    record = {"wall_seconds": wall, "per_cpu_second": steps.per_cpu_second(), "step_losses": steps.losses,
              "watch": list(watch or ())}  # fmt: skip
    (folder / "figures.json").write_text(json.dumps(record))
    print(f"trained {folder.name} in {wall:.0f} s")
    return folder


class Recorder:
    """on_progress hook: each step's training loss, recovered from the running epoch mean reported, and
    the process's CPU time over the steps (a speed that other jobs on the machine barely change)."""

    def __init__(self) -> None:
        self.losses: list[float] = []  # one per step, all epochs
        self._epoch, self._steps, self._mean = -1, 0, 0.0
        self.marks: list[tuple[int, float]] = []  # (units done, CPU seconds) at the first and last step

    def per_cpu_second(self) -> float:
        """Words (or pieces) trained per CPU second of the process, all threads, from step 1 to the end."""
        (done0, cpu0), (done1, cpu1) = self.marks[0], self.marks[-1]
        return (done1 - done0) / (cpu1 - cpu0) if cpu1 > cpu0 else float("nan")

    def __call__(self, progress) -> None:
        self.marks[1:] = []
        self.marks.append((progress.done, time.process_time()))
        if progress.epoch != self._epoch:
            self._epoch, self._steps, self._mean = progress.epoch, 0, 0.0
        self._steps += 1
        self.losses.append(self._steps * progress.loss - (self._steps - 1) * self._mean)
        self._mean = progress.loss


def metrics(run: Path) -> dict:
    """The run's metrics.json: speed, loss, benchmarks (and for lm: validation loss, parameters, history)."""
    return json.loads((run / "metrics.json").read_text())


def initial_table(run: Path) -> Vectors:
    """The run's embedding before its first step, rebuilt from its seed: the same rows snapshot 0 holds."""
    keys = Vectors.load(run).index_to_key
    config = json.loads((run / "run.json").read_text())["config"]
    return Vectors(keys, init_tables(len(keys), config["dim"], config["seed"])[0])


def lm_initial_table(run: Path) -> np.ndarray:
    """(V, D) the LM's token table before training, rebuilt as LMJob builds it: seed torch, make the model."""
    c = json.loads((run / "run.json").read_text())["config"]
    torch.manual_seed(c["seed"])
    lm = LMConfig(len(Vectors.load(run)), c["dim"], c["layers"], c["heads"], c["context"], c["tied"])
    return TinyLM(lm).token_table.detach().numpy()


def md_table(header: list[str], rows: list[list]) -> None:
    """Print a markdown table, floats to 3 decimals: what docs/training.md quotes."""
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(f"{v:.3f}" if isinstance(v, (float, np.floating)) else str(v) for v in row) + " |")
    print()


def neighbours_and_clusters(run: Path, figures: Path) -> None:
    """Section 1: top-5 neighbours before and after; PCA of the watched rows at a few snapshots."""
    before, after = initial_table(run), Vectors.load(run)
    shown = lambda n: ", ".join(f"{k} ({s:.2f})" for k, s in n)  # noqa: E731
    md_table(["word", "random initial table", "after training"],
             [[w, shown(before.most_similar(w, topn=5)), shown(after.most_similar(w, topn=5))]
              for w in QUERIES if w in after])  # fmt: skip
    with safe_open(run / "snapshots.safetensors", "np") as f:
        rows, done, tokens = f.get_tensor("vectors"), f.get_tensor("words"), json.loads(f.metadata()["tokens"])
        ids = f.get_tensor("ids")
    assert np.array_equal(rows[0], before.vectors[ids]), "snapshot 0 is not init_tables' table"
    theme = np.array([next(i for i, ws in enumerate(THEMES.values()) if t in ws) for t in tokens])
    fig, axes = plt.subplots(2, 2, figsize=(11, 10))
    for ax, fraction in zip(axes.flat, FRACTIONS, strict=True):
        s = int(np.argmin(np.abs(done - fraction * done[-1])))
        xy, (r1, r2) = pca_2d(rows[s])
        for i, name in enumerate(THEMES):
            pick = theme == i
            ax.scatter(xy[pick, 0], xy[pick, 1], s=30, color=COLOURS[name], label=name)  # the lab's colours
        for (x, y), token in zip(xy, tokens, strict=True):
            ax.annotate(token, (x, y), fontsize=8, xytext=(3, 2), textcoords="offset points")
        ax.set_title(f"{done[s] / done[-1]:.0%} of training ({done[s] / 1e6:.1f}M words); PC1 {r1:.0%}, PC2 {r2:.0%}")
        ax.set_xticks([]), ax.set_yticks([])
    axes[0, 0].legend(loc="best", fontsize=9)
    fig.suptitle(
        f"Watched rows of sgns on gcide (D = {rows.shape[2]}): each panel a PCA of its {len(tokens)} rows, centred"
    )
    save(fig, figures / "training_pca.png")
    # Clustering in the full space: mean cosine within vs between themes, and nearest-neighbour purity.
    unit = rows / np.linalg.norm(rows, axis=2, keepdims=True)  # (S, W, D)
    cos = np.einsum("swd,svd->swv", unit, unit)  # (S, W, W)
    same, off = theme[:, None] == theme[None, :], ~np.eye(len(theme), dtype=bool)
    within, between = cos[:, same & off].mean(axis=1), cos[:, ~same].mean(axis=1)
    nearest = np.where(off, cos, -np.inf).argmax(axis=2)  # (S, W) the closest other watched word
    purity = (theme[nearest] == theme).mean(axis=1)
    share = done / done[-1] * 100
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.plot(share, within, label="same theme"), a.plot(share, between, label="different themes")
    a.set(xlabel="% of training", ylabel="mean cosine", title=f"Cosine between watched words (D = {rows.shape[2]})")
    chance = (same & off).sum() / off.sum()  # a random other watched word shares the theme
    b.plot(share, purity, color="C2"), b.axhline(chance, color="grey", ls="--", label=f"chance ({chance:.0%})")
    b.set(xlabel="% of training", ylabel="share", ylim=(0, 1.02), title="Nearest watched word is of the same theme")
    a.legend(), b.legend()
    save(fig, figures / "training_separation.png")
    picks = [int(np.argmin(np.abs(done - f * done[-1]))) for f in FRACTIONS]
    md_table(["snapshot", "words trained", "cos same theme", "cos other themes", "NN same theme"],
             [[f"{share[s]:.0f}%", f"{done[s]:,}", within[s], between[s], f"{purity[s]:.0%}"]
              for s in picks])  # fmt: skip


def updates_vs_quality(run: Path, figures: Path) -> None:
    """Section 2: how far each row moved for its update count; benchmark pairs by the rarer word's count."""
    before, after = initial_table(run), Vectors.load(run)
    counts = np.load(run / "update_counts.npy")  # (V,)
    e0, e1 = before.vectors, after.vectors
    moved = np.linalg.norm(e1 - e0, axis=1) / np.linalg.norm(e0, axis=1)
    kept = (e1 * e0).sum(1) / (np.linalg.norm(e1, axis=1) * np.linalg.norm(e0, axis=1))  # cos(row, init)
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, y, label, scale in ((a, moved, "‖row − init‖ / ‖init‖", "log"), (b, kept, "cos(row, init)", "linear")):
        hb = ax.hexbin(np.maximum(counts, 1), y, xscale="log", yscale=scale, gridsize=45, bins="log", cmap="viridis")
        ax.set(xlabel="updates the row received (log)", ylabel=label)
        fig.colorbar(hb, ax=ax, label="rows (log)")
    a.set_title("Distance moved from the initial row")
    b.set_title("Direction kept from the initial row")
    save(fig, figures / "training_updates.png")
    decades = np.floor(np.log10(np.maximum(counts, 1))).astype(int)
    md_table(["updates", "rows", "median ‖row − init‖/‖init‖", "median cos(row, init)", "median corpus count"],
             [[f"10^{d}–10^{d + 1}", int((decades == d).sum()), float(np.median(moved[decades == d])),
               float(np.median(kept[decades == d])), int(np.median(after.counts[decades == d]))]
              for d in np.unique(decades)])  # fmt: skip
    vocab = folded_vocab(after.index_to_key, 300_000)
    unit = e1 / np.linalg.norm(e1, axis=1, keepdims=True)
    floors, table, bars = [*BANDS], [], {}
    names = [f"≥ {f:,}" if i == 0 else f"{f:,}–{floors[i - 1]:,}" for i, f in enumerate(floors)]
    for bench, title in (("wordsim353", "WordSim-353"), ("simlex999", "SimLex-999")):
        pairs = [(vocab[a.upper()], vocab[b.upper()], s) for a, b, s in read_pairs(benchmark_path(bench))
                 if a.upper() in vocab and b.upper() in vocab]  # fmt: skip
        rarer = np.array([min(counts[i], counts[j]) for i, j, _ in pairs])
        cosine = np.array([unit[i] @ unit[j] for i, j, _ in pairs])
        gold = np.array([s for _, _, s in pairs])
        band = np.array([next(k for k, f in enumerate(floors) if c >= f) for c in rarer])
        n = [int((band == k).sum()) for k in range(len(floors))]
        rho = [spearman(gold[band == k], cosine[band == k]) if n[k] > 2 else np.nan for k in range(len(floors))]
        bars[title] = (rho, n)
        table += [[title, name, n[k], rho[k]] for k, name in enumerate(names)]
        table.append([title, "all (as metrics.json)", len(pairs), spearman(gold, cosine)])
    md_table(["benchmark", "updates of the rarer word", "pairs", "Spearman"], table)
    fig, ax = plt.subplots(figsize=(8, 4))
    for k, (title, (rho, n)) in enumerate(bars.items()):
        x = np.arange(len(names)) + (k - 0.5) * 0.38
        ax.bar(x, rho, width=0.36, color=f"C{k}", label=title)
        for xi, r, ni in zip(x, rho, n, strict=True):
            ax.annotate(f"n={ni}", (xi, max(r, 0)), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(np.arange(len(names)), [f"{nm} updates" for nm in names])
    ax.set(
        ylabel="Spearman (cosine vs human)", title=f"Pairs grouped by the rarer word's update count (D = {e1.shape[1]})"
    )
    ax.axhline(0, color="black", lw=0.8), ax.legend()
    save(fig, figures / "training_bands.png")


def dimension_sweep(runs: dict[int, Path], figures: Path) -> None:
    """Section 3: benchmarks and speed against the embedding width D."""
    m = {d: metrics(r) for d, r in runs.items()}
    dims = sorted(m)
    score = {
        "WordSim-353 Spearman": [m[d]["benchmarks"]["wordsim353"]["spearman"] for d in dims],
        "SimLex-999 Spearman": [m[d]["benchmarks"]["simlex999"]["spearman"] for d in dims],
        "Google analogy accuracy": [m[d]["benchmarks"]["google"]["accuracy"] for d in dims],
    }
    speed = [m[d]["words_per_second"] for d in dims]
    per_cpu = [json.loads((runs[d] / "figures.json").read_text()).get("per_cpu_second", np.nan) for d in dims]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for label, ys in score.items():
        a.plot(dims, ys, marker="o", label=label)
    a.set(xscale="log", xlabel="dimension D (log)", ylabel="score", title="Quality against dimension")
    b.plot(dims, speed, marker="o", color="C3", label="words per second (wall clock)")
    b.plot(dims, per_cpu, marker="s", color="C4", label="words per CPU second (both threads)")
    b.set(xscale="log", xlabel="dimension D (log)", ylabel="words", ylim=(0, None), title="Speed, 2 threads")
    for ax in (a, b):
        ax.set_xticks(dims, [str(d) for d in dims]), ax.grid(alpha=0.3), ax.legend()
    save(fig, figures / "training_dims.png")
    google = m[dims[0]]["benchmarks"]["google"]["total"]["total"]
    wall = [json.loads((runs[d] / "figures.json").read_text())["wall_seconds"] for d in dims]
    header = ["D", "WordSim-353", "SimLex-999", f"Google of {google:,}", "words/s", "words/CPU s", "train s", "wall s"]
    md_table(header,
             [[d, *[v[i] for v in score.values()], f"{speed[i]:,.0f}", f"{per_cpu[i]:,.0f}",
               f"{m[d]['seconds']:.0f}", f"{wall[i]:.0f}"] for i, d in enumerate(dims)])  # fmt: skip


def tied_vs_untied(runs: dict[str, Path], figures: Path) -> None:
    """Section 4: validation loss per epoch, parameters, perplexity of a tied and an untied LM."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    rows = []
    for k, (name, run) in enumerate(runs.items()):
        m, steps = metrics(run), json.loads((run / "figures.json").read_text())["step_losses"]
        per_epoch = len(steps) / len(m["history"])
        smooth = np.convolve(steps, np.ones(50) / 50, mode="valid")  # a 50-step moving mean, drawn at its last step
        ax.plot((np.arange(len(smooth)) + 50) / per_epoch, smooth, color=f"C{k}", alpha=0.6, label=f"{name}: training")
        epochs = [h["epoch"] + 1 for h in m["history"]]
        ax.plot(epochs, [h["validation_loss"] for h in m["history"]], "o-", color=f"C{k}", label=f"{name}: validation")
        init, table, counts = lm_initial_table(run), Vectors.load(run).vectors, np.load(run / "update_counts.npy")
        with safe_open(run / "snapshots.safetensors", "np") as f:
            assert np.array_equal(f.get_tensor("vectors")[0], init[f.get_tensor("ids")]), "LM init not rebuilt"
        unused = counts == 0  # pieces never an input in training: no gradient through the lookup
        change = np.abs(table - init).max(axis=1)  # (V,) largest change of any coordinate
        rows.append([name, f"{m['parameters']:,}", f"{m['embedding_parameters']:,}", m["validation_loss"],
                     f"{m['perplexity']:.1f}", m["unigram_loss"], int(unused.sum()), f"{change[unused].max():.2g}",
                     f"{np.median(change[~unused]):.2g}", f"{m['seconds']:.0f}"])  # fmt: skip
    ax.axhline(m["unigram_loss"], color="grey", ls="--", label="unigram baseline")
    ax.set(xlabel="epoch", ylabel="cross-entropy (nats per piece)", title="Tied vs untied LM on enwiki-sample")
    ax.set_ylim(top=m["unigram_loss"] + 0.8), ax.grid(alpha=0.3), ax.legend(fontsize=9)
    save(fig, figures / "training_lm.png")
    md_table(["head", "parameters", "token table", "val loss", "perplexity", "unigram loss", "rows never input",
              "their max change", "median change, used rows", "train s"], rows)  # fmt: skip
    t, u = (metrics(r) for r in runs.values())
    V, D = len(Vectors.load(runs["untied"])), json.loads((runs["untied"] / "run.json").read_text())["config"]["dim"]
    print(f"untied - tied parameters = {u['parameters'] - t['parameters']:,}; V*D = {V} * {D} = {V * D:,}\n")


def save(fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=100, pil_kwargs={"optimize": True})
    plt.close(fig)
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KB)\n")


def corpus_slice(name: str, lines: int, path: Path) -> str:
    """--quick: the first `lines` lines of a built-in corpus, as a text file -> its path."""
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(islice(open_corpus(name), lines)) + "\n")
    return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/embedlab-figures"), help="run cache folder")
    parser.add_argument("--quick", action="store_true", help="small settings; figures go under WORK/quick")
    args = parser.parse_args()
    work, figures = args.work, Path(__file__).parent / "figures"
    s = dict(FULL)
    if args.quick:
        work, figures = work / "quick", work / "quick" / "figures"
        s.update(QUICK, gcide=corpus_slice("gcide", 20_000, work / "gcide.txt"),
                 wiki=corpus_slice("enwiki-sample", 1_000, work / "wiki.txt"))  # fmt: skip
    figures.mkdir(parents=True, exist_ok=True)
    plt.switch_backend("Agg")  # files only, no display
    known = count_words(open_corpus(s["gcide"])) if args.quick else None
    watch = [w for ws in THEMES.values() for w in ws if known is None or known[w] >= 5]  # min_count 5
    sgns = {}
    for d in s["dims"]:
        # the straight line (epoch_decay 1): the schedule training.md's figures were measured on
        config = RunConfig(corpus=s["gcide"], method="sgns", dim=d, epochs=s["epochs"], threads=2, epoch_decay=1.0)
        sgns[d] = trained(work / f"sgns-d{d}", config, watch if d == s["main"] else None)
    lm = {}
    for name in ("tied", "untied"):
        config = RunConfig(corpus=s["wiki"], method="lm", tied=name == "tied", threads=2, **s["lm"])
        lm[name] = trained(work / f"lm-{name}", config)
    neighbours_and_clusters(sgns[s["main"]], figures)
    updates_vs_quality(sgns[s["main"]], figures)
    dimension_sweep(sgns, figures)
    tied_vs_untied(lm, figures)


if __name__ == "__main__":
    main()
