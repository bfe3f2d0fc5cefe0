"""Reading files that may not be what they claim: a path that is no regular file, a file of another
kind than the reader expects, a JSON file whose values are not of the types its reader trusts.

    special_kind(path)                   what a non-file path is: "a folder", "a FIFO (named pipe)", ...
    file_exists(path, expected)          True (a file), False (nothing there), else an error saying what is there
    readable_file(path, expected)        the path of a regular file, else an error saying what it is instead
    file_kind(path)                      what a file holds, in words: "text", "a gzip-compressed file", ...
    not_readable(path, expected, ...)    the FileFormatError naming the file, what was expected and what it holds
    read_json(path, what, recover)       a JSON file embedlab wrote; a damaged one says how to recover
    read_json(..., types=Info)           ... trusted by its types, not only its keys (json_type_problem)
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import stat
import types
import typing
from pathlib import Path
from typing import Annotated

from embedlab.errors import FileFormatError, MissingDataError, plain
from embedlab.files import JsonArray, check_path

# ----- reading: files that are not what they claim ------------------------------------------------

HEAD_BYTES = 4096  # enough of a file's start to tell its kind
# kinds content_kind names that readers expect
KIND_NPY, KIND_SAFETENSORS = "a NumPy .npy array", "a safetensors file"
KIND_ZIP = "a zip archive, such as a torch checkpoint or an .npz file"
NOT_UTF8 = "text in an encoding other than UTF-8 (save it as UTF-8)"
# Leading bytes of the formats people hand a reader by mistake (a file's "magic number").
_SIGNATURES = (
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file"),
    (b"PK\x03\x04", KIND_ZIP),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"\x93NUMPY", KIND_NPY),
    (b"\xba\x16\x4f\x2f", "a fastText model (.bin)"),
    (b"\xff\xfe", "UTF-16 text (save it as UTF-8)"),
    (b"\xfe\xff", "UTF-16 text (save it as UTF-8)"),
)
_PICKLE = "a Python pickle (never loaded: it could run code)"
_TEXT_CONTROLS = frozenset(b"\t\n\r\x0b\x0c\x1b")  # control bytes text files do hold


def content_kind(head: bytes, size: int | None = None) -> str:
    """What a file holds, told from its first bytes `head` (of `size` in all), in words for an error
    message: "text", "an empty file", a known format ("a gzip-compressed file", "a PNG image", "a
    safetensors file", ...), "binary data" (a NUL byte, or control bytes text rarely holds), or
    NOT_UTF8 (mostly bytes that are not UTF-8). "text" may hold a few such bytes: a reader names them.

    >>> content_kind(b"2 3\\ncat 1 2 3\\n"), content_kind(b"\\x1f\\x8b\\x08\\x00"), content_kind(bytes(16))
    ('text', 'a gzip-compressed file', 'binary data')
    """
    if not head:
        return "an empty file"
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            return kind
    if head[:3] == b"BZh" and head[4:10] == b"1AY&SY":  # "BZh", the block size, then a block's magic
        return "a bzip2-compressed file"
    # safetensors: an 8-byte little-endian header length, then the JSON header
    length = int.from_bytes(head[:8], "little")
    if len(head) > 8 and head[8:9] == b"{" and (size is None or 0 < length <= size - 8):
        return KIND_SAFETENSORS
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return _PICKLE
    if b"\x00" in head:
        return "binary data"
    text = head.decode("utf-8", errors="surrogateescape")  # each invalid byte -> one U+DC80..U+DCFF
    if len(head) == HEAD_BYTES:  # a multi-byte character cut at the end of `head` is no fault
        text = text[:-3]
    controls = sum(1 for c in text if ord(c) < 32 and ord(c) not in _TEXT_CONTROLS)
    invalid = sum(1 for c in text if "\udc80" <= c <= "\udcff")
    if controls > len(text) / 50:  # text holds next to none; compressed or random bytes ~10%
        return "binary data"
    if invalid > len(text) / 3:  # no controls, yet mostly not UTF-8: text in another encoding
        return NOT_UTF8
    return "text"


# What a path that is not a regular file is, and why a reader cannot read it as one.
_SPECIAL = (
    (stat.S_ISDIR, "a folder", "a folder is no file: name a file in it"),
    (stat.S_ISFIFO, "a FIFO (named pipe)", "a pipe has no size and is read once, as it is written; save it to a file"),
    (stat.S_ISCHR, "a character device", "a device is no file: it has no size and no end, or no content"),
    (stat.S_ISBLK, "a block device", "a device is no file: name a file"),
    (stat.S_ISSOCK, "a socket", "a socket is no file and cannot be opened as one"),
)


def special_kind(path: str | Path) -> str | None:
    """What `path` is when it exists and is not a regular file ("a folder", "a FIFO (named pipe)",
    "a character device", ...) with why it cannot be read as a file; None for a regular file or no
    file at all. Never opens `path`: opening a FIFO to read it waits for a writer, forever."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, kind, why in _SPECIAL:
        if test(mode):
            return f"{kind}, not a file ({why})"
    return None if stat.S_ISREG(mode) else "not a regular file"


def file_exists(path: str | Path, expected: str) -> bool:
    """True for a regular file at `path`, False for nothing there; a folder, FIFO, device or socket
    (or an empty path) raises FileFormatError saying what it is, never "missing". For the checks
    `if not file_exists(path, "a checkpoint"): raise MissingDataError(...)`."""
    return readable_file(path, expected).exists() if os.path.lexists(path) else False


def readable_file(path: str | Path, expected: str) -> Path:
    """`path` if it is a regular file; else MissingDataError (nothing there) or FileFormatError saying
    what it is instead and why it cannot be read ("t.txt: expected word2vec text; found a FIFO
    (named pipe), not a file (...)"), without opening it."""
    path = Path(check_path(path, f"the path of {expected}"))
    kind = special_kind(path)
    if kind is not None:
        raise FileFormatError(f"{path}: expected {expected}; found {kind}")
    if not os.path.exists(path):
        raise MissingDataError(f"no {expected} at {path}: no such file")
    return path


def file_kind(path: str | Path) -> str:
    """content_kind of the file at `path` (its first HEAD_BYTES bytes); for a path that is not a
    regular file, what it is instead (special_kind), without opening it."""
    special = special_kind(path)
    if special is not None:
        return special
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
        size = os.fstat(f.fileno()).st_size
    return content_kind(head, size)


def not_readable(path: str | Path, expected: str, kind: str | None = None, detail: object = "") -> FileFormatError:
    """The error for a file a reader could not read, naming it and what was `expected`.

    When the file's first bytes are not of `kind` (as content_kind names it; None: any), the
    message says what it holds instead, never its raw bytes; when they are, the file is damaged
    and `detail` (another library's message, made plain) says how:

        "t.safetensors: expected a safetensors file (V, D); found a gzip-compressed file"
        "t.safetensors: expected a safetensors file (V, D), but it is cut short or damaged (header too large)"
    """
    found = file_kind(path)
    if kind is not None and found != kind:
        return FileFormatError(f"{path}: expected {expected}; found {found}")
    why = f" ({plain(detail)})" if str(detail) else ""
    return FileFormatError(f"{path}: expected {expected}, but it is cut short or damaged{why}")


# how a JSON value of each Python type is named in a message
_JSON_NAMES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}


