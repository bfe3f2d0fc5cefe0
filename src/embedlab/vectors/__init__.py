"""Vector tables: geometry, neighbours, analogies, benchmarks and file formats.

table.py       Vectors: key <-> row, read-only rows handed out, cached unit rows, neighbours, analogies
search.py      how queries find rows: exact matrix products over cached unit rows and norms, or FAISS
tensors.py     the torch side of a table: its rows (and unit rows) as tensors on a device, to(device)
query.py       queries as written: "king - man + woman", gensim's positive/negative lists, the query vector
keys.py        a word's key in any table (itself, or its byte-level piece "Ġ" + word); the themed words it holds
neighbors.py   Neighbors: the ranked answer of a query, saying how it was got
subword.py     SubwordVectors: fastText's word and n-gram bucket rows, a vector for any word; load()
quantize.py    product quantization as fastText's: quantize(matrix) -> QuantizedMatrix (codes, codebooks), kmeans
quantize_kernels.py  its k-means loops, compiled (numba)
fasttext_quantize.py  fastText's `quantize` on a model: prune (rows of largest norm), quantize_model (a .ftz)
similarity.py  pure functions: cosine / dot / euclidean scores, exact top-k and search, 3CosMul, read-only views
index.py       optional FAISS index behind the same queries
io/            files: word2vec text/binary, safetensors, .npy, projector TSV, HuggingFace, benchmark files
evaluate.py    word-pair and analogy benchmarks -> result dataclasses
scoring.py     each benchmark item scored by one table (pairs' cosines, questions right or wrong), gensim's rules
intervals.py   seeded bootstrap intervals of benchmark scores; paired comparison of two tables (compare_benchmarks)
stats.py       Spearman and Pearson correlation (scipy's values), ranks with ties
frequency.py   corpus-frequency bands (BANDS, band) and splitting rows into them
shrink.py      rare rows shrunk toward a prior (their n-grams' mean, or the mean row) by their counts
analysis.py    norms vs frequency, anisotropy, a·b taken apart, rotation check
projection.py  PCA or UMAP maps, a whole table's principal axes, frames aligned by Procrustes
tiles_layout.py  a table's (V, 2) map by PCA or UMAP, the table streamed chunk by chunk (coords.npy)
tiles.py       a map's quadtree: a root of 1,000 sampled rows, tiles of <= 50,000, read tile by tile; build_tiles
tiles_overlay.py  each tile's density contours and region labels (terms scored as WizMap's), over every row in its box
tiles_kernels.py  the overlay's compiled loops over every row (numba): cell counts, regions, key terms, line joining
map_source.py  any table's rows for a map, never copied (.npy mapped; a fastText .bin's every input row), fingerprinted
keystore.py    every key of a table of any size on disk: key <-> row by hash, substring and regex search over all
rowscan.py     exact nearest rows by cosine over a memory-mapped table, a chunk at a time (bounded memory)
row_codes.py   each row's norm and colour codes (theme, band) for a map, streamed
map_build.py   a table's tiled map built once and kept: keys, norms and codes, layout, tiles (resumable)
compare.py     two tables key by key: Procrustes alignment, displacement, neighbour overlap (Jaccard@k)
static.py      StaticModel: a sentence as the mean of its pieces' rows; Model2Vec's folder both ways
instruments.py instruments for anything that encodes texts: WordSim-7 (Model2Vec's seven word-pair sets),
               the gcide reverse dictionary and domains, fidelity to a teacher

    load("minilm"), load("runs/wiki"), load("wiki.bin")   # the richest table each holds
"""

from embedlab.vectors.neighbors import Neighbors
from embedlab.vectors.query import parse_expression, signed_terms
from embedlab.vectors.similarity import METRICS
from embedlab.vectors.subword import SubwordVectors, load
from embedlab.vectors.table import UnknownKeyError, Vectors

__all__ = [
    "METRICS",
    "Neighbors",
    "SubwordVectors",
    "UnknownKeyError",
    "Vectors",
    "load",
    "parse_expression",
    "signed_terms",
]
