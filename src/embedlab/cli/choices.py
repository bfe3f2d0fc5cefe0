"""The names and defaults help pages list, written here so that `--help` imports none of the library.

`embedlab --help` has to answer at once, and the modules these names live in import torch, numba or
tokenizers on the way (a package imports its whole package). Each value below is its home's, and
tests/cli/test_help.py checks that they are still equal; the library checks every value it is given
against its own list, so a stale name here could only mislead a help page, never a run.
"""

from __future__ import annotations

METRICS = ("cosine", "dot", "euclidean")  # vectors.similarity.METRICS
ANALOGY_METHODS = ("3cosadd", "3cosmul")  # vectors.table.ANALOGY_METHODS
# io.FORMATS + io.SUBWORD_FORMATS + io.QUANTIZED_FORMATS
FORMATS = ("word2vec", "word2vec-bin", "safetensors", "npy", "projector", "fasttext", "floret", "ftz")
# io.EXTENSIONS + WRITE_ONLY_EXTENSIONS + QUANTIZED_EXTENSIONS
EXTENSIONS = (".txt", ".vec", ".bin", ".safetensors", ".npy", ".floret", ".ftz")
RESAMPLES = 1000  # vectors.intervals.RESAMPLES: bootstrap resamples per interval
TIE_RULES = {  # tokenizer.bpe.TIE_RULES
    "first": "the pair seen first in the text",
    "hf": "the pair of smallest ids, as HuggingFace tokenizers",
    "lexical": "the greatest pair of strings, as subword-nmt",
}
SPLITS = ("gpt2", "whitespace", "none")  # tokenizer.pretokenize.SPLITS
METHODS = ("sgns", "cbow", "lm")  # train.config.METHODS
DEVICES = ("cpu", "cuda")  # train.config.DEVICES and arena.runner.DEVICES
MAX_HASH_COUNT = 4  # hashing.murmur.MAX_HASH_COUNT: floret's most rows per key
TASKS = ("lm", "rare", "image", "cost")  # arena.strategies.TASKS
CLOCKS = ("flops", "wall")  # arena.flops.CLOCKS
STRATEGIES = (  # arena.strategies
    "small-v-tied",
    "large-v-untied",
    "bpe-32k",
    "bytes",
    "large-v-adaptive",
    "large-v-hashed",
    "large-v-qr",
    "large-v-factorized",
    "large-v-tied",
    "patch-16",
    "patch-32",
)
POOLINGS = ("mean", "first")  # models.context.POOLINGS
NEAREST = 5  # models.context.NEAREST: static rows listed per occurrence
MODALITIES = ("text", "image")  # advise.chart.MODALITIES
ADVISE_POSITIONS = ("rotary", "learned", "sinusoidal")  # advise.chart.POSITIONS
DETAILS = ("standard", "speed", "detail")  # advise.chart.DETAILS: patch 16, 32, 8
DTYPES = ("fp32", "fp16", "bf16", "int8")  # sizing.BYTES_PER_PARAM
GRAPHS = ("karate", "les-miserables", "florentine")  # graphs.graph.GRAPHS (and "planted", built from options)
GRAPH_DIM, GRAPH_WINDOW = 128, 10  # node2vec's and pecanpy's defaults; graphs.embed.GRAPH_WINDOW
