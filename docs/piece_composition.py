"""Subword pieces composed by attention (lesson 001, chapter 7), measured on MiniLM layer by layer.

    python docs/piece_composition.py            # print the table, draw docs/figures/pieces_layers.png
    python docs/piece_composition.py --json     # the measurement as one JSON object

120 words of 2+ pieces, one per sentence of enwiki-sample (embedlab.sims.composition says how they
are chosen); per layer, the mean cosine between a word's adjacent pieces, the mean cosine across its
two edges (adjacent pieces of different words), and their gap with its 95% t interval over the words.
About 5 seconds on one CPU thread. docs/lessons.md quotes the output (row 001.7.12 and its section).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import matplotlib.pyplot as plt
import torch

from embedlab.models.encoder import Encoder
from embedlab.sims.composition import Composition, composition, enwiki_targets

FIGURE = Path(__file__).parent / "figures" / "pieces_layers.png"


def draw(result: Composition, path: Path) -> None:
    layers = [v.layer for v in result.layers]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    left.plot(layers, [v.within for v in result.layers], "o-", label="pieces of the same word")
    left.plot(layers, [v.neighbours for v in result.layers], "s--", label="adjacent pieces of different words")
    left.set(xlabel="layer (0 = input embedding)", ylabel="mean cosine", title="adjacent pieces, MiniLM")
    left.legend(loc="lower right")
    gaps = [v.gap for v in result.layers]
    lows = [v.gap - v.interval[0] for v in result.layers]
    highs = [v.interval[1] - v.gap for v in result.layers]
    right.errorbar(layers, gaps, yerr=[lows, highs], fmt="o-", capsize=4, color="tab:green")
    right.axhline(0, color="grey", linewidth=0.8)
    title = f"gap, 95% t interval over {len(result.words)} words"
    right.set(xlabel="layer (0 = input embedding)", ylabel="within − neighbours", title=title)
    for ax in (left, right):
        ax.set_xticks(layers)
    fig.tight_layout()
    fig.savefig(path, dpi=100, pil_kwargs={"optimize": True})
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the measurement as JSON; draw nothing")
    args = parser.parse_args()
    torch.set_num_threads(1)  # the same sums in the same order on every machine
    encoder = Encoder.load("minilm")
    result = composition(encoder, enwiki_targets(encoder.tokenizer))
    if args.json:
        print(json.dumps(dataclasses.asdict(result)))
        return
    print(
        f"{len(result.words)} words, {result.pieces:.2f} pieces each on average; first: {', '.join(result.words[:8])}"
    )
    print("| layer | same word | neighbours | gap [95% interval] |\n|---|---|---|---|")
    for v in result.layers:
        low, high = v.interval
        print(f"| {v.layer} | {v.within:.3f} | {v.neighbours:.3f} | {v.gap:.3f} [{low:.3f}, {high:.3f}] |")
    print(f"largest gap at layer {result.largest_gap}")
    draw(result, FIGURE)
    print(f"wrote {FIGURE}")


if __name__ == "__main__":
    main()
