"""Real HuggingFace-format folders (config.json + model.safetensors) -> embedlab layers.

Only safetensors are read (never pickles), and only the tensors needed; no `transformers`
import. BERT-family checkpoints store the input embedding as

    [prefix]embeddings.word_embeddings.weight        (V, D)        -> token
    [prefix]embeddings.position_embeddings.weight    (max_len, D)  -> position
    [prefix]embeddings.token_type_embeddings.weight  (2, D)        -> segment
    [prefix]embeddings.LayerNorm.{weight,bias}       (D,)          -> norm

where the prefix is "" for a bare BertModel and "bert." for task models (BertForMaskedLM, ...).
and encoder layer i as

    [prefix]encoder.layer.{i}.attention.self.{query,key,value}.{weight,bias}   (D, D) nn.Linear: (out, in)
    [prefix]encoder.layer.{i}.attention.output.{dense,LayerNorm}.{weight,bias}
    [prefix]encoder.layer.{i}.{intermediate,output}.dense.{weight,bias}        D -> 4D -> D
    [prefix]encoder.layer.{i}.output.LayerNorm.{weight,bias}

(`encoder_names` maps all of them onto models.encoder.Encoder's own names).
"""

from __future__ import annotations

from pathlib import Path

from safetensors import SafetensorError, safe_open
from tokenizers import Tokenizer
from torch import nn

from embedlab.data.models import TOKEN_TABLE, WEIGHTS, checkpoint_prefix, read_config
from embedlab.errors import InvalidValueError, MissingDataError
from embedlab.files.reading import KIND_SAFETENSORS, file_exists, not_readable
from embedlab.layers.recipes import EmbeddingConfig, InputEmbedding
from embedlab.tokenizer.fast import FastTokenizer

SUPPORTED_MODEL_TYPES = ("bert",)

# our parameter name -> the checkpoint's names for it, newest spelling first
_BERT_NAMES = {
    "token.weight": (TOKEN_TABLE,),
    "position.weight": ("embeddings.position_embeddings.weight",),
    "segment.weight": ("embeddings.token_type_embeddings.weight",),
    "norm.weight": ("embeddings.LayerNorm.weight", "embeddings.LayerNorm.gamma"),
    "norm.bias": ("embeddings.LayerNorm.bias", "embeddings.LayerNorm.beta"),
}


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
    module = InputEmbedding(bert_config(read_config(folder)))
    return load_weights(module, folder, _BERT_NAMES).eval()


def encoder_layer_names(layer: int) -> dict[str, tuple[str, ...]]:
    """Our names for encoder layer `layer`'s parameters (models.encoder.EncoderLayer, without the
    `layers.{layer}.` prefix) -> the checkpoint's names, newest spelling first.

    >>> encoder_layer_names(0)["attention.query.weight"]
    ('encoder.layer.0.attention.self.query.weight',)
    """
    p = f"encoder.layer.{layer}."
    linears = {
        "attention.query": "attention.self.query", "attention.key": "attention.self.key",
        "attention.value": "attention.self.value", "attention.dense": "attention.output.dense",
        "ffn_in": "intermediate.dense", "ffn_out": "output.dense",
    }  # fmt: skip
    norms = {"attention_norm": "attention.output.LayerNorm", "ffn_norm": "output.LayerNorm"}
    names = {
        f"{ours}.{kind}": (p + f"{theirs}.{kind}",) for ours, theirs in linears.items() for kind in ("weight", "bias")
    }
    for ours, theirs in norms.items():  # old TF-converted checkpoints spell LayerNorm's weights gamma and beta
        names[f"{ours}.weight"] = (p + f"{theirs}.weight", p + f"{theirs}.gamma")
        names[f"{ours}.bias"] = (p + f"{theirs}.bias", p + f"{theirs}.beta")
    return names


def encoder_names(n_layers: int) -> dict[str, tuple[str, ...]]:
    """Every parameter of a models.encoder.Encoder (`embedding.*`, `layers.{i}.*`) -> the
    checkpoint's names for it: what `load_weights` needs to fill the whole encoder."""
    names = {f"embedding.{ours}": theirs for ours, theirs in _BERT_NAMES.items()}
    for i in range(n_layers):
        names.update({f"layers.{i}.{ours}": theirs for ours, theirs in encoder_layer_names(i).items()})
    return names


def load_weights(module: nn.Module, folder: str | Path, names: dict[str, tuple[str, ...]]) -> nn.Module:
    """Fill every tensor of `module`'s state dict from the folder's safetensors and return it.

    `names` maps each of our state-dict names to the checkpoint's names for it (without the
    "bert." prefix of task models, which is found from the file); the first spelling present
    wins. A missing tensor or a shape that disagrees with config.json is an error naming both.
    """
    folder = Path(folder)
    weights = folder / WEIGHTS
    if not file_exists(weights, "model weights (safetensors)"):
        raise MissingDataError(f"no {WEIGHTS} in {folder} (only safetensors are read, never pickles)")
    expected = module.state_dict()
    state = {}
    try:
        with safe_open(weights, framework="pt") as f:
            keys = set(f.keys())
            prefix = checkpoint_prefix(keys, weights)
            for ours, theirs in names.items():
                name = next((prefix + n for n in theirs if prefix + n in keys), None)
                if name is None:
                    raise InvalidValueError(f"{weights} has no tensor {prefix + theirs[0]!r}")
                tensor = f.get_tensor(name)
                shape = tuple(expected[ours].shape)
                if tuple(tensor.shape) != shape:
                    raise InvalidValueError(
                        f"{weights}: {name} has shape {tuple(tensor.shape)}, config.json implies {shape}"
                    )
                state[ours] = tensor
    except SafetensorError as err:
        raise not_readable(weights, "a safetensors checkpoint", KIND_SAFETENSORS, err) from None
    module.load_state_dict(state)  # strict: a parameter `names` forgot is a bug, and fails here
    return module


def load_tokenizer(folder: str | Path) -> Tokenizer:
    """The HuggingFace `tokenizers` Tokenizer of a model folder (its tokenizer.json), with padding
    and truncation off: read by FastTokenizer.load, the one reader of tokenizer files."""
    return FastTokenizer.load(folder).tokenizer
