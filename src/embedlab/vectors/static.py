"""A static sentence model: a tokenizer and one row a token, no attention. A text's vector is the mean
of its pieces' rows, so encoding is a lookup and a sum (Model2Vec's StaticModel, which this reads
and writes folder for folder).

    model = StaticModel.load("m2v-minilm")         # a folder: model.safetensors, tokenizer.json, config.json
    model.encode(["a cat sat", "the dog"])          (2, D) float32, unit rows (config "normalize")
    model.tokenize(["a cat sat"])                   [[ids]]: no [CLS]/[SEP], the unknown piece dropped
    model.save("out", force=False)                  the same folder layout, each file written atomically
    is_static_folder("out")                         True: what `embedlab encode` reads as a static model

A token's row already carries its weight (distillation multiplies each row by its SIF weight before
saving, as Model2Vec does), so the plain mean of rows is the weighted mean of the unweighted ones.
A folder may also hold a "weights" tensor (V,) and a "mapping" (V,) from token to row (Model2Vec's
quantised vocabularies): a token's row is then weights[t] · embeddings[mapping[t]].

Model2Vec's folder: model.safetensors holds "embeddings" (V, D) float32 or float16 (its default);
config.json says "normalize" (the only key its loader reads) and how the model was made;
tokenizer.json is a HuggingFace tokenizers file; modules.json lets sentence-transformers load the
folder as a StaticEmbedding. A text with no known piece encodes as the zero vector, as there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, OutputExistsError, check_int, plain
from embedlab.files import atomic_write_text, check_path, make_new_folder
from embedlab.files.reading import read_json, readable_file
from embedlab.vectors.io.arrays import map_safetensors, write_tensors
from embedlab.vectors.io.table import check_finite, check_finite_to_write
from embedlab.vectors.similarity import unit_rows

WEIGHTS, TOKENIZER, CONFIG, MODULES = "model.safetensors", "tokenizer.json", "config.json", "modules.json"
FOLDER = "a static model folder (Model2Vec's: model.safetensors, tokenizer.json, config.json)"
MAX_LENGTH = 512  # pieces a text keeps, Model2Vec's default
BATCH = 1024  # texts tokenised at once


@dataclass
class StaticModel:
    """tokenizer, rows (V, D) float32 or float16 (row t: token id t's), normalize (unit output rows),
    config (how it was made: written to config.json beside "normalize"), max_length (pieces a text
    keeps; None: all)."""

    tokenizer: Tokenizer
    rows: np.ndarray
    normalize: bool = True
    config: dict = field(default_factory=dict)
    max_length: int | None = MAX_LENGTH

    def __post_init__(self) -> None:
        if self.rows.ndim != 2 or self.rows.dtype not in (np.float32, np.float16):
            raise InvalidValueError(f"rows must be a (V, D) float32 or float16 array; got {self.rows.dtype} "
                                    f"{self.rows.shape}")  # fmt: skip
        size = self.tokenizer.get_vocab_size(with_added_tokens=True)
        if len(self.rows) != size:
            raise InvalidValueError(f"{len(self.rows):,} rows for a tokenizer of {size:,} tokens; one row a token")
        if self.max_length is not None:
            check_int("max_length", self.max_length, low=1)
        self._unknown = _unknown_id(self.tokenizer)
        import torch  # here, not at the top: vectors.io.hf imports this module for every model folder it reads

        self._table = torch.from_numpy(np.asarray(self.rows, dtype=np.float32))  # float16 rows: one float32 copy

    @property
    def dim(self) -> int:
        return self.rows.shape[1]

    def tokenize(self, texts: list[str], max_length: int | None = None) -> list[list[int]]:
        """Each text's piece ids: no special tokens, the unknown piece dropped, at most max_length
        (default: the model's)."""
        keep = self.max_length if max_length is None else check_int("max_length", max_length, low=1)
        encoded = self.tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)
        return [[i for i in e.ids if i != self._unknown][:keep] for e in encoded]

    def encode(self, texts: list[str] | str, max_length: int | None = None, batch_size: int = BATCH) -> np.ndarray:
        """texts (N,) -> (N, D) float32: each the mean of its pieces' rows (unit length if normalize;
        zeros for a text with no known piece). One str is one text: (1, D). max_length: as tokenize."""
        texts = [texts] if isinstance(texts, str) else list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise InvalidValueError("texts must be strings")
        check_int("batch_size", batch_size, low=1)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            ids = self.tokenize(texts[start : start + batch_size], max_length)
            lengths = np.array([len(i) for i in ids], dtype=np.int64)
            flat = np.fromiter((i for piece in ids for i in piece), dtype=np.int64, count=int(lengths.sum()))
            offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])  # where each text's pieces start
            # torch's bag of rows: each text's mean in float32 without gathering its rows first; an
            # empty bag is the zero vector
            import torch

            flat_t, offsets_t = torch.from_numpy(flat), torch.from_numpy(offsets)
            bags = torch.nn.functional.embedding_bag(flat_t, self._table, offsets_t, mode="mean")
            out[start : start + len(ids)] = bags.numpy()
        return unit_rows(out) if self.normalize else out

    def save(self, folder: str | Path, force: bool = False) -> Path:
        """Write Model2Vec's folder (model.safetensors "embeddings", tokenizer.json, config.json,
        modules.json), each file atomically. Without force the folder must be new or empty and is
        claimed exclusively (of two writers, one wins; the other gets OutputExistsError)."""
        folder = Path(check_path(folder, "an output folder"))
        check_finite_to_write(folder / WEIGHTS, None, self.rows, why="a static model's rows must be finite numbers")
        if folder.exists() and not folder.is_dir():
            raise OutputExistsError(f"{folder} is a file, not a folder; a static model is a folder of files")
        if force:
            folder.mkdir(parents=True, exist_ok=True)
        elif folder.is_dir() and any(folder.iterdir()):
            raise OutputExistsError(f"{folder} already holds files; choose another folder, or force to replace them")
        else:
            make_new_folder(folder, CONFIG)  # exclusive: of two writers of one new folder, one gets it
        config = {"model_type": "model2vec", "architectures": ["StaticModel"], **self.config,
                  "hidden_dim": self.dim, "normalize": self.normalize, "max_length": self.max_length,
                  "embedding_dtype": str(self.rows.dtype)}  # fmt: skip
        write_tensors(folder / WEIGHTS, {"embeddings": self.rows})
        atomic_write_text(folder / TOKENIZER, self.tokenizer.to_str())
        modules = [{"idx": 0, "name": "0", "path": ".", "type": "sentence_transformers.models.StaticEmbedding"}]
        if self.normalize:
            normalize = "sentence_transformers.models.Normalize"
            modules.append({"idx": 1, "name": "1", "path": "1_Normalize", "type": normalize})
        atomic_write_text(folder / MODULES, json.dumps(modules, indent=2) + "\n")
        atomic_write_text(folder / CONFIG, json.dumps(config, indent=2) + "\n")  # last: the claim becomes whole
        return folder

    @classmethod
    def load(cls, folder: str | Path) -> StaticModel:
        """A Model2Vec folder (ours or theirs) -> StaticModel. A missing file, a tensor of the wrong
        shape or kind, rows that disagree with the tokenizer's vocabulary, or a non-finite value is a
        one-line error naming the file."""
        folder = Path(check_path(folder, "a static model folder"))
        if not folder.is_dir():
            raise MissingDataError(f"{folder} is not a folder; expected {FOLDER}")
        for name in (WEIGHTS, TOKENIZER, CONFIG):
            if not (folder / name).exists():
                raise MissingDataError(f"{folder} lacks {name}; expected {FOLDER}")
        config = read_json(folder / CONFIG, "static model config", "write the folder again")
        normalize, max_length = config.get("normalize", False), config.get("max_length", MAX_LENGTH)
        if not isinstance(normalize, bool):
            raise FileFormatError(f"{folder / CONFIG}: 'normalize' holds {normalize!r} where true or false goes")
        if max_length is not None and (
            isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1
        ):
            raise FileFormatError(
                f"{folder / CONFIG}: 'max_length' holds {max_length!r} where a count >= 1 or null goes"
            )
        try:
            tokenizer = Tokenizer.from_file(str(readable_file(folder / TOKENIZER, "a tokenizers tokenizer.json")))
        except Exception as err:  # tokenizers raises its own Exception for a file it cannot parse
            raise FileFormatError(f"{folder / TOKENIZER}: not a tokenizers tokenizer.json ({plain(err)})") from None
        rows = _rows(folder / WEIGHTS)
        size = tokenizer.get_vocab_size(with_added_tokens=True)
        if len(rows) != size:
            raise FileFormatError(f"{folder / WEIGHTS}: {len(rows):,} rows, but {folder / TOKENIZER} has {size:,} "
                                  "tokens; a static model has one row a token")  # fmt: skip
        read = ("normalize", "hidden_dim", "embedding_dtype", "max_length")
        kept = {k: v for k, v in config.items() if k not in read}
        return cls(tokenizer, rows, normalize, kept, max_length)


