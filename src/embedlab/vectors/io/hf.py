"""HuggingFace model folders, read only: a BERT-family model's input token table.

    hf (read)     FOLDER/config.json, model.safetensors, tokenizer.json: the word-embedding tensor
                                         (V, D); keys are the tokenizer's tokens in id order
                  a static model's folder (Model2Vec's, `embedlab distill`'s): its rows, one a token

Only that tensor is read from the checkpoint, and never from a pickle; torch is imported only for
a bfloat16 checkpoint (NumPy has no bfloat16), so a float32 table loads without it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from safetensors import SafetensorError, safe_open

from embedlab.data.models import WEIGHTS, read_config, token_table_name
from embedlab.errors import FileFormatError, MissingDataError
from embedlab.files.reading import KIND_SAFETENSORS, file_exists, not_readable
from embedlab.tokenizer.fast import FastTokenizer
from embedlab.vectors.io.table import Table, check_finite, table_read_from


def read_hf_table(folder: str | Path) -> Table:
    """A HuggingFace BERT-family folder -> its input token table: (V, D) rows, keys the tokens by id."""
    folder = Path(folder)
    read_config(folder)  # raises MissingDataError unless this is a model folder
    from embedlab.vectors.static import StaticModel, is_static_folder  # here: vectors.static reads vectors.io

    if is_static_folder(folder):  # its rows are the table: neighbours, compare and the projector read it
        model = StaticModel.load(folder)
        return _keyed(folder / WEIGHTS, "embeddings", model.rows.astype(np.float32), model.tokenizer.get_vocab(True))
    weights = folder / WEIGHTS
    if not file_exists(weights, "model weights (safetensors)"):
        raise MissingDataError(f"no {WEIGHTS} in {folder} (only safetensors are read, never pickles)")
    try:
        with safe_open(weights, framework="numpy") as f:
            name = token_table_name(set(f.keys()), weights)
            if f.get_slice(name).get_dtype() == "BF16":
                vectors = _read_bfloat16(weights, name)
            else:
                vectors = np.asarray(f.get_tensor(name), dtype=np.float32)  # (V, D); only this tensor is read
    except SafetensorError as err:
        raise not_readable(weights, "a safetensors checkpoint", KIND_SAFETENSORS, err) from None
    return _keyed(weights, name, vectors, FastTokenizer.load(folder).tokenizer.get_vocab(with_added_tokens=True))


def _keyed(weights: Path, name: str, vectors: np.ndarray, vocab: dict[str, int]) -> Table:
    """(V, D) rows and the tokenizer's token -> id, checked to be one token a row -> the table."""
    folder = weights.parent
    if len(vocab) != len(vectors) or set(vocab.values()) != set(range(len(vectors))):
        raise FileFormatError(
            f"{folder / 'tokenizer.json'}: token ids must be exactly 0..{len(vectors) - 1}, one per row of {name} "
            f"{tuple(vectors.shape)}; found {len(vocab)} tokens with ids {min(vocab.values(), default=None)}.."
            f"{max(vocab.values(), default=None)}"
        )
    keys = sorted(vocab, key=vocab.__getitem__)
    check_finite(weights, keys, vectors)
    return table_read_from(weights, keys, vectors)


def _read_bfloat16(weights: Path, name: str) -> np.ndarray:
    """The bfloat16 tensor `name` of a safetensors file as (V, D) float32 (exact: bfloat16 is the
    top half of a float32), read through torch since NumPy has no bfloat16."""
    import torch

    with safe_open(weights, framework="pt") as f:
        return f.get_tensor(name).to(torch.float32).numpy()
