"""How many of the themed words (embedlab.data.themes) have a nearest themed word of their own group.

    embedlab train gcide --out runs/d32 --method sgns --dim 32 --epochs 2 --threads 1 --epoch-decay 1
    python docs/themes_nearest.py runs/d32          # docs/lessons.md, row 001.6.2

The nearest word is taken by cosine in the table's full width, among the other themed words, as the
lab's maps tick them all ("Mixed"); with 1 thread the run, and so the share, is bit-reproducible.
"""

from __future__ import annotations

import argparse

import numpy as np

from embedlab.data.themes import THEMES, theme_of
from embedlab.vectors import Vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vectors", help="a trained table: a run folder, a file or a built-in name")
    parser.add_argument("--word", default="cat", help="also print this word's 5 nearest rows in the whole table")
    args = parser.parse_args()
    table = Vectors.load(args.vectors)
    words = [w for ws in THEMES.values() for w in ws]
    rows = table[words].astype(np.float64)  # (W, D)
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    cos = unit @ unit.T
    np.fill_diagonal(cos, -np.inf)  # a word is not its own neighbour
    same = sum(theme_of(w) == theme_of(words[j]) for w, j in zip(words, cos.argmax(axis=1), strict=True))
    print(f"{same} of {len(words)} themed words ({same / len(words):.1%}) have a nearest themed word of their group")
    print(f"{args.word}'s 5 nearest rows:", ", ".join(k for k, _ in table.most_similar(args.word, topn=5)))


if __name__ == "__main__":
    main()
