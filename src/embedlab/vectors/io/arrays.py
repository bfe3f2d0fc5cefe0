"""Array formats, each with its keys in a sidecar beside it.

    safetensors   NAME.safetensors       one tensor "vectors" (V, D) float32
                  + NAME.vocab.json      {"keys": [V strings], "counts": [V ints] or null}
    npy           NAME.npy               a (V, D) float32 array, read without pickles
                  + NAME.vocab.json      as above; on read, NAME.tokens.txt (one key a line) also serves

Both files are written atomically, the keys encoded first: a key UTF-8 cannot hold leaves both old
files as they were.

    map_safetensors(path)  -> ({name: read-only memory-mapped array}, metadata): a subword run's
                              subwords.safetensors (800 MB of bucket rows for 2,000,000 x 100) unread
    write_tensors(path, {name: array}, metadata)   its writer: each array streamed from its own memory
                              (a view of a training table is never copied), atomically; every
                              safetensors file embedlab writes goes through stream_tensors
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import BinaryIO

import numpy as np
from safetensors import SafetensorError, safe_open

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, plain
from embedlab.files import atomic_writer
from embedlab.files.reading import KIND_NPY, KIND_SAFETENSORS, not_readable, read_json, readable_file
from embedlab.vectors.io.table import Table, check_finite, check_finite_to_write, table_read_from
from embedlab.vectors.io.text import read_lines

SAFETENSORS = 'a safetensors file holding a (V, D) float tensor "vectors"'
NPY = "a NumPy .npy array (V, D) of floats"
# NumPy dtype <-> safetensors' name, both ways: what write_tensors writes, map_safetensors maps
_TENSOR_DTYPES = {"F16": np.float16, "F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32}
_NPY_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def read_safetensors(path: Path) -> Table:
    """NAME.safetensors (tensor "vectors") + its sidecar -> Table."""
    readable_file(path, SAFETENSORS)
    try:
        with safe_open(path, framework="np") as f:
            names = list(f.keys())
            vectors = f.get_tensor("vectors") if "vectors" in names else None
    except SafetensorError as err:
        raise not_readable(path, SAFETENSORS, KIND_SAFETENSORS, err) from None
    except TypeError as err:  # a dtype numpy lacks (bfloat16)
        raise FileFormatError(f"{path}: expected {SAFETENSORS} of a dtype NumPy holds ({plain(err)})") from None
    if vectors is None:
        raise FileFormatError(f"{path}: no tensor named 'vectors'; found {', '.join(names) or 'none'}")
    return _with_sidecar(path, vectors)


def map_safetensors(path: Path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Every tensor of a safetensors file as a read-only memory map (nothing read until used), with
    the file's metadata. The header's offsets and shapes are checked against the file's size first."""
    kinds = _TENSOR_DTYPES
    size = readable_file(path, "a safetensors file").stat().st_size
    with open(path, "rb") as f:
        head = f.read(8)
        length = int.from_bytes(head, "little") if len(head) == 8 else -1
        if not 0 < length <= size - 8:
            raise not_readable(path, "a safetensors file", KIND_SAFETENSORS)
        try:
            header = json.loads(f.read(length))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise FileFormatError(f"{path}: a safetensors header that is not JSON ({plain(err)})") from None
    metadata = header.pop("__metadata__", None) or {}
    arrays = {}
    for name, spec in header.items():
        dtype, shape, (start, stop) = kinds.get(spec.get("dtype")), spec.get("shape"), spec.get("data_offsets", (0, -1))
        count = math.prod(shape) if isinstance(shape, list) else -1
        if dtype is None or count < 0 or stop - start != count * np.dtype(dtype).itemsize or 8 + length + stop > size:
            raise FileFormatError(f"{path}: tensor {name!r} ({spec}) does not fit the file ({size:,} bytes)")
        arrays[name] = np.memmap(path, dtype=dtype, mode="r", offset=8 + length + start, shape=tuple(shape))
    return arrays, metadata


def write_tensors(
    path: Path, tensors: dict[str, np.ndarray], metadata: dict[str, str] | None = None, replace: bool = True
) -> Path:
    """{name: array of any shape} and string metadata -> a safetensors file at `path`, written
    atomically (replace False: only if nothing is there, files.atomic_writer) -> path."""
    with atomic_writer(path, "wb", replace) as f:
        stream_tensors(f, tensors, metadata)
    return Path(path)


