"""Parameter and memory arithmetic of a model's embedding part, in exact integers.

The embedding part is every learned table between the input ids (or pixels) and the first
attention layer, plus the output projection back onto the vocabulary when it is a separate
matrix. Counting it needs no weights, only the layout:

    token     (V, D)            one row per vocabulary entry
    position  (max_len, D)      learned positions only; ViT: (N + 1, D), the +1 for CLS
    segment   (n_segments, D)   BERT's sentence A / sentence B
    output    (V, D)            only when untied; a tied head reuses the token table
    patch     (D, C, P, P) + D  ViT's patch projection (a Conv2d with stride P) and its bias
    cls       (1, D)            ViT's learned classification token

A huge vocabulary may keep fewer numbers than V·D in its token table (lesson 002: "huge V:
smaller d, adaptive or hashed embeddings"); each kind is a module in embedlab.layers, and `count`
equals its parameter count:

    hashed             (B, D)                     the hashing trick, V ids into B rows (k = 1);
                       (B, D) + (K, k)            hash embeddings: k rows mixed by weights from K rows
    quotient-remainder (ceil(V/m), w) + (m, w)    w = D, or D/2 when the two rows are concatenated
    adaptive           (c0, D) + (c1-c0, D/4) + … frequency bands, each narrower band with a (w, D)
                                                  projection; a tied adaptive softmax adds its
                                                  cluster rows (n_bands - 1, D) under output
    factorized         (V, E) + (D, E)            ALBERT's: a table E wide (E < D), each row mapped up to
                                                  D by one shared matrix; a tied head reads both

Worked example, BERT-base (V 30,522, D 768, 512 learned positions, 2 segments, tied):

    30,522·768 + 512·768 + 2·768 = 23,440,896 + 393,216 + 1,536 = 23,835,648 parameters,
    of which the token table is 98.3%; in fp32 that is 95,342,592 bytes ≈ 90.9 MiB.

Memory is parameters × bytes per parameter: a property of the weights alone, independent of
batch size and sequence length. The output X these tables hand to attention is not: it holds
B·T·D values (lesson 002: "params V·d; activations B·T·d"), counted by `activation_bytes`.
`gpt2_params` adds the transformer blocks of a GPT-2-shaped model, so that a table can be read as
a share of the whole model.

Modules (the CLI's help, the lab, the arena and the trainers import them without torch):
    layout.py    EmbeddingLayout, its checks, and `count`: a new kind of table adds a field, its
                 check and its count side by side, in one file
    presets.py   real models' layouts (PRESETS, `preset`), each read off its config.json
    model.py     what a layout costs beyond its tables: activations (B·T·D), GPT-2 blocks, and
                 concatenating the input rows instead of adding them
    memory.py    this machine's memory, set against a size before it is allocated (check_memory)
    stored.py    one (rows, D) table stored as fp32, fp16, int8 or product-quantized codes (a .ftz's)
"""

from embedlab.sizing.layout import (
    BYTES_PER_PARAM,
    COMBINES,
    POSITION_KINDS,
    QR_OPS,
    TABLES,
    VOCAB_TABLES,
    EmbeddingLayout,
    SizeReport,
    adaptive_bands,
    count,
    qr_shapes,
)
from embedlab.sizing.model import CombineCost, activation_bytes, block_params, combine_cost, gpt2_params
from embedlab.sizing.presets import PRESETS, preset
from embedlab.sizing.stored import QuantizedBytes, StoredBytes, quantized_bytes, stored_bytes, token_matrix

__all__ = [
    "BYTES_PER_PARAM",
    "COMBINES",
    "POSITION_KINDS",
    "PRESETS",
    "QR_OPS",
    "QuantizedBytes",
    "TABLES",
    "VOCAB_TABLES",
    "CombineCost",
    "EmbeddingLayout",
    "SizeReport",
    "StoredBytes",
    "activation_bytes",
    "adaptive_bands",
    "block_params",
    "combine_cost",
    "count",
    "gpt2_params",
    "preset",
    "qr_shapes",
    "quantized_bytes",
    "stored_bytes",
    "token_matrix",
]
