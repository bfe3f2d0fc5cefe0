"""Vector tables: geometry, neighbours, analogies, benchmarks and file formats.

table.py       Vectors: key <-> row, cached unit rows, neighbours, analogies
neighbors.py   Neighbors: the ranked answer of a query, saying how it was got
similarity.py  pure functions: cosine / dot / euclidean scores, exact top-k, 3CosMul
index.py       optional FAISS index behind the same queries
io.py          word2vec text/binary, safetensors, .npy, projector TSV, HuggingFace tables
evaluate.py    word-pair and analogy benchmarks -> result dataclasses
analysis.py    norms vs frequency, anisotropy, projections, rotation check
"""

from embedlab.vectors.neighbors import Neighbors
from embedlab.vectors.similarity import METRICS
from embedlab.vectors.table import UnknownKeyError, Vectors, parse_expression, signed_terms

__all__ = ["METRICS", "Neighbors", "UnknownKeyError", "Vectors", "parse_expression", "signed_terms"]