def stream_tensors(f: BinaryIO, tensors: dict[str, np.ndarray], metadata: dict[str, str] | None = None) -> None:
    """Write {name: array} and string metadata to the open file `f` as safetensors, each array
    straight from its own memory: a (2,000,000, 100) view of a training table costs no copy, where
    safetensors' own `save` builds the whole file as bytes first."""
    names = {np.dtype(kind): name for name, kind in _TENSOR_DTYPES.items()}
    arrays = {name: np.ascontiguousarray(a) for name, a in tensors.items()}  # already contiguous: no copy
    header, offset = {}, 0
    for name, a in arrays.items():
        if a.dtype not in names:
            held = ", ".join(str(dtype) for dtype in names)
            raise InvalidValueError(f"tensor {name!r} is {a.dtype}; a safetensors file here holds {held}")
        header[name] = {"dtype": names[a.dtype], "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}  # safetensors keeps strings only
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned, as safetensors pads its header
    f.write(len(text).to_bytes(8, "little"))
    f.write(text)
    for a in arrays.values():
        if a.size:
            f.write(a.data)


def read_npy(path: Path) -> Table:
    """NAME.npy (never unpickled) + its sidecar -> Table."""
    return _with_sidecar(path, read_array(path, NPY))


def read_array(path: Path, expected: str) -> np.ndarray:
    """A .npy file -> its array, never unpickled. The shape its header promises is checked against
    the file's size before anything is allocated; a file of another kind, a damaged header or an
    array of Python objects raises FileFormatError naming the file and `expected` ("update counts")."""
    with open(readable_file(path, expected), "rb") as f:
        if f.read(6) != b"\x93NUMPY":
            raise not_readable(path, expected, KIND_NPY)
        version = tuple(f.read(2))  # after the magic string: major, minor
        if version not in _NPY_HEADERS:
            why = f"format version {version[0]}.{version[1]}; 1.0 and 2.0 are read" if len(version) == 2 else ""
            raise not_readable(path, expected, detail=why)
        try:
            shape, _, dtype = _NPY_HEADERS[version](f)
        except Exception:  # a damaged header reaches numpy's literal parser, which raises many kinds
            raise not_readable(path, expected, detail="its header cannot be parsed") from None
        if dtype.hasobject:
            raise FileFormatError(f"{path}: expected {expected}; found an array of Python objects (never unpickled)")
        needed, held = math.prod(shape) * dtype.itemsize, os.fstat(f.fileno()).st_size - f.tell()
        if needed > held:
            raise FileFormatError(
                f"{path}: its header promises shape {shape} of {dtype} ({needed:,} bytes), but the file holds "
                f"{held:,} bytes after the header; expected {expected}"
            )
        f.seek(0)
        try:
            return np.lib.format.read_array(f, allow_pickle=False)
        except Exception as err:  # the data part disagrees with the header
            raise not_readable(path, expected, detail=type(err).__name__) from None


def write_safetensors(table: Table, path: Path, replace: bool = True) -> list[Path]:
    """Table -> NAME.safetensors and NAME.vocab.json (replace False: only if both are new) -> both paths."""
    return _write_with_vocab(table, path, lambda f: stream_tensors(f, {"vectors": table.vectors}), replace)


def write_npy(table: Table, path: Path, replace: bool = True) -> list[Path]:
    """Table -> NAME.npy and NAME.vocab.json (replace False: only if both are new) -> both paths."""
    return _write_with_vocab(table, path, lambda f: np.save(f, table.vectors, allow_pickle=False), replace)


def sidecar(path: Path, suffix: str = ".vocab.json") -> Path:
    """table.npy -> table.vocab.json (or another `suffix`)."""
    return path.with_name(path.stem + suffix)


def _write_with_vocab(table: Table, path: Path, write_vectors, replace: bool) -> list[Path]:
    # Encoded before either file is touched, so a key UTF-8 cannot hold leaves both old files as they were.
    vocab = json.dumps({"keys": table.keys, "counts": table.counts}, ensure_ascii=False).encode("utf-8")
    check_finite_to_write(path, table.keys, table.vectors)
    keys_file = sidecar(path)
    with atomic_writer(path, "wb", replace) as f:  # the first file decides which of two writers goes on
        write_vectors(f)
    with atomic_writer(keys_file, "wb", replace) as f:
        f.write(vocab)
    return [path, keys_file]


def _with_sidecar(path: Path, vectors: np.ndarray) -> Table:
    """(V, D) vectors read from `path` + keys and counts from its sidecar -> Table."""
    if vectors.ndim != 2 or vectors.dtype.kind != "f":
        raise FileFormatError(f"{path}: expected a 2-D float array (V, D); found {vectors.dtype} {vectors.shape}")
    vocab, tokens = sidecar(path), sidecar(path, ".tokens.txt")
    if vocab.exists():
        source = vocab
        obj = read_json(vocab, "table key list", "write the table again, which writes both files")
        if not (isinstance(obj.get("keys"), list) and isinstance(obj.get("counts"), list | None)):
            raise FileFormatError(f'{vocab}: expected {{"keys": [strings], "counts": [integers] or null}}')
        keys, counts = obj["keys"], obj.get("counts")
    elif tokens.exists():
        source, keys, counts = tokens, read_lines(tokens, "a key list: one key a line"), None
    else:
        raise MissingDataError(f"{path} has no key list beside it: expected {vocab.name} (or {tokens.name})")
    if len(keys) != len(vectors):
        raise FileFormatError(f"{source}: {len(keys)} keys, but {path.name} has {len(vectors)} rows")
    check_finite(path, keys, vectors)
    return table_read_from(source, keys, vectors, counts)