def _cut_literal(rest: str) -> bool:
    """Whether `rest`, the text from where JSON parsing failed to the end, is a literal cut short.

    >>> _cut_literal("fals"), _cut_literal("nul"), _cut_literal("falsy }")
    (True, True, False)
    """
    return any(word.startswith(rest) and word != rest for word in ("true", "false", "null"))


def _json_name(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value!r}".replace("nan", "NaN").replace("inf", "Infinity")  # as json.dumps wrote it
    return _JSON_NAMES.get(type(value), type(value).__name__)


def _hint_name(hint: object) -> str:
    """A type hint in words: a string, a number, a list, an object, ..."""
    origin = typing.get_origin(hint)
    if origin is Annotated:
        return "a list"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_hint_name(h) for h in typing.get_args(hint))
    if origin is not None:
        return _JSON_NAMES.get(origin, "an object") if origin in (list, tuple, dict) else "an object"
    if hint in (list, tuple):
        return "a list"
    if dataclasses.is_dataclass(hint) or typing.is_typeddict(hint):
        return "an object"
    return _JSON_NAMES.get(hint, getattr(hint, "__name__", str(hint)))


def json_type_problem(value: object, hint: object, where: str = "the file") -> str | None:
    """Where JSON `value` (parsed) is not of the type `hint` says, in words, or None if it is.

    A hint is what an answer's dataclass says of its field: str, int, float, bool, None, Any, a
    union (`float | None`), list[X], tuple[X, ...] (a JSON list), dict[str, X], a dataclass or a
    TypedDict (an object with at least its fields that have no default, each of its type; other
    fields are let be), or an array field (files.Vector, Matrix, ...: nested lists). A float is a
    finite number, or null (json_safe writes NaN so); NaN or ±Infinity itself is refused, as is a
    bool where a number goes.

    >>> json_type_problem({"size": "8000", "rows": [1.0]}, dict[str, list[float]], "meta.json")
    "meta.json['size'] holds a string where a list goes"
    >>> json_type_problem([1.0, float("nan")], list[float]) is None
    False
    """
    if hint is typing.Any or hint is object:
        return None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Required, typing.NotRequired):  # a TypedDict's field: being there is not its type
        return json_type_problem(value, args[0], where)
    wrong = f"{where} holds {_json_name(value)} where {_hint_name(hint)} goes"
    if origin is Annotated:  # an array field: `ndim` levels of lists
        array = next((a for a in args[1:] if isinstance(a, JsonArray)), None)
        inner = list[array.item] if array is not None else list[typing.Any]
        for _ in range((array.ndim if array is not None else 1) - 1):
            inner = list[inner]
        return json_type_problem(value, inner | None if array is not None and array.item is float else inner, where)
    if origin in (typing.Union, types.UnionType):
        if any(json_type_problem(value, h, where) is None for h in args):
            return None
        non_null = [h for h in args if h is not type(None)]
        return wrong if value is None or len(non_null) != 1 else json_type_problem(value, non_null[0], where)
    if hint is type(None):
        return None if value is None else wrong
    if hint is bool:
        return None if isinstance(value, bool) else wrong
    if hint is int:
        return None if type(value) is int else wrong
    if hint is float:
        if value is None or type(value) is int:
            return None
        if type(value) is not float:
            return wrong
        return None if math.isfinite(value) else f"{where} holds {_json_name(value)} where a finite number goes"
    if hint is str:
        return None if isinstance(value, str) else wrong
    if hint in (list, tuple) or origin in (list, tuple):
        if not isinstance(value, list):
            return wrong
        if origin is tuple and args and args[-1] is not Ellipsis:  # tuple[X, Y]: one item each
            if len(value) != len(args):
                return f"{where} holds {len(value)} items where {len(args)} go"
            items = list(zip(range(len(args)), value, args, strict=True))
        else:
            item = args[0] if args else typing.Any
            items = [(i, v, item) for i, v in enumerate(value)]
        at = (f"{where}[{i}]" if where else f"item {i}" for i, _, _ in items)
        return next((p for (_, v, h), w in zip(items, at, strict=True) if (p := json_type_problem(v, h, w))), None)
    if hint is dict or origin is dict:
        if not isinstance(value, dict):
            return wrong
        item = args[1] if len(args) == 2 else typing.Any
        return next((p for k, v in value.items() if (p := json_type_problem(v, item, _at(where, k)))), None)
    if dataclasses.is_dataclass(hint) or typing.is_typeddict(hint):
        if not isinstance(value, dict):
            return wrong
        return _fields_problem(value, hint, where)
    raise TypeError(f"json_type_problem cannot check a value against {hint!r}")  # a caller's mistake