def is_static_folder(path: str | Path) -> bool:
    """Whether `path` is a static model's folder, Model2Vec's or ours: model.safetensors and
    tokenizer.json beside a config.json that is not a transformer's (no "num_hidden_layers")."""
    path = Path(path)
    if not all((path / name).is_file() for name in (WEIGHTS, TOKENIZER, CONFIG)):
        return False
    try:
        config = json.loads((path / CONFIG).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return True  # StaticModel.load says what is wrong with it
    return not isinstance(config, dict) or "num_hidden_layers" not in config


def _rows(path: Path) -> np.ndarray:
    """model.safetensors -> (V, D) rows in memory: "embeddings", times "weights" and through "mapping"
    where the folder has them (each token t: weights[t] · embeddings[mapping[t]])."""
    tensors, _ = map_safetensors(path)
    if "embeddings" not in tensors:
        raise FileFormatError(f"{path}: no tensor named 'embeddings'; found {', '.join(tensors) or 'none'}")
    table = tensors["embeddings"]
    if table.ndim != 2 or table.dtype not in (np.float32, np.float16):
        raise FileFormatError(f"{path}: 'embeddings' is {table.dtype} {table.shape}; expected (V, D) float32/float16")
    check_finite(path, None, table, why="a static model's rows must be finite numbers")
    mapping, weights = tensors.get("mapping"), tensors.get("weights")
    rows = np.array(table)
    if mapping is not None:
        inside = len(mapping) == 0 or 0 <= mapping.min() <= mapping.max() < len(table)
        if mapping.ndim != 1 or mapping.dtype.kind != "i" or not inside:
            raise FileFormatError(f"{path}: 'mapping' must be (V,) integers below {len(table):,}")
        rows = rows[np.asarray(mapping)]
    if weights is not None:
        if weights.shape != (len(rows),) or not np.isfinite(weights).all():
            raise FileFormatError(f"{path}: 'weights' must be ({len(rows):,},) finite numbers; got {weights.shape}")
        rows = (rows.astype(np.float32) * np.asarray(weights, dtype=np.float32)[:, None]).astype(rows.dtype)
    return rows


def _unknown_id(tokenizer: Tokenizer) -> int | None:
    """The id of the tokenizer model's unknown piece ([UNK] for WordPiece), None if it has none."""
    token = getattr(tokenizer.model, "unk_token", None)
    return tokenizer.token_to_id(token) if isinstance(token, str) else None
