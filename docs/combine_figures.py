"""The table and figure of docs/training.md's "Add, not concatenate": TinyLM with its token and
position rows added (width D) against concatenated (width 2·D), at equal training FLOPs.

    python docs/combine_figures.py                 # figures/combine_concat.png and a markdown table
    python docs/combine_figures.py --out FILE.png  # the figure elsewhere

Both models are untied (a head tied to the D-wide table cannot read 2·D-wide states), 2 layers,
4 heads, context 64, batches of 32, on enwiki-sample's first LINES lines with a BPE vocabulary of
2,000 (every 20th line held out, as the lm training method holds it out). A step's FLOPs are
arena/flops.py's `lm_step_flops`; adding gets ADD_STEPS steps and concatenating the steps the same
FLOPs buy. Each run's warm-up and cosine schedule spans its own steps. ~2 minutes on one busy core.
"""

from __future__ import annotations

import argparse
from itertools import islice
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import torch

from embedlab.arena.flops import lm_step_flops, steps_bought
from embedlab.data.corpora import open_corpus
from embedlab.models.lm import LMConfig, TinyLM, adamw, evaluate, train_step, warmup_cosine, window_batch
from embedlab.tokenizer import FastTokenizer

OUT = Path(__file__).parent / "figures" / "combine_concat.png"
LINES = 4000
VOCAB, DIM, LAYERS, HEADS, CONTEXT, BATCH, LR = 2000, 64, 2, 4, 64, 32, 3e-3
ADD_STEPS = 200  # the budget: what 200 steps of the added model cost
SEEDS = (1, 2)
POINTS = 12  # validation losses per run


def encode(lines: list[str], tokenizer: FastTokenizer) -> tuple[np.ndarray, torch.Tensor]:
    """-> (training ids (N,), validation windows (M, CONTEXT + 1)): every 20th line held out."""
    parts: tuple[list[int], list[int]] = ([], [])
    for i, enc in enumerate(
        tokenizer.tokenizer.encode_batch([f"{line}\n" for line in lines], add_special_tokens=False)
    ):
        parts[i % 20 == 19].extend(enc.ids)
    train, valid = (np.asarray(p, dtype=np.int64) for p in parts)
    n = min(256, (len(valid) - 1) // CONTEXT)
    return train, window_batch(valid, np.arange(n) * CONTEXT, CONTEXT)


def run(config: LMConfig, steps: int, seed: int, train: np.ndarray, valid: torch.Tensor) -> tuple[list, list]:
    """-> (FLOPs spent, validation loss) at POINTS points of one run of `steps` steps."""
    torch.manual_seed(seed)
    model = TinyLM(config)
    optimizer = adamw(model, LR)
    order = torch.randperm((len(train) - 1) // CONTEXT, generator=torch.Generator().manual_seed(seed)).numpy()
    per_step = lm_step_flops(config, BATCH)
    warmup = max(1, steps // 50)
    marks = set(np.linspace(0, steps, POINTS + 1).round().astype(int).tolist())
    spent, losses = [0], [evaluate(model, valid)[0]]
    for step in range(steps):
        starts = order[(step * BATCH) % (len(order) - BATCH) :][:BATCH] * CONTEXT
        lr = warmup_cosine(step, warmup, max(0, step - warmup) / max(1, steps - warmup), LR, LR / 10)
        train_step(model, optimizer, window_batch(train, starts, CONTEXT), lr)
        if step + 1 in marks:
            spent.append((step + 1) * per_step)
            losses.append(evaluate(model, valid)[0])
    return spent, losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    torch.set_num_threads(1)
    lines = list(islice(iter(open_corpus("enwiki-sample")), LINES))
    tokenizer = FastTokenizer.train(lines, VOCAB)
    train, valid = encode(lines, tokenizer)
    configs = {
        c: LMConfig(tokenizer.vocab_size, DIM, LAYERS, HEADS, CONTEXT, False, combine=c) for c in ("add", "concat")
    }
    budget = ADD_STEPS * lm_step_flops(configs["add"], BATCH)
    steps = {c: steps_bought(budget, lm_step_flops(config, BATCH)) for c, config in configs.items()}
    runs = {(c, s): run(configs[c], steps[c], s, train, valid) for c in configs for s in SEEDS}
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, c in enumerate(configs):
        for seed, style in zip(SEEDS, ("-", "--"), strict=True):
            spent, losses = runs[c, seed]
            width = configs[c].width
            ax.plot(np.array(spent) / 1e12, losses, style, color=f"C{i}", label=f"{c} (width {width}), seed {seed}")
    ax.set(xlabel="training TFLOPs (arena/flops.py)", ylabel="held-out loss (nats per piece)", ylim=(None, 7.0))
    ax.set_title(f"TinyLM, token and position rows added or concatenated, {budget / 1e12:.2f} TFLOPs each")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"budget {budget:.3e} FLOPs; per step: " + ", ".join(
        f"{c} {lm_step_flops(config, BATCH):,} ({steps[c]} steps, {TinyLM(config).parameter_count():,} parameters)"
        for c, config in configs.items()))  # fmt: skip
    print("\n| combine | width | steps | final held-out loss (seeds) |")
    print("|---|---|---|---|")
    for c, config in configs.items():
        finals = ", ".join(f"{runs[c, s][1][-1]:.3f}" for s in SEEDS)
        print(f"| {c} | {config.width} | {steps[c]} | {finals} |")


if __name__ == "__main__":
    main()