def _fields_problem(value: dict, spec: object, where: str) -> str | None:
    """json_type_problem of an object against a dataclass, a TypedDict or a dict of key -> hint."""
    if isinstance(spec, dict):
        hints, required = spec, list(spec)
    else:
        hints = typing.get_type_hints(spec, include_extras=True)
        if typing.is_typeddict(spec):  # subtle: under `from __future__ import annotations` the class cannot
            # see NotRequired inside its string annotations (__required_keys__ holds every key); the hints can
            required = [k for k, h in hints.items()
                        if k in spec.__required_keys__ and typing.get_origin(h) is not typing.NotRequired]  # fmt: skip
        else:
            required = [f.name for f in dataclasses.fields(spec)
                        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]  # fmt: skip
            hints = {f.name: hints[f.name] for f in dataclasses.fields(spec)}
    missing = next((k for k in required if k not in value), None)
    if missing is not None:
        return f"{where} has no {missing!r} field" if where else f"no {missing!r} field"
    checked = ((k, h) for k, h in hints.items() if k in value)
    return next((p for k, h in checked if (p := json_type_problem(value[k], h, _at(where, k)))), None)


def _at(where: str, key: object) -> str:
    """The path to `key` inside `where`: "results[3]['value']"; at the top ("") the key alone."""
    return f"{where}[{key!r}]" if where else str(key)


