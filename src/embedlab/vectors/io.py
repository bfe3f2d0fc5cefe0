"""Embedding tables on disk: read and write V keys with their (V, D) vectors in common formats.

Every reader returns a `Table`; every writer takes one. The formats and their files:

    word2vec      NAME.txt | NAME.vec    "V D\\n", then V lines "key f1 ... fD\\n"
    word2vec-bin  NAME.bin               "V D\\n", then V records: UTF-8 key, b" ", D little-endian float32
                                         (gensim writes nothing after a record, the original C tool b"\\n")
    safetensors   NAME.safetensors       one tensor "vectors" (V, D) float32
                  + NAME.vocab.json      {"keys": [V strings], "counts": [V ints] or null}
    npy           NAME.npy               a (V, D) float32 array, read without pickles
                  + NAME.vocab.json      as above; on read, NAME.tokens.txt (one key a line) also serves
    projector     FOLDER/vectors.tsv     V lines of D tab-separated floats, no header
                  FOLDER/metadata.tsv    V keys, one a line; with counts a header "word\\tcount" and two
                                         columns (the layout of TensorFlow's Embedding Projector)
    hf (read)     FOLDER/config.json, model.safetensors, tokenizer.json: the word-embedding tensor
                                         (V, D); keys are the tokenizer's tokens in id order

Floats are written as the shortest decimal that reads back to the same float32, as gensim does, so
text round trips are exact. A corrupt file raises FileFormatError naming the file and the line
(text) or byte offset (binary); a missing file or sidecar raises MissingDataError.
"""

from __future__ import annotations

import json
import numbers
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import safetensors.numpy
import torch
from safetensors import SafetensorError, safe_open

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_choice, describe
from embedlab.files import atomic_writer
from embedlab.models.pretrained import _BERT_NAMES, WEIGHTS, _prefix, load_tokenizer, read_config

FORMATS = ("word2vec", "word2vec-bin", "safetensors", "npy", "projector")  # writable; "hf" is read-only
RUN_TABLE = "vectors.safetensors"  # the table inside an `embedlab train` output folder
_EXTENSIONS = {
    ".txt": "word2vec",
    ".vec": "word2vec",
    ".bin": "word2vec-bin",
    ".safetensors": "safetensors",
    ".npy": "npy",
    ".tsv": "projector",
}
# What would split a key in a text format. word2vec tools (C, gensim, fastText) split on ASCII whitespace
# only, so keys may hold other spaces (U+00A0, U+3000).
_W2V_SPACE = frozenset(" \t\n\r\v\f"), "ASCII whitespace"
_FORBIDDEN = {
    "word2vec": _W2V_SPACE,
    "word2vec-bin": _W2V_SPACE,
    "projector": (frozenset("\t\n\r"), "tabs or line breaks"),
}


@dataclass(frozen=True, eq=False)  # eq=False: comparing arrays elementwise has no single truth value
class Table:
    """V keys, their vectors and optionally their corpus counts, row i belonging to keys[i].

    >>> t = Table(["king", "queen"], [[1.0, 2.0], [3.0, 4.0]], counts=[7, 5])
    >>> t.vectors.dtype, t.vectors.shape
    (dtype('float32'), (2, 2))
    """

    keys: list[str]  # (V,) unique
    vectors: np.ndarray  # (V, D) float32, C-contiguous
    counts: list[int] | None = None  # (V,) non-negative, or None when unknown

    def __post_init__(self) -> None:
        vectors = np.asarray(self.vectors)
        if vectors.ndim != 2 or vectors.dtype.kind != "f":
            raise InvalidValueError(f"vectors must be a 2-D float array (V, D); got {vectors.dtype} {vectors.shape}")
        keys = list(self.keys)
        if len(keys) != len(vectors):
            raise InvalidValueError(f"{len(keys)} keys for {len(vectors)} rows of vectors; need one key per row")
        bad = next((i for i, key in enumerate(keys) if not isinstance(key, str)), None)
        if bad is not None:
            raise InvalidValueError(f"key at row {bad} must be a str; got {keys[bad]!r}")
        if dup := first_duplicate(keys):
            raise InvalidValueError(f"duplicate key {dup[0]!r} at rows {dup[1]} and {dup[2]}; keys must be unique")
        counts = self.counts
        if counts is not None:
            counts = list(counts)
            if len(counts) != len(keys):
                raise InvalidValueError(f"{len(counts)} counts for {len(keys)} keys; need one count per key")
            for i, c in enumerate(counts):
                if isinstance(c, bool) or not isinstance(c, numbers.Integral) or c < 0:
                    raise InvalidValueError(f"count at row {i} ({keys[i]!r}) must be an integer >= 0; got {c!r}")
            counts = [int(c) for c in counts]
        object.__setattr__(self, "keys", keys)
        object.__setattr__(self, "vectors", np.ascontiguousarray(vectors, dtype=np.float32))
        object.__setattr__(self, "counts", counts)


