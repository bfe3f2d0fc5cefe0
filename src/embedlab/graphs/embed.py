"""Node vectors: random walks read as sentences of node ids, trained by embedlab's own skip-gram.

    vectors = embed_graph(load_graph("karate"), WalkConfig(), train_config(dim=16))
    vectors.most_similar("33", topn=3)             # node ids are the keys
    vectors.save("karate.txt")                     # any table format; `embedlab neighbors karate.txt 33`

This is DeepWalk (uniform walks) or node2vec (p/q walks) with the word2vec kernels of
`embedlab.train`: each walk is one sentence, the nodes are the vocabulary (most visited first), and
the skip-gram settings are a RunConfig's. The walks go to the kernels as id chunks directly, with no
text in between (a node id such as "Mme.Magloire" is not a word the text tokenizer would keep whole).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from embedlab.errors import InvalidValueError
from embedlab.graphs.graph import Graph
from embedlab.graphs.walks import WalkConfig, random_walks
from embedlab.train.config import RunConfig
from embedlab.train.corpus import Chunk, WordVocab
from embedlab.train.tables import TrainState, vocab_tables
from embedlab.train.word2vec import BATCH_WORDS, train_chunk
from embedlab.vectors import Vectors

GRAPH_WINDOW = 10  # node2vec's and pecanpy's context size (DeepWalk's w is 10 too)


def train_config(**settings) -> RunConfig:
    """A RunConfig for node vectors: skip-gram, every node kept (min_count 1), node2vec's window 10, the
    rate falling on the straight line (epoch_decay 1: gensim's iterable mode, which DeepWalk and pecanpy
    call; the text default's 0.5 was chosen on text), otherwise word2vec's defaults; `settings` override."""
    defaults = {"corpus": "graph", "method": "sgns", "min_count": 1, "window": GRAPH_WINDOW, "epoch_decay": 1.0}
    return RunConfig(**{**defaults, **settings})


def walk_chunks(walks: np.ndarray, row_of: np.ndarray, words: int) -> Iterator[Chunk]:
    """(W, L) int32 walks (-1 padded) -> Chunks of about `words` node rows, a walk per sentence."""
    per_chunk = max(1, words // walks.shape[1])
    for first in range(0, len(walks), per_chunk):
        block = walks[first : first + per_chunk]
        kept = block >= 0
        starts = np.zeros(len(block) + 1, dtype=np.int64)
        np.cumsum(kept.sum(axis=1), out=starts[1:])
        yield Chunk(row_of[block[kept]].astype(np.int32), starts)


def visit_counts(walks: np.ndarray, nodes: int, rows: int = 1 << 16) -> np.ndarray:
    """(W, L) int32 walks (-1 padded) -> (N,) int64 visits of each node, counted `rows` walks at a time
    (one bincount of all 800M steps of 1M nodes × 10 × 80 would copy them to int64: 6.4 GB beside 3.2).

    >>> visit_counts(np.array([[0, 2, 0], [1, -1, -1]], dtype=np.int32), 4).tolist()
    [2, 1, 1, 0]
    """
    counts = np.zeros(nodes, dtype=np.int64)
    for first in range(0, len(walks), rows):
        block = walks[first : first + rows]
        counts += np.bincount(block[block >= 0], minlength=nodes)
    return counts


def train_walks(
    walks: np.ndarray, keys: list[str], config: RunConfig, on_pass: Callable[[int, Vectors], None] | None = None
) -> Vectors:
    """(W, L) int32 walks over len(keys) nodes -> Vectors (V, dim) of the nodes the walks visit, keyed by `keys`.

    The rows are ordered most visited first with their visit counts, as a word table's are. `on_pass`,
    when given, sees a copy of the table before training (pass 0) and after each pass over the walks
    (1 .. epochs): the same run, watched as it learns (the lab's graph page draws these).
    """
    if config.method != "sgns" or config.device != "cpu":
        raise InvalidValueError(f"node vectors train with sgns on the cpu; got {config.method} on {config.device}")
    counts = visit_counts(walks, len(keys))  # (N,)
    order = np.argsort(-counts, kind="stable")
    order = order[counts[order] > 0]  # rows: visited nodes, most visited first
    vocab = WordVocab([keys[v] for v in order], counts[order])
    row_of = np.full(len(keys), -1, dtype=np.int64)
    row_of[order] = np.arange(len(order))
    state = TrainState.new(vocab, config)
    tables = vocab_tables(vocab, config.sample)

    def snapshot(passes: int) -> None:
        if on_pass is not None:  # subtle: a copy, since training goes on writing state.w_in
            on_pass(passes, Vectors(vocab.index_to_key, state.w_in.copy(), vocab.counts, name="nodes"))

    snapshot(0)
    for done in range(1, config.epochs + 1):
        for chunk in walk_chunks(walks, row_of, BATCH_WORDS * config.threads):
            train_chunk(state, chunk, tables, config)
        snapshot(done)
    return Vectors(vocab.index_to_key, state.w_in, vocab.counts, name="nodes")


def embed_graph(graph: Graph, walks: WalkConfig, config: RunConfig) -> Vectors:
    """Graph -> Vectors (N, dim) keyed by node id: walk (DeepWalk or node2vec), then skip-gram."""
    return train_walks(random_walks(graph, walks, threads=config.threads), graph.keys, config)
