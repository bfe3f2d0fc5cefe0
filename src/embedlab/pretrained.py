"""Real HuggingFace-format folders (config.json + model.safetensors) -> embedlab layers.

Only safetensors are read (never pickles), and only the tensors needed; no `transformers`
import. BERT-family checkpoints store the input embedding as

    [prefix]embeddings.word_embeddings.weight        (V, D)        -> token
    [prefix]embeddings.position_embeddings.weight    (max_len, D)  -> position
    [prefix]embeddings.token_type_embeddings.weight  (2, D)        -> segment
    [prefix]embeddings.LayerNorm.{weight,bias}       (D,)          -> norm

where the prefix is "" for a bare BertModel and "bert." for task models (BertForMaskedLM, ...).
"""

from __future__ import annotations

import json
from pathlib import Path

from safetensors import safe_open
from tokenizers import Tokenizer

from embedlab.errors import InvalidValueError, MissingDataError
from embedlab.layers.recipes import EmbeddingConfig, InputEmbedding

WEIGHTS = "model.safetensors"
SUPPORTED_MODEL_TYPES = ("bert",)

# our parameter name -> the checkpoint's names for it, newest spelling first
_BERT_NAMES = {
    "token.weight": ("embeddings.word_embeddings.weight",),
    "position.weight": ("embeddings.position_embeddings.weight",),
    "segment.weight": ("embeddings.token_type_embeddings.weight",),
    "norm.weight": ("embeddings.LayerNorm.weight", "embeddings.LayerNorm.gamma"),
    "norm.bias": ("embeddings.LayerNorm.bias", "embeddings.LayerNorm.beta"),
}


def read_config(folder: str | Path) -> dict:
    """The parsed config.json of a model folder."""
    path = Path(folder) / "config.json"
    if not path.is_file():
        raise MissingDataError(f"no config.json in {folder}: not a HuggingFace-format model folder")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InvalidValueError(f"{path} is not valid JSON: {err}") from None


def bert_config(config: dict) -> EmbeddingConfig:
    """A BERT config.json dict -> the EmbeddingConfig of its input embedding."""
    model_type = config.get("model_type")
    if model_type not in SUPPORTED_MODEL_TYPES:
        raise InvalidValueError(
            f"model_type {model_type!r} is not supported; supported: {', '.join(SUPPORTED_MODEL_TYPES)}"
        )
    kind = config.get("position_embedding_type", "absolute")
    if kind != "absolute":
        raise InvalidValueError(f"position_embedding_type {kind!r} is not supported; supported: absolute")
    try:
        return EmbeddingConfig(
            vocab_size=config["vocab_size"],
            dim=config["hidden_size"],
            positions="learned",
            max_len=config["max_position_embeddings"],
            n_segments=config.get("type_vocab_size", 2),
            layer_norm=True,
            layer_norm_eps=config.get("layer_norm_eps", 1e-12),
            dropout=config.get("hidden_dropout_prob", 0.1),
            padding_idx=config.get("pad_token_id"),
            tied_head=config.get("tie_word_embeddings", True),
        )
    except KeyError as err:
        raise InvalidValueError(f"config.json lacks the field {err.args[0]!r}") from None


def load_input_embedding(folder: str | Path) -> InputEmbedding:
    """A BERT-family folder -> its InputEmbedding with the real weights, in eval mode.

    Output equals transformers' `BertModel.embeddings` on the same ids (see the tests).
    """
    folder = Path(folder)
    config = bert_config(read_config(folder))
    weights = folder / WEIGHTS
    if not weights.is_file():
        raise MissingDataError(f"no {WEIGHTS} in {folder} (only safetensors are read, never pickles)")
    module = InputEmbedding(config)
    state = {}
    with safe_open(weights, framework="pt") as f:
        keys = set(f.keys())
        prefix = _prefix(keys, weights)
        for ours, names in _BERT_NAMES.items():
            name = next((prefix + n for n in names if prefix + n in keys), None)
            if name is None:
                raise InvalidValueError(f"{weights} has no tensor {prefix + names[0]!r}")
            state[ours] = f.get_tensor(name)
    expected = module.state_dict()
    for name, tensor in state.items():
        if tensor.shape != expected[name].shape:
            raise InvalidValueError(
                f"{weights}: {name} has shape {tuple(tensor.shape)}, config.json implies {tuple(expected[name].shape)}"
            )
    module.load_state_dict(state)
    return module.eval()


def load_tokenizer(folder: str | Path) -> Tokenizer:
    """The HuggingFace `tokenizers` Tokenizer saved as tokenizer.json in a model folder."""
    path = Path(folder) / "tokenizer.json"
    if not path.is_file():
        raise MissingDataError(f"no tokenizer.json in {folder}")
    try:
        return Tokenizer.from_file(str(path))
    except Exception as err:  # the Rust library raises a bare Exception on a corrupt file
        raise InvalidValueError(f"{path} is not a valid tokenizer file: {err}") from None


def _prefix(keys: set[str], path: Path) -> str:
    """'' or e.g. 'bert.': whatever precedes the word-embedding tensor's name."""
    suffix = _BERT_NAMES["token.weight"][0]
    found = sorted(k[: -len(suffix)] for k in keys if k.endswith(suffix))
    if not found:
        raise InvalidValueError(f"{path} has no tensor named '*{suffix}': not a BERT-family checkpoint")
    return found[0]