def read_table(path: str | Path) -> Table:
    """A table file or folder in any format of this module -> Table with (V, D) float32 vectors."""
    path = Path(path)
    if path.is_dir() and (path / RUN_TABLE).is_file():  # an `embedlab train` output folder
        path = path / RUN_TABLE
    return _READERS[detect_format(path)](path)


def write_table(table: Table, path: str | Path, format: str) -> list[Path]:
    """Write `table` in `format` (one of FORMATS; "projector" takes a folder) -> the files written.

    Each file is written atomically; keys a text format cannot hold are refused before any file is
    touched, naming the key and its row.
    """
    check_choice("format", format, FORMATS)
    if not isinstance(table, Table):
        raise InvalidValueError(f"table must be a Table; got {describe(table)}")
    return _WRITERS[format](table, Path(path))


def detect_format(path: str | Path) -> str:
    """The format of a table file or folder: one of FORMATS or "hf", by extension, else by content."""
    path = Path(path)
    if path.is_dir():
        if (path / "config.json").is_file():
            return "hf"
        if (path / "vectors.tsv").is_file():
            return "projector"
        if (path / RUN_TABLE).is_file():
            return "safetensors"
        raise InvalidValueError(
            f"{path} holds none of config.json (a HuggingFace model), vectors.tsv (a projector), "
            f"{RUN_TABLE} (an embedlab training run)"
        )
    if not path.is_file():
        raise MissingDataError(f"no table at {path}: no such file or folder")
    if path.suffix.lower() in _EXTENSIONS:
        return _EXTENSIONS[path.suffix.lower()]
    with open(path, "rb") as f:
        head = f.read(9)
        f.seek(0)
        first = f.readline(4096)
        header = _header(first.decode("utf-8", "replace"))
        # A text record holds ~20 bytes a number; read enough for one whole line and a long key.
        record = f.readline(32 * (header[1] + 1) + 65536) if header else b""
    if head.startswith(b"\x93NUMPY"):
        return "npy"
    if len(head) == 9 and head[8:9] == b"{" and 0 < int.from_bytes(head[:8], "little") <= path.stat().st_size - 8:
        return "safetensors"
    if header:
        return "word2vec" if not record or _is_text_row(record, header[1]) else "word2vec-bin"
    if _is_tsv_row(first):
        return "projector"
    raise FileFormatError(
        f"{path}: not a table format this library reads (word2vec text or binary, safetensors, .npy, projector TSV)"
    )


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
            name = _prefix(set(f.keys()), weights) + _BERT_NAMES["token.weight"][0]
            vectors = f.get_tensor(name).to(torch.float32).numpy()  # (V, D); only this tensor is read
    except SafetensorError as err:
        raise FileFormatError(f"{weights}: not a valid safetensors file ({err})") from None
    vocab = load_tokenizer(folder).get_vocab(with_added_tokens=True)  # token -> id
    if len(vocab) != len(vectors) or set(vocab.values()) != set(range(len(vectors))):
        raise FileFormatError(
            f"{folder / 'tokenizer.json'}: token ids must be exactly 0..{len(vectors) - 1}, one per row of {name} "
            f"{tuple(vectors.shape)}; found {len(vocab)} tokens with ids {min(vocab.values(), default=None)}.."
            f"{max(vocab.values(), default=None)}"
        )
    return _table(weights, sorted(vocab, key=vocab.__getitem__), vectors)


