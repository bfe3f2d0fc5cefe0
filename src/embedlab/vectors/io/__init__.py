"""Embedding tables on disk: V keys with their (V, D) vectors, read and written in common formats.

Every reader returns a `Table`; every writer takes one. A corrupt file raises FileFormatError naming
the file and the line (text) or byte offset (binary), and so does a NaN or ±inf value, naming its
row's key and column; a file of another kind (a gzip file named .txt) is named for what it holds,
never shown as raw bytes; a header promising more rows than the file holds is refused before
anything is allocated; a missing file or sidecar raises MissingDataError.

table.py       Table (keys, (V, D) float32 vectors, counts) and the checks every format shares
text.py        numbers as text: parse a row, write the shortest exact decimals, read lines
formats.py     FORMATS, detection by extension or content, read_table / write_table over them all
word2vec.py    word2vec text (.txt, .vec) and binary (.bin), as the C tool and gensim write them
fasttext.py    Facebook fastText's .bin model (words, n-gram buckets, output), mapped on read, and is_fasttext;
               floret's .bin too (two more Args fields), and the quantized .ftz
fasttext_model.py  what a .bin holds: FastTextModel, fastText's and floret's Args layouts and codes
ftz.py         what a .ftz adds: the pruned dictionary's n-gram ids, product-quantized matrices (read, written)
quantized.py   any table as a product-quantized .ftz (write_ftz; a word-vector model quantized, its output zeros)
cursor.py      a cursor over a mapped binary file whose complaints name the file and the byte offset
fasttext_inplace.py  a .bin whose matrices a trainer fills inside the file being written (no second copy)
floret.py      floret's text vectors (.floret, what spaCy reads): a floret table's bucket rows (write only)
arrays.py      .safetensors and .npy, each with its NAME.vocab.json of keys and counts
run.py         a training run's folder: every file's name, writer and reader (run.json, the table,
               update counts, subwords, snapshots, metrics), the one owner of that contract
projector.py   TensorFlow's Embedding Projector folder: vectors.tsv + metadata.tsv
hf.py          a HuggingFace BERT-family folder's input token table (read only)
benchmarks.py  word-pair and analogy benchmark files (WordSim-353, SimLex-999, Google)
"""

from embedlab.vectors.io.arrays import map_safetensors, write_tensors
from embedlab.vectors.io.benchmarks import read_analogies, read_pairs
from embedlab.vectors.io.formats import (
    EXTENSIONS,
    FORMATS,
    QUANTIZED_EXTENSIONS,
    QUANTIZED_FORMATS,
    SUBWORD_FORMATS,
    WRITE_ONLY_EXTENSIONS,
    detect_format,
    format_for,
    output_files,
    read_table,
    write_table,
)
from embedlab.vectors.io.hf import read_hf_table
from embedlab.vectors.io.run import RUN_SUBWORDS, RUN_TABLE
from embedlab.vectors.io.table import Table, first_duplicate

__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "QUANTIZED_EXTENSIONS",
    "QUANTIZED_FORMATS",
    "RUN_SUBWORDS",
    "RUN_TABLE",
    "SUBWORD_FORMATS",
    "WRITE_ONLY_EXTENSIONS",
    "Table",
    "detect_format",
    "first_duplicate",
    "map_safetensors",
    "format_for",
    "output_files",
    "read_analogies",
    "read_hf_table",
    "read_pairs",
    "read_table",
    "write_table",
    "write_tensors",
]
