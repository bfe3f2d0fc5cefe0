"""Training embedding tables on real corpora.

corpus.py   the word tokenizer, WordVocab (counts, subsampling, noise table), streaming id Chunks, ChunkCache
sgns.py     word2vec: skip-gram and CBOW with negative sampling, numba Hogwild kernels, train_epochs
"""

from embedlab.train.corpus import Chunk, ChunkCache, WordVocab, encode, words
from embedlab.train.sgns import TrainState, TrainStats, Word2VecConfig, init_tables, train_chunk, train_epochs

__all__ = [
    "Chunk",
    "ChunkCache",
    "TrainState",
    "TrainStats",
    "Word2VecConfig",
    "WordVocab",
    "encode",
    "init_tables",
    "train_chunk",
    "train_epochs",
    "words",
]