# --- word2vec text and binary ------------------------------------------------------------------


def _read_word2vec_text(path: Path) -> Table:
    """word2vec text -> Table (counts None); the whole file is decoded at once, then parsed a row at a time."""
    lines = _lines(path)
    rows, dim = _parse_header(path, lines[0] if lines else "")
    vectors = np.empty((rows, dim), dtype=np.float32)  # (V, D)
    keys = []
    for i in range(rows):
        if i + 1 >= len(lines):
            raise FileFormatError(f"{path} line {i + 2}: the file ends after {i} rows; its header promises {rows}")
        key, _, rest = lines[i + 1].partition(" ")  # gensim splits on " " alone, so keys may hold other spaces
        numbers = rest.split()
        if not key or len(numbers) != dim:
            found = f"1 key and {len(numbers)}" if key else "no key" if rest else "an empty line"
            raise FileFormatError(f"{path} line {i + 2}: expected 1 key and {dim} numbers, found {found}")
        _parse_row(vectors, i, numbers, f"{path} line {i + 2}")
        keys.append(key)
    _check_end(path, lines, rows + 1)
    if dup := first_duplicate(keys):
        raise FileFormatError(f"{path} lines {dup[1] + 2} and {dup[2] + 2}: duplicate key {dup[0]!r}")
    return _table(path, keys, vectors)


def _read_word2vec_binary(path: Path) -> Table:
    """word2vec binary (gensim's or the C tool's) -> Table (counts None)."""
    data = path.read_bytes()
    end = data.find(b"\n")
    end = len(data) if end < 0 else end
    rows, dim = _parse_header(path, data[: min(end, 200)].decode("utf-8", "replace"))
    vectors = np.empty((rows, dim), dtype=np.float32)  # (V, D)
    keys, pos, size = [], end + 1, 4 * dim
    for i in range(rows):
        while data[pos : pos + 1] == b"\n":  # the C tool ends each record with b"\n"; gensim does not
            pos += 1
        space = data.find(b" ", pos)
        if space <= pos:
            what = "an empty key" if space == pos else "no key ending in b' '"
            raise FileFormatError(f"{path}: truncated at byte {pos}: row {i} has {what}; the header promises {rows}")
        try:
            key = data[pos:space].decode("utf-8")
        except UnicodeDecodeError as err:
            raise FileFormatError(
                f"{path} byte {pos + err.start}: the key of row {i} is not valid UTF-8 ({data[pos:space][:40]!r})"
            ) from None
        if len(data) - space - 1 < size:
            raise FileFormatError(
                f"{path}: truncated at byte {space + 1}: row {i} ({key!r}) needs {size} bytes of floats, "
                f"{len(data) - space - 1} remain"
            )
        vectors[i] = np.frombuffer(data, dtype="<f4", count=dim, offset=space + 1)
        keys.append(key)
        pos = space + 1 + size
    if data[pos:].strip():
        raise FileFormatError(f"{path} byte {pos}: {len(data) - pos} more bytes after the {rows} rows of the header")
    return _table(path, keys, vectors)


def _write_word2vec_text(table: Table, path: Path) -> list[Path]:
    _check_keys(table, "word2vec")
    with atomic_writer(path, "w") as f:
        f.write(f"{len(table.keys)} {table.vectors.shape[1]}\n")
        for key, row in zip(table.keys, table.vectors, strict=True):
            f.write(f"{key} {_format_floats(row, ' ')}\n")
    return [path]