def read_json(
    path: str | Path, what: str, recover: str, expect: type = dict, keys: tuple[str, ...] = (),
    types: object = None,
) -> object:  # fmt: skip
    """The value of the JSON file at `path`, a file embedlab wrote: `what` names it in messages
    ("race setting"), `recover` says how to get past a damaged one ("remove the folder").

    A missing file raises MissingDataError. A file that is not UTF-8 JSON, is cut short, holds
    something other than `expect` (dict or list), a dict without one of `keys`, or a value not of
    `types` raises FileFormatError naming the file, what is wrong and how to recover:

        "r/race.json: not a readable race setting (cut short: expecting ',' delimiter at line 3
         column 9); remove the folder, or force to start a new race there"

    `types`, to trust a file by its types and not only its keys: a dict of key -> type hint (each
    key required), a dataclass or TypedDict whose fields the object holds, or any hint
    json_type_problem takes (list[Result]). A damaged value is named where it sits:
    "(results[3]['value'] holds a string where a number or null goes)".
    """
    path = Path(path)
    if (special := special_kind(path)) is not None:
        raise FileFormatError(f"{path}: not a readable {what} (found {special}); {recover}")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MissingDataError(f"no {what} at {path}") from None
    kind = content_kind(data[:HEAD_BYTES], len(data))
    problem = f"expected JSON text; found {kind}" if kind != "text" else None
    if problem is None:
        try:
            value = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as err:
            line = data.count(b"\n", 0, err.start) + 1
            problem = f"invalid UTF-8 at byte {err.start} (line {line})"
        except json.JSONDecodeError as err:
            # cut short: the parser wanted more at the very end, a string ran to the end, or the end
            # cuts a literal ("fals": the parser stops where the word starts, not where the file does)
            rest = err.doc[err.pos :].strip()
            cut = not rest or err.msg.startswith("Unterminated string") or _cut_literal(rest)
            msg = err.msg.removesuffix(" at")  # "Unterminated string starting at"
            where = f"{msg[0].lower()}{msg[1:]} at line {err.lineno} column {err.colno}"
            problem = f"{'cut short' if cut else 'not valid JSON'}: {where}"
        else:
            missing = [k for k in keys if k not in value] if isinstance(value, dict) else []
            if not isinstance(value, expect):
                problem = f"expected {_JSON_NAMES[expect]}; found {_JSON_NAMES[type(value)]}"
            elif missing:
                problem = f"no {missing[0]!r} field"
            elif types is not None:
                check = _fields_problem if isinstance(types, dict) else json_type_problem
                problem = check(value, types, "")  # "" : paths from the top, "results[3]['value']"
                if problem is None:
                    return value
            else:
                return value
    raise FileFormatError(f"{path}: not a readable {what} ({problem}); {recover}")
