"""Text as one stream of token ids, and the bytes behind each id: what the text strategies train on
and what bits per byte are counted in.

    ByteTokenizer().encode("né")         [110, 195, 169]: the character-level strategy's 256 ids
    encode_lines(tokenizer, lines)       (N,) ids of "line\\n" for each line, end to end
    token_lengths(tokenizer)             (V,) UTF-8 bytes each id stands for

Every arena tokenizer is byte-level: ByteTokenizer here, or FastTokenizer's byte-level BPE. Either
spells any text, has no out-of-vocabulary token, and its ids give back the text's exact bytes:
b"".join(piece_bytes(tokenizer.piece(i)) for i in ids) == text.encode().
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from embedlab.errors import InvalidValueError, check_int
from embedlab.tokenizer.bytes import as_piece, piece_bytes
from embedlab.tokenizer.vocab import SubwordTokenizer


class ByteTokenizer:
    """The 256 byte values as the vocabulary: a text's ids are its UTF-8 bytes, nothing is trained.

    >>> ByteTokenizer().encode("né"), ByteTokenizer().decode([110, 195, 169])
    ([110, 195, 169], 'né')
    """

    vocab_size = 256

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return [list(text.encode("utf-8")) for text in texts]

    def decode(self, ids: list[int]) -> str:
        """ids -> str; bytes that are not valid UTF-8 become U+FFFD (as BPE.decode does)."""
        for i in ids:
            if not isinstance(i, int) or not 0 <= i < 256:
                raise InvalidValueError(f"token id {i!r} is out of range: vocab_size is 256")
        return bytes(ids).decode("utf-8", errors="replace")

    def piece(self, token_id: int) -> str:
        """The byte as byte-level vocabularies write it (GPT-2's stand-ins: " " is "Ġ").

        >>> ByteTokenizer().piece(32)
        'Ġ'
        """
        check_int("token id", token_id, low=0, high=255)
        return as_piece(bytes([token_id]))


def token_lengths(tokenizer: SubwordTokenizer) -> np.ndarray:
    """(V,) int64: the UTF-8 bytes each token id stands for.

    >>> token_lengths(ByteTokenizer()).tolist() == [1] * 256
    True
    """
    return np.array([len(piece_bytes(tokenizer.piece(i))) for i in range(tokenizer.vocab_size)], dtype=np.int64)


def encode_lines(tokenizer: SubwordTokenizer, lines: list[str]) -> np.ndarray:
    """Lines -> (N,) int64: the ids of each "line\\n", laid end to end.

    >>> encode_lines(ByteTokenizer(), ["a", "é"]).tolist()
    [97, 10, 195, 169, 10]
    """
    if isinstance(tokenizer, ByteTokenizer):  # the bytes are the ids: skip building 8 million Python ints
        return np.frombuffer("".join(f"{line}\n" for line in lines).encode("utf-8"), np.uint8).astype(np.int64)
    encoded = tokenizer.encode_batch([f"{line}\n" for line in lines])  # in parallel, each line apart
    return np.fromiter(chain.from_iterable(encoded), dtype=np.int64, count=sum(map(len, encoded)))
