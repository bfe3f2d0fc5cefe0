"""embedlab: the embedding layers of modern neural networks, built for real.

Shape notation, used in every docstring:

    B  batch size                  T  tokens in a sequence (positions 0..T-1)
    D  model width (a row's size)  V  vocabulary size (rows of the token table)
    N  patches in an image         H×W  image height × width, C channels, P patch side

A shape is written `(B, T) int64 -> (B, T, D)`; `...` stands for any leading dimensions.

Modules:
    embedlab.scratch    the lessons' math in NumPy: lookup, one-hot × E, dE = Hᵀ G, SGD on rows
    embedlab.layers     PyTorch modules: token, position, segment, recipes, patches, head
    embedlab.pretrained HuggingFace-format folders -> layers (safetensors only)
    embedlab.sizing     parameter and memory arithmetic, model presets
    embedlab.data       built-in models found by name
"""

from embedlab.errors import EmbedlabError, FileFormatError, InvalidValueError, MissingDataError, UnknownNameError

__version__ = "0.1.0"

__all__ = [
    "EmbedlabError",
    "FileFormatError",
    "InvalidValueError",
    "MissingDataError",
    "UnknownNameError",
    "__version__",
]
