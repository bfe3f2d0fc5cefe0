"""Tokenizer benchmarks: the reference BPE against HuggingFace `tokenizers`, one run, ratios.

    python bench/bpe.py                       # gcide, 8,000-token vocabulary, 3 repetitions
    python bench/bpe.py --corpus enwiki-sample --vocab-size 4000 --reps 5

1. Training time: BPE(mode="byte", split="gpt2", tie="hf").train vs FastTokenizer.train on the
   same lines, already in memory (reading and cleaning the corpus is timed once, apart).
   Both learn the same merges; the script checks that before timing anything else.
2. Encoding throughput: words per second encoding the first --encode-lines lines, the
   reference BPE (its chunk cache cold at the start of each repetition) vs the library's
   encode_batch.

Ratios are reference / library for time, library / reference for throughput: how many times
faster the Rust library is. The library trains with all cores (rayon); the reference uses one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from itertools import islice

from embedlab.data.corpora import open_corpus
from embedlab.tokenizer.bpe import BPE
from embedlab.tokenizer.fast import FastTokenizer


def timed(fn, reps: int) -> tuple[float, object]:
    """Median seconds over `reps` calls, and the last result."""
    times, result = [], None
    for _ in range(reps):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="gcide")
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--encode-lines", type=int, default=50_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    start = time.perf_counter()
    lines = list(open_corpus(args.corpus))
    read_s = time.perf_counter() - start
    words = sum(len(line.split()) for line in lines)

    def train_reference() -> BPE:
        bpe = BPE(mode="byte", split="gpt2", tie="hf")
        bpe.train(lines, vocab_size=args.vocab_size)
        return bpe

    def train_fast() -> FastTokenizer:
        return FastTokenizer.train(lines, vocab_size=args.vocab_size)

    ref_s, reference = timed(train_reference, args.reps)
    fast_s, fast = timed(train_fast, args.reps)
    same = [(m.left, m.right) for m in reference.history] == fast.merges()

    sample = list(islice(lines, args.encode_lines))
    sample_words = sum(len(line.split()) for line in sample)

    def encode_reference() -> int:
        reference._cache.clear()  # cold cache: every distinct chunk is merged once per repetition
        return sum(len(reference.encode(line)) for line in sample)

    def encode_fast() -> int:
        return sum(len(e.ids) for e in fast.tokenizer.encode_batch(sample, add_special_tokens=False))

    enc_ref_s, n_ref = timed(encode_reference, args.reps)
    enc_fast_s, n_fast = timed(encode_fast, args.reps)

    result = {
        "corpus": args.corpus,
        "lines": len(lines),
        "words": words,
        "read_s": round(read_s, 2),
        "vocab_size": args.vocab_size,
        "cores": os.cpu_count(),
        "reps": args.reps,
        "same_merges": same,
        "train": {"reference_s": ref_s, "fast_s": fast_s, "ratio": ref_s / fast_s},
        "encode": {
            "lines": len(sample),
            "words": sample_words,
            "same_ids": n_ref == n_fast,
            "reference_words_per_s": sample_words / enc_ref_s,
            "fast_words_per_s": sample_words / enc_fast_s,
            "ratio": enc_ref_s / enc_fast_s,
        },
    }
    if args.json:
        print(json.dumps(result))
        return
    t, e = result["train"], result["encode"]
    print(
        f"{args.corpus}: {len(lines):,} lines, {words:,} words (read and cleaned in {read_s:.1f} s); "
        f"vocab {args.vocab_size:,}; {os.cpu_count()} cores; median of {args.reps}"
    )
    print(f"same merges: {same}")
    print(f"train   reference {t['reference_s']:8.2f} s   tokenizers {t['fast_s']:8.2f} s   ratio {t['ratio']:6.1f}x")
    print(
        f"encode  reference {e['reference_words_per_s']:10,.0f} w/s   "
        f"tokenizers {e['fast_words_per_s']:10,.0f} w/s   ratio {e['ratio']:6.1f}x"
    )
    print(f"        ({e['words']:,} words encoded; same token count: {e['same_ids']})")


if __name__ == "__main__":
    main()
