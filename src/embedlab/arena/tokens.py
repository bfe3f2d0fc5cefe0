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


class FrequencyOrder:
    """A tokenizer whose ids are renumbered by frequency in a training text: id 0 the most frequent
    token, ties kept in the inner tokenizer's order, tokens the text never holds last.

    Adaptive input's bands are ranges of ids (ids below the first cutoff get the widest rows), so
    they mean "frequent" and "rare" only when ids are frequency-sorted. A byte-level BPE numbers its
    256 bytes first and then its merges in the order it made them, and a token made early can become
    rare once later merges absorb it: its ids are not frequency-sorted, hence this renumbering.

    >>> order = FrequencyOrder(ByteTokenizer(), np.array([98, 97, 98]))  # "bab": b twice, a once
    >>> order.encode("ab"), order.decode([0, 1]), order.piece(0)
    ([1, 0], 'ba', 'b')
    """

    def __init__(self, inner: SubwordTokenizer, train_ids: np.ndarray) -> None:
        self.inner = inner
        self.vocab_size = inner.vocab_size
        counts = np.bincount(np.asarray(train_ids, dtype=np.int64), minlength=self.vocab_size)
        if counts.shape[0] > self.vocab_size:
            raise InvalidValueError(f"a training id is out of range: vocab_size is {self.vocab_size}")
        self.to_inner = np.argsort(-counts, kind="stable")  # (V,) new id -> the inner tokenizer's id
        self.from_inner = np.empty_like(self.to_inner)  # (V,) inner id -> new id
        self.from_inner[self.to_inner] = np.arange(self.vocab_size)

    def encode(self, text: str) -> list[int]:
        return self.from_inner[self.inner.encode(text)].tolist()

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return [self.from_inner[ids].tolist() for ids in self.inner.encode_batch(texts)]

    def decode(self, ids: list[int]) -> str:
        for i in ids:
            if not isinstance(i, int) or not 0 <= i < self.vocab_size:
                raise InvalidValueError(f"token id {i!r} is out of range: vocab_size is {self.vocab_size}")
        return self.inner.decode(self.to_inner[ids].tolist())

    def piece(self, token_id: int) -> str:
        return self.inner.piece(int(self.to_inner[check_int("token id", token_id, low=0, high=self.vocab_size - 1)]))
