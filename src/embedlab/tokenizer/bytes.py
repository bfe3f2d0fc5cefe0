"""GPT-2's byte table: each of the 256 byte values written as one printable character, and the
space marker "Ġ" with which byte-level vocabularies start a piece that follows a space.

    bytes_to_unicode()[0x20]        'Ġ'       the stand-in for a space (unicode_to_bytes: the reverse)
    as_piece(b" cat")               'Ġcat'    bytes as a byte-level vocabulary stores them
    piece_bytes("Ġcat")             b' cat'   and back
    word_key("king", keys)          'king' if the table holds it, else 'Ġking' if that, else None
    piece_word("Ġking")             'king'    the whole word a piece stands for, or None

Byte-level BPE (GPT-2, RoBERTa, HuggingFace's ByteLevel) merges UTF-8 bytes but saves its
vocabulary as JSON text, so each byte is written as a printable stand-in: the printable Latin-1
bytes stand for themselves, and the other 68 (controls, space, ...) take code points from 256 up.
The space 0x20 thus becomes "Ġ" (U+0120): "Ġking" is " king", the word after a space, which
running text holds far more often than "king" at the start of a line.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from functools import lru_cache
from types import MappingProxyType

from embedlab.errors import InvalidValueError


@lru_cache(maxsize=1)
def bytes_to_unicode() -> Mapping[int, str]:
    """byte -> GPT-2's printable stand-in character, for all 256 bytes (read-only: it is shared).

    >>> table = bytes_to_unicode()
    >>> table[ord("a")], table[0x20], table[0x0A], len(set(table.values()))
    ('a', 'Ġ', 'Ċ', 256)
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)  # the 68 unprintable bytes, in byte order
            extra += 1
    return MappingProxyType(table)


@lru_cache(maxsize=1)
def unicode_to_bytes() -> Mapping[str, int]:
    """The reverse table: stand-in character -> byte (read-only).

    >>> unicode_to_bytes()["Ġ"], unicode_to_bytes()["a"]
    (32, 97)
    """
    return MappingProxyType({c: b for b, c in bytes_to_unicode().items()})


SPACE_MARK = bytes_to_unicode()[ord(" ")]  # "Ġ": a byte-level piece that starts with it follows a space


def as_piece(data: bytes) -> str:
    """Bytes written with the stand-ins, as a byte-level vocabulary stores them.

    >>> as_piece(b" cat"), as_piece(" café".encode())
    ('Ġcat', 'ĠcafÃ©')
    """
    table = bytes_to_unicode()
    return "".join(table[b] for b in data)


def piece_bytes(piece: str) -> bytes:
    """The bytes a byte-level piece stands for (the inverse of as_piece).

    >>> piece_bytes("Ġcat"), piece_bytes("ĠcafÃ©").decode()
    (b' cat', ' café')
    """
    table = unicode_to_bytes()
    try:
        return bytes(table[c] for c in piece)
    except KeyError as err:
        raise InvalidValueError(f"{piece!r} is not a byte-level piece: {err.args[0]!r} stands for no byte") from None


def word_key(word: str, keys: Container[str]) -> str | None:
    """The key of `word` in a table whose keys may be byte-level pieces: the word itself if the
    table holds it, else the piece for " " + word (SPACE_MARK + word for ASCII), else None.

    >>> keys = {"Ġking", "queen", "Ġqueen", "ĠcafÃ©"}
    >>> word_key("king", keys), word_key("queen", keys), word_key("café", keys), word_key("kin", keys)
    ('Ġking', 'queen', 'ĠcafÃ©', None)
    """
    if word in keys:
        return word
    piece = as_piece(b" " + word.encode("utf-8"))
    return piece if piece in keys else None


def piece_word(piece: str) -> str | None:
    """The whole word a byte-level piece stands for: a space then letters only ("Ġking" -> "king"),
    else None (no leading space, a digit or a mark inside, part of a character, not byte-level).

    >>> [piece_word(p) for p in ["Ġking", "king", "Ġ3rd", "Ġ", "ĠcafÃ©", "ĠcafÃ", "ĠĠ", "Ġ東"]]
    ['king', None, None, None, 'café', None, None, None]
    """
    if not piece.startswith(SPACE_MARK):
        return None
    try:
        text = piece_bytes(piece).decode("utf-8")  # strict: a piece ending mid-character is no word
    except (InvalidValueError, UnicodeDecodeError):
        return None
    word = text[1:]
    return word if word.isalpha() else None
