"""Tiny classifiers made by the fastText 0.9.2 tool (Debian's /usr/bin/fasttext), and what the tool
answers about them: shared by test_ftz.py and test_quantize.py (not a test module itself)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

TOOL = shutil.which("fasttext")
# print-word-vectors and predict-prob print 5 significant digits (setprecision(5)): a printed 1.2345
# stands for anything in [1.23445, 1.23455], so the tolerance grows with the value; 1e-5 below 0.2
PRINTED = {"rtol": 5e-5, "atol": 1e-5}


def require_tool() -> str:
    assert TOOL, "these tests need the fastText 0.9.2 tool: apt-get install fasttext"
    return TOOL


def labelled_lines(n: int, labels: int, seed: int = 0) -> list[str]:
    """`n` lines "__label__k w.. w.." of 8 words drawn near label k's own words (400 in all), so
    the labels can be learned; line i is label i % labels."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        k = i % labels
        words = [f"w{(k * 400 // labels + int(rng.integers(0, 30))) % 400}" for _ in range(8)]
        lines.append(f"__label__{k} " + " ".join(words))
    return lines


def run_tool(*args: object) -> None:
    subprocess.run([require_tool(), *map(str, args)], check=True, capture_output=True)


def supervised(folder: Path, name: str, lines: list[str], *options: object) -> Path:
    """A classifier the tool trained on `lines` (dim 8, 3 epochs, one thread, then `options`) -> its .bin."""
    corpus = folder / f"{name}.txt"
    corpus.write_text("".join(f"{line}\n" for line in lines))
    run_tool("supervised", "-input", corpus, "-output", folder / name, "-dim", 8, "-epoch", 3, "-minCount", 1,
             "-thread", 1, "-verbose", 0, *options)  # fmt: skip
    return folder / f"{name}.bin"


def quantized(model: Path, name: str, *options: object) -> Path:
    """`fasttext quantize` of a copy of `model` named `name` (the tool reads NAME.bin, writes NAME.ftz)."""
    copy = model.with_name(f"{name}.bin")
    shutil.copyfile(model, copy)
    run_tool("quantize", "-output", copy.with_suffix(""), "-input", model.with_suffix(".txt"), "-thread", 1,
             "-verbose", 0, *options)  # fmt: skip
    return copy.with_suffix(".ftz")


def print_word_vectors(path: Path, words: list[str]) -> np.ndarray:
    """(n, D) what `fasttext print-word-vectors path` prints for `words`, one a line."""
    done = subprocess.run(
        [require_tool(), "print-word-vectors", str(path)],
        input="".join(f"{w}\n" for w in words),
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert [line.split(" ")[0] for line in lines] == words
    return np.array([line.rstrip().split(" ")[1:] for line in lines], dtype=np.float64)


def predict_prob(path: Path, lines: list[str], k: int = 3) -> list[str]:
    """What `fasttext predict-prob path - k` prints for `lines`, one line each."""
    done = subprocess.run(
        [require_tool(), "predict-prob", str(path), "-", str(k)],
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()