def _write_word2vec_binary(table: Table, path: Path) -> list[Path]:
    _check_keys(table, "word2vec-bin")
    with atomic_writer(path, "wb") as f:
        f.write(f"{len(table.keys)} {table.vectors.shape[1]}\n".encode())
        for key, row in zip(table.keys, table.vectors.astype("<f4", copy=False), strict=True):
            f.write(key.encode("utf-8") + b" " + row.tobytes())
    return [path]


# --- safetensors and npy, each with a NAME.vocab.json sidecar ----------------------------------


def _read_safetensors(path: Path) -> Table:
    try:
        with safe_open(path, framework="np") as f:
            names = list(f.keys())
            vectors = f.get_tensor("vectors") if "vectors" in names else None
    except (SafetensorError, TypeError) as err:  # TypeError: a dtype numpy lacks (bfloat16)
        raise FileFormatError(f"{path}: not a readable safetensors file ({err})") from None
    if vectors is None:
        raise FileFormatError(f"{path}: no tensor named 'vectors'; found {', '.join(names) or 'none'}")
    return _table_with_sidecar(path, vectors)


def _read_npy(path: Path) -> Table:
    try:
        with open(path, "rb") as f:
            vectors = np.lib.format.read_array(f, allow_pickle=False)
    except Exception as err:  # a damaged header reaches numpy's literal parser, which raises many kinds
        raise FileFormatError(f"{path}: not a readable .npy array ({type(err).__name__}: {err})") from None
    return _table_with_sidecar(path, vectors)


def _write_safetensors(table: Table, path: Path) -> list[Path]:
    return _write_with_vocab(table, path, lambda f: f.write(safetensors.numpy.save({"vectors": table.vectors})))


def _write_npy(table: Table, path: Path) -> list[Path]:
    return _write_with_vocab(table, path, lambda f: np.save(f, table.vectors, allow_pickle=False))


def _write_with_vocab(table: Table, path: Path, write_vectors) -> list[Path]:
    # Encoded before either file is touched, so a key UTF-8 cannot hold leaves both old files as they were.
    vocab = json.dumps({"keys": table.keys, "counts": table.counts}, ensure_ascii=False).encode("utf-8")
    sidecar = _sidecar(path, ".vocab.json")
    with atomic_writer(path, "wb") as f:
        write_vectors(f)
    with atomic_writer(sidecar, "wb") as f:
        f.write(vocab)
    return [path, sidecar]


def _sidecar(path: Path, suffix: str) -> Path:
    """table.npy, ".vocab.json" -> table.vocab.json"""
    return path.with_name(path.stem + suffix)


def _table_with_sidecar(path: Path, vectors: np.ndarray) -> Table:
    """(V, D) vectors read from `path` + keys and counts from its sidecar -> Table."""
    if vectors.ndim != 2 or vectors.dtype.kind != "f":
        raise FileFormatError(f"{path}: expected a 2-D float array (V, D); found {vectors.dtype} {vectors.shape}")
    vocab, tokens = _sidecar(path, ".vocab.json"), _sidecar(path, ".tokens.txt")
    if vocab.is_file():
        source = vocab
        try:
            obj = json.loads(_decode(vocab))
        except json.JSONDecodeError as err:
            raise FileFormatError(f"{vocab} line {err.lineno}: not valid JSON ({err.msg})") from None
        if not (
            isinstance(obj, dict) and isinstance(obj.get("keys"), list) and isinstance(obj.get("counts"), list | None)
        ):
            raise FileFormatError(f'{vocab}: expected {{"keys": [strings], "counts": [integers] or null}}')
        keys, counts = obj["keys"], obj.get("counts")
    elif tokens.is_file():
        source, keys, counts = tokens, _lines(tokens), None
    else:
        raise MissingDataError(f"{path} has no key list beside it: expected {vocab.name} (or {tokens.name})")
    if len(keys) != len(vectors):
        raise FileFormatError(f"{source}: {len(keys)} keys, but {path.name} has {len(vectors)} rows")
    return _table(source, keys, vectors, counts)


