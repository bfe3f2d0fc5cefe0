"""Graph nodes as embedding rows: random walks are sentences of node ids, skip-gram trains the node table.

    graph = load_graph("karate")                                   # or planted_partition(...)
    vectors = embed_graph(graph, WalkConfig(p=1, q=1), train_config(dim=16))
    community_recovery(vectors, graph)                              # k-means against the known clubs

graph.py     Graph: a CSR adjacency with node keys (and communities), the built-in graphs, planted partitions
walks.py     uniform (DeepWalk) and second-order p/q (node2vec) random walks, numba, seeded
embed.py     walks -> embedlab's own skip-gram (train/) -> Vectors keyed by node id
evaluate.py  community recovery (k-means ARI, matched accuracy), link prediction AUC, the spectral baseline
report.py    measure(): one graph embedded both ways (walks + skip-gram, spectral) and scored side by side
"""

from embedlab.graphs.embed import embed_graph, train_config, train_walks
from embedlab.graphs.evaluate import community_recovery, link_prediction, spectral_embedding, split_edges
from embedlab.graphs.graph import GRAPHS, Graph, from_edges, from_networkx, load_graph, planted_partition
from embedlab.graphs.walks import WalkConfig, random_walks

__all__ = [
    "GRAPHS",
    "Graph",
    "WalkConfig",
    "community_recovery",
    "embed_graph",
    "from_edges",
    "from_networkx",
    "link_prediction",
    "load_graph",
    "planted_partition",
    "random_walks",
    "spectral_embedding",
    "split_edges",
    "train_config",
    "train_walks",
]
