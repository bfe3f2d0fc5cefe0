"""HuggingFace model folders, read only: a BERT-family model's input token table.

    hf (read)     FOLDER/config.json, model.safetensors, tokenizer.json: the word-embedding tensor
                                         (V, D); keys are the tokenizer's tokens in id order

Only that tensor is read from the checkpoint, and never from a pickle.
"""

from __future__ import annotations

from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open

from embedlab.errors import FileFormatError, MissingDataError
from embedlab.files import KIND_SAFETENSORS, not_readable
from embedlab.models.pretrained import WEIGHTS, load_tokenizer, read_config, token_table_name
from embedlab.vectors.io.table import Table, check_finite, table_read_from


def read_hf_table(folder: str | Path) -> Table:
    """A HuggingFace BERT-family folder -> its input token table: (V, D) rows, keys the tokens by id."""
    folder = Path(folder)
    read_config(folder)  # raises MissingDataError unless this is a model folder
    weights = folder / WEIGHTS
    if not weights.is_file():
        raise MissingDataError(f"no {WEIGHTS} in {folder} (only safetensors are read, never pickles)")
    try:
        # framework "pt": numpy has no bfloat16, which some checkpoints use
        with safe_open(weights, framework="pt") as f:
            name = token_table_name(set(f.keys()), weights)
            vectors = f.get_tensor(name).to(torch.float32).numpy()  # (V, D); only this tensor is read
    except SafetensorError as err:
        raise not_readable(weights, "a safetensors checkpoint", KIND_SAFETENSORS, err) from None
    vocab = load_tokenizer(folder).get_vocab(with_added_tokens=True)  # token -> id
    if len(vocab) != len(vectors) or set(vocab.values()) != set(range(len(vectors))):
        raise FileFormatError(
            f"{folder / 'tokenizer.json'}: token ids must be exactly 0..{len(vectors) - 1}, one per row of {name} "
            f"{tuple(vectors.shape)}; found {len(vocab)} tokens with ids {min(vocab.values(), default=None)}.."
            f"{max(vocab.values(), default=None)}"
        )
    keys = sorted(vocab, key=vocab.__getitem__)
    check_finite(weights, keys, vectors)
    return table_read_from(weights, keys, vectors)