# --- TensorFlow Embedding Projector: a folder of vectors.tsv and metadata.tsv --------------------


def _read_projector(path: Path) -> Table:
    """A projector folder, or the vectors .tsv inside one -> Table (counts when metadata has them)."""
    vectors_tsv = path / "vectors.tsv" if path.is_dir() else path
    metadata = vectors_tsv.parent / "metadata.tsv"
    if not metadata.is_file():
        raise MissingDataError(f"no metadata.tsv beside {vectors_tsv}: the projector format keeps its keys there")
    lines = _lines(vectors_tsv)
    dim = len(lines[0].split("\t")) if lines else 0
    vectors = np.empty((len(lines), dim), dtype=np.float32)  # (V, D)
    for i, line in enumerate(lines):
        numbers = line.split("\t")
        if len(numbers) != dim:
            raise FileFormatError(
                f"{vectors_tsv} line {i + 1}: expected {dim} tab-separated numbers, found {len(numbers)}"
            )
        _parse_row(vectors, i, numbers, f"{vectors_tsv} line {i + 1}")
    keys, counts = _read_metadata(metadata)
    if len(keys) != len(vectors):
        raise FileFormatError(f"{metadata}: {len(keys)} keys, but {vectors_tsv.name} has {len(vectors)} rows")
    return _table(metadata, keys, vectors, counts)


def _read_metadata(metadata: Path) -> tuple[list[str], list[int] | None]:
    """metadata.tsv -> keys and counts: one column has no header; more have one ("word", "count")."""
    lines = _lines(metadata)
    if not lines or "\t" not in lines[0]:
        return lines, None
    header, rows = lines[0].split("\t"), [line.split("\t") for line in lines[1:]]
    for i, fields in enumerate(rows):
        if len(fields) != len(header):
            raise FileFormatError(
                f"{metadata} line {i + 2}: expected {len(header)} columns as in the header, found {len(fields)}"
            )
    keys = [fields[header.index("word") if "word" in header else 0] for fields in rows]
    if "count" not in header:
        return keys, None
    column = header.index("count")
    for i, fields in enumerate(rows):
        if not (fields[column].isascii() and fields[column].isdigit()):
            raise FileFormatError(f"{metadata} line {i + 2}: count {fields[column]!r} is not an integer >= 0")
    return keys, [int(fields[column]) for fields in rows]


def _write_projector(table: Table, folder: Path) -> list[Path]:
    _check_keys(table, "projector")
    if folder.is_file():
        raise InvalidValueError(f"{folder} is a file; the projector format writes a folder (vectors.tsv, metadata.tsv)")
    if table.counts is None:  # one column, so no header
        metadata = "".join(f"{key}\n" for key in table.keys)
    else:
        metadata = "word\tcount\n" + "".join(f"{k}\t{c}\n" for k, c in zip(table.keys, table.counts, strict=True))
    metadata = metadata.encode("utf-8")  # before any file is touched: a key UTF-8 cannot hold changes nothing
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_writer(folder / "vectors.tsv", "w") as f:
        for row in table.vectors:
            f.write(_format_floats(row, "\t") + "\n")
    with atomic_writer(folder / "metadata.tsv", "wb") as f:
        f.write(metadata)
    return [folder / "vectors.tsv", folder / "metadata.tsv"]


# --- shared helpers ------------------------------------------------------------------------------


def _format_floats(row: np.ndarray, sep: str) -> str:
    """(D,) float32 -> "0.1 -2.5e-05 ...": str() of a float32 scalar is the shortest decimal that reads
    back to the same float32 (what gensim writes); str() of a Python float would spell out the float64."""
    return sep.join(map(str, row))


