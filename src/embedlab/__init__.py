"""embedlab: the embedding layers of modern neural networks, built for real.

Shape notation, used in every docstring:

    B  batch size                  T  tokens in a sequence (positions 0..T-1)
    D  model width (a row's size)  V  vocabulary size (rows of the token table)
    N  patches in an image         H×W  image height × width, C channels, P patch side

A shape is written `(B, T) int64 -> (B, T, D)`; `...` stands for any leading dimensions.

Packages and modules, lowest first (the data flow of DESIGN.md):
    embedlab.errors     EmbedlabError and its subclasses; checks that name the bad value
    embedlab.files      atomic and exclusive writes; the cache folder; files mapped for reading
    embedlab.files.reading  files that may not be what they claim: special paths, wrong kinds, JSON checked by type
    embedlab.scratch    the lessons' math in NumPy: lookup, one-hot × E, dE = Hᵀ G, SGD on rows
    embedlab.sizing     parameter and memory arithmetic, model presets (layout, presets, model)
    embedlab.data       everything built in, found by name: models, corpora, benchmarks, images, themes
    embedlab.layers     PyTorch modules, one concept each: token, position, segment, recipes, patch, head
    embedlab.models     whole models from layers: HuggingFace folders, the input pipeline, a word in context, TinyLM
    embedlab.tokenizer  reference BPE, HuggingFace tokenizers behind one interface, word vocabularies
    embedlab.vectors    Vectors: neighbours, analogies, benchmarks, analysis, file formats, the run folder
    embedlab.train      training runs: RunConfig, jobs (word2vec, lm), checkpoints, resume, ranks
    embedlab.graphs     graph nodes as rows: random walks (DeepWalk, node2vec) -> skip-gram -> a node table
    embedlab.advise     lesson 001's decision chart walked: a recipe, its sizes, this project's evidence
    embedlab.sims       the library side of each lab page, and nothing else's (only the lab imports it)
    embedlab.lab        the web lab (FastAPI)
    embedlab.cli        the `embedlab` command (Typer); `python -m embedlab` runs it too
"""

import os

# OpenMP threads that finish early spin for a while before they sleep. The word2vec kernels end a
# parallel region every chunk while a Python thread tokenizes the next one, and on a machine with
# few or shared cores the spinning threads starve it: CBOW on enwiki-sample ran at 0.85M words/s
# spinning and 2.47M words/s passive (2 cores, load ~2.5), and a TinyLM step took 0.52-0.75 s
# against 0.19-0.31 s. The runtime reads this once, when torch loads it: set it before (a value
# you set yourself wins).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from embedlab.errors import (  # noqa: E402  (after the environment above)
    EmbedlabError,
    FileFormatError,
    InvalidValueError,
    MissingDataError,
    UnknownNameError,
)

__version__ = "0.1.0"


def lazy_exports(package: str, exports: dict[str, str]):
    """A package's module-level __getattr__ that imports each name in `exports` (name -> its submodule)
    when first asked for. A package that re-exports from torch-heavy modules stays cheap to import for
    the parts that need no torch (the classifier's command starts in a fraction of a second)."""
    import importlib

    def __getattr__(name: str) -> object:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{exports[name]}"), name)
        globals_of_package = importlib.import_module(package).__dict__
        globals_of_package[name] = value  # later lookups are plain attribute reads
        return value

    return __getattr__


__all__ = [
    "EmbedlabError",
    "FileFormatError",
    "InvalidValueError",
    "MissingDataError",
    "UnknownNameError",
    "__version__",
]
