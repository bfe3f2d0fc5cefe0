"""The vocabulary-size table of docs/lessons.md (its Subwords section), measured (embedlab.sims.subword_table).

    python docs/subword_table.py                          # gcide, 1K/8K/32K/100K: the table the page quotes
    python docs/subword_table.py --corpus enwiki-sample   # the lab's corpus: 1K/8K/32K (100K left out, and why)
    python docs/subword_table.py --json                   # the whole VocabularyTable as one JSON object

The BPE vocabularies are trained on the corpus's training part (every 10th line held out) and kept
in the lab's cache folder (--cache), so the lab's subwords page reuses them and a rerun only
measures. On 2 CPU cores the gcide run took 89 s from an empty cache (each size about 8 s of BPE
training and 9 s of counting its pieces, 100K included) and 24 s with the vocabularies cached.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from datetime import date
from pathlib import Path

from embedlab.data.corpora import open_corpus, split_lines
from embedlab.files import cache_dir, json_safe
from embedlab.sims.subword_table import RUNGS, VocabularyTable, measure, supported
from embedlab.sims.subwords import VocabularyLadder
from embedlab.tokenizer.vocab import count_words


def markdown(table: VocabularyTable) -> str:
    """The measured rungs as a markdown table: one column per vocabulary size, one row per figure."""
    rows = [
        ("BPE tokens per held-out word", lambda r: f"{r.pieces_per_word:.2f}"),
        (f"BPE pieces per rare word (< {table.rare_below:,} in training)", lambda r: f"{r.pieces_per_rare_word:.2f}"),
        (f"BPE pieces per other word (>= {table.rare_below:,})", lambda r: f"{r.pieces_per_other_word:.2f}"),
        (f"reference paragraph ({table.paragraph_words} words), BPE tokens", lambda r: f"{r.paragraph_tokens}"),
        (f"BPE pieces used < {table.rare_below:,} times in training", lambda r: f"{100 * r.rare_piece_share:.1f} %"),
        (f"token table at d = {table.dim}, parameters", lambda r: f"{r.params:,}"),
        ("token table, MiB fp32 / fp16", lambda r: f"{r.mib_fp32:.1f} / {r.mib_fp16:.1f}"),
        ("BPE: held-out lines spelled back exactly", lambda r: "all" if r.spelled_back else "not all"),
        ("whole words, same rows: OOV share of running words", lambda r: f"{100 * r.word_oov_running:.2f} %"),
        ("whole words, same rows: OOV share of distinct words", lambda r: f"{100 * r.word_oov_distinct:.1f} %"),
        ("whole words: paragraph words without a row", lambda r: f"{r.word_paragraph_unknown}"),
    ]
    head = ["", *(f"V = {r.size // 1000}K" for r in table.rungs)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join([label, *map(cell, table.rungs)]) + " |" for label, cell in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="gcide", help="a built-in corpus or a text file (default gcide)")
    parser.add_argument("--cache", type=Path, default=cache_dir() / "lab" / "subwords",
                        help="where the vocabularies are kept (default: the lab's folder)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the table as one JSON object")
    args = parser.parse_args()
    corpus = open_corpus(args.corpus)
    start = time.perf_counter()
    # train only the sizes the corpus can give (measure lists the others, and why)
    sizes = tuple(supported(RUNGS, len(count_words(split_lines(corpus)[0]))))
    ladder = VocabularyLadder.open(corpus, args.cache, sizes)
    table = measure(ladder, corpus)
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps(json_safe(table)))
        return
    print(f"{table.corpus}: {table.train_lines:,} training lines, {table.held_out_lines:,} held out "
          f"(every {table.held_out_every}th line, {table.held_out_words:,} words); {table.distinct_words:,} distinct "
          f"training words; rare ('{table.rare_band}' band, < {table.rare_below} in training): {table.rare_words:,} "
          f"held-out words ({100 * table.rare_share:.1f} %)\n")  # fmt: skip
    print(markdown(table))
    for left in table.left_out:
        print(f"\n{left.size:,} not measured: {left.reason}")
    trained = ", ".join(f"{s // 1000}K {info.train_seconds:.0f} s + count {info.count_seconds:.0f} s"
                        for s, info in ladder.infos.items())  # fmt: skip
    print(f"\ntraining (when it ran): {trained}")
    print(f"{date.today()} on {platform.node() or 'this machine'} ({platform.machine()}); this run {seconds:.0f} s")


if __name__ == "__main__":
    main()