def _parse_row(vectors: np.ndarray, i: int, numbers: list[str], where: str) -> None:
    try:
        vectors[i] = numbers  # numpy parses the strings: ~3x faster than float() one by one
    except ValueError:
        bad = next((x for x in numbers if not _is_float(x)), " ".join(numbers))
        raise FileFormatError(f"{where}: {bad!r} is not a number") from None


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_text_row(record: bytes, dim: int) -> bool:
    """Whether the first record after a "V D" header reads as b"key f1 ... fD" (else the file is binary)."""
    try:
        numbers = record.decode("utf-8").partition(" ")[2].split()
    except UnicodeDecodeError:
        return False
    return len(numbers) == dim and all(map(_is_float, numbers))


def _is_tsv_row(line: bytes) -> bool:
    """Whether a first line reads as b"f1\\tf2\\t...": a projector vectors.tsv."""
    try:
        return all(map(_is_float, line.decode("utf-8").rstrip("\r\n").split("\t")))
    except UnicodeDecodeError:
        return False


def _header(line: str) -> tuple[int, int] | None:
    """'30522 384' -> (30522, 384); anything else -> None."""
    parts = line.strip().split(" ")
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts) or int(parts[1]) < 1:
        return None
    return int(parts[0]), int(parts[1])


def _parse_header(path: Path, line: str) -> tuple[int, int]:
    header = _header(line)
    if header is None:
        shown = line if len(line) <= 60 else line[:57] + "..."
        raise FileFormatError(f"{path} line 1: header must be 'rows dim' (two integers, dim >= 1); got {shown!r}")
    return header


def _decode(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise FileFormatError(
            f"{path} line {line} (byte {err.start}): invalid UTF-8 {data[err.start : err.end]!r}"
        ) from None


def _lines(path: Path) -> list[str]:
    """A text file's lines without their "\\n" or "\\r\\n" (a last empty line, if any, dropped)."""
    lines = _decode(path).split("\n")  # not splitlines(): keys may hold \x1c, \x85, \u2028 ...
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _check_end(path: Path, lines: list[str], used: int) -> None:
    extra = next((n for n in range(used, len(lines)) if lines[n].strip()), None)
    if extra is not None:
        raise FileFormatError(f"{path} line {extra + 1}: more rows than the {used - 1} its header promises")


def _check_keys(table: Table, format: str) -> None:
    forbidden, what = _FORBIDDEN[format]
    for row, key in enumerate(table.keys):
        if not key or not forbidden.isdisjoint(key):
            raise InvalidValueError(
                f"key {key!r} at row {row} cannot be stored in the {format} format: its keys must be non-empty "
                f"and hold no {what}"
            )


def first_duplicate(keys: list[str]) -> tuple[str, int, int] | None:
    """['a', 'b', 'a'] -> ('a', 0, 2): the first repeated key and the rows of its first two uses."""
    seen: dict[str, int] = {}
    for row, key in enumerate(keys):
        if seen.setdefault(key, row) != row:
            return key, seen[key], row
    return None


def _table(path: Path, keys: list, vectors: np.ndarray, counts: list | None = None) -> Table:
    """A Table from what was read at `path`, its complaints (duplicates, bad counts) naming the file."""
    try:
        return Table(keys, vectors, counts)
    except InvalidValueError as err:
        raise FileFormatError(f"{path}: {err}") from None


_READERS = {
    "word2vec": _read_word2vec_text,
    "word2vec-bin": _read_word2vec_binary,
    "safetensors": _read_safetensors,
    "npy": _read_npy,
    "projector": _read_projector,
    "hf": read_hf_table,
}
_WRITERS = {
    "word2vec": _write_word2vec_text,
    "word2vec-bin": _write_word2vec_binary,
    "safetensors": _write_safetensors,
    "npy": _write_npy,
    "projector": _write_projector,
}
