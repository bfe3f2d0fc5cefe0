"""Bits per byte: a language model's held-out loss in a unit every tokenization shares.

    bits = token_bits(model, ids, context)          # (N - 1,) bits of predicting ids[1:]
    lengths = token_lengths(tokenizer)[ids]         # (N,) UTF-8 bytes each token stands for (tokens.py)
    rare = rare_byte_mask(lines, rare_words)        # (bytes,) inside a rare word or its leading space?
    score(bits, lengths, rare, unseen).bits_per_byte   # bits over the bytes of the predicted tokens
    unigram_bits(train_ids, ids, vocab_size)        # (N - 1,) the same for the unigram baseline

A model over bytes and a model over 8,000 subwords predict different things, so their losses per
token cannot be compared; the text they predict is the same, so their losses per byte can. The
text is a run of lines, each followed by "\\n", encoded line by line and laid end to end.

The rules, fixed here so that every strategy is scored alike:
    - Scoring cuts the N tokens into windows of `context` inputs that start at tokens 0, T, 2T, ...
      (models.lm.windows, plus one shorter window for the rest). Every token but the first is
      predicted exactly once; the first has nothing before it and is not scored, so its bytes are
      left out of the count. Context restarts at each window (the first prediction in a window sees
      one token), as it does in training.
    - A token's loss is split evenly over the bytes it stands for: a 4-byte token costing 6 bits
      puts 1.5 bits on each byte. Summing over the bytes of rare words gives their bits; a token
      that straddles a word's edge gives the word only its share.
    - A word's bytes include its leading space, where it has one: a byte-level BPE spells " word"
      as one token "Ġword", whose bits cover the space too, while a byte model pays for the space
      apart. Leaving the space out would charge BPE for it and not bytes.
    - Rare words are those seen RARE_BAND = 1 to 10 times in the training part: few enough that
      the model met them a handful of times (the earlier band, below 100, held 40-63 % of the
      held-out bytes, most of the text). Unseen words (0 times) are scored apart: no tokenizer
      or table has learnt them, and they show how each spells something new.
    - Baselines, scored the same way on the same tokens: the untrained model (its initial
      weights), and a unigram model over the strategy's tokens (`unigram_bits`: each token's
      frequency in the training part, add-one smoothed over the tokenizer's vocabulary). A gain
      is a baseline's bits per byte less the model's: what training bought beyond the tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from embedlab.errors import InvalidValueError, check_int
from embedlab.models.lm import windows
from embedlab.tokenizer.vocab import words

RARE_BAND = (1, 10)  # training-part counts of a rare word, both ends included (see the module docstring)
LOGITS_PER_BATCH = 2**25  # B·T·V scored at once: 128 MB of float32 logits, whatever the vocabulary


@torch.no_grad()
def token_bits(model: Callable[[torch.Tensor], torch.Tensor], ids: np.ndarray, context: int) -> np.ndarray:
    """(N,) ids -> (N - 1,) float64: -log2 p(ids[i] | the window's earlier ids) for i = 1..N-1.

    `model` maps (B, T) int64 ids to (B, T, V) logits for any T <= context; it is put in eval mode.
    """
    context = check_int("context", context, low=1)
    ids = torch.as_tensor(np.asarray(ids), dtype=torch.int64)
    if ids.numel() < 2:
        raise InvalidValueError(f"need at least 2 tokens to score one prediction; got {ids.numel()}")
    if isinstance(model, torch.nn.Module):
        model.eval()
        device = next(model.parameters()).device
    else:
        device = torch.device("cpu")
    m = (ids.numel() - 1) // context  # full windows
    full = windows(ids, context) if m else ids[:0].reshape(0, context + 1)  # (M, T + 1)
    rest = ids[m * context :]  # the last full window's last token, and what follows it
    out: list[torch.Tensor] = []
    start, per_batch = 0, 1  # one window first: its logits tell the vocabulary size
    while start < m:
        batch = full[start : start + per_batch].to(device)
        logits = model(batch[:, :-1])  # (B, T, V)
        out.append(_bits(logits, batch[:, 1:]))
        start += per_batch
        per_batch = max(1, LOGITS_PER_BATCH // (context * logits.shape[-1]))
    if rest.numel() >= 2:
        tail = rest.to(device)[None]  # (1, t + 1), t < T
        out.append(_bits(model(tail[:, :-1]), tail[:, 1:]))
    return torch.cat(out).double().cpu().numpy()


def _bits(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """(B, T, V) logits, (B, T) targets -> (B·T,) bits, in window order."""
    nats = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), targets.reshape(-1), reduction="none")
    return nats / np.log(2)


def word_spans(line: str) -> list[tuple[int, int, str]]:
    """The words of `line` (vocab.words) as (start byte, end byte, lower-cased word), bytes of its UTF-8.

    >>> word_spans("Café au lait.")
    [(0, 5, 'café'), (6, 8, 'au'), (9, 13, 'lait')]
    """
    spans = []
    chars = bytes_ = 0  # the cursor, in characters and in bytes
    for word in words(line, lowercase=False):
        # subtle: the text between two words holds no letter or digit, and every word starts with
        # one, so the first occurrence after the cursor is the word the regex matched
        start = line.index(word, chars)
        bytes_ += len(line[chars:start].encode("utf-8"))
        n = len(word.encode("utf-8"))
        spans.append((bytes_, bytes_ + n, word.lower()))
        chars, bytes_ = start + len(word), bytes_ + n
    return spans


def rare_byte_mask(lines: Iterable[str], rare: set[str] | frozenset[str]) -> np.ndarray:
    """Lines -> (bytes,) bool over the UTF-8 of "line\\n" for each line: True inside a word in `rare`
    and on the space before it (the bytes a BPE token "Ġword" covers).

    >>> rare_byte_mask(["a naïve cat"], {"naïve"}).astype(int).tolist()
    [0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    """
    parts = []
    for line in lines:
        raw = line.encode("utf-8")
        mask = np.zeros(len(raw) + 1, dtype=bool)  # + 1: the line's "\n"
        for start, end, word in word_spans(line):
            if word in rare:
                mask[start - (start > 0 and raw[start - 1 : start] == b" ") : end] = True
        parts.append(mask)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def unigram_bits(train_ids: np.ndarray, ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """(M,) training ids, (N,) ids -> (N - 1,) float64 bits of ids[1:] under the unigram model:
    p(i) = (count of i in train_ids + 1) / (M + vocab_size), add-one smoothing over the vocabulary.

    >>> unigram_bits(np.array([0, 0, 1]), np.array([1, 0, 2]), 3).tolist()  # p = 3/6, 2/6, 1/6
    [1.0, 2.584962500721156]
    """
    vocab_size = check_int("vocab_size", vocab_size, low=1)
    counts = np.bincount(np.asarray(train_ids), minlength=vocab_size).astype(np.float64)
    if counts.shape[0] > vocab_size:
        raise InvalidValueError(f"a training id is out of range: vocab_size is {vocab_size}")
    bits = -np.log2((counts + 1) / (counts.sum() + vocab_size))  # (V,)
    return bits[np.asarray(ids)[1:]]


@dataclass(frozen=True)
class Bits:
    """Held-out bits and the bytes they were spent on: all of them, those of rare words and those of
    unseen words (each with its leading space)."""

    bits: float  # total cross-entropy of the predicted tokens, in bits
    bytes: int  # UTF-8 bytes of the predicted tokens (every token's but the first)
    rare_bits: float  # the share of `bits` that falls on the bytes of rare words
    rare_bytes: int  # bytes of rare words, of the predicted tokens
    unseen_bits: float = 0.0  # the same for words the training part never holds
    unseen_bytes: int = 0

    @property
    def bits_per_byte(self) -> float:
        return self.bits / self.bytes

    @property
    def rare_bits_per_byte(self) -> float:
        """NaN when the text holds no rare word."""
        return self.rare_bits / self.rare_bytes if self.rare_bytes else float("nan")

    @property
    def unseen_bits_per_byte(self) -> float:
        """NaN when the text holds no unseen word."""
        return self.unseen_bits / self.unseen_bytes if self.unseen_bytes else float("nan")


def score(
    bits: np.ndarray, lengths: np.ndarray, rare_mask: np.ndarray | None = None, unseen_mask: np.ndarray | None = None
) -> Bits:
    """(N - 1,) bits of tokens 1..N-1, (N,) byte lengths of all N tokens, (bytes,) rare and unseen
    masks -> Bits.

    Worked example: tokens of 1, 2 and 3 bytes, the last two predicted at 4 and 6 bits, rare bytes
    the last two: 10 bits over 5 bytes; the rare bytes get 2 of the last token's 3 bytes, 2 bits each.

    >>> b = score(np.array([4.0, 6.0]), np.array([1, 2, 3]), np.array([0, 0, 0, 0, 1, 1], dtype=bool))
    >>> b.bits_per_byte, b.rare_bits, b.rare_bytes
    (2.0, 4.0, 2)
    """
    bits, lengths = np.asarray(bits, dtype=np.float64), np.asarray(lengths, dtype=np.int64)
    if lengths.shape != (bits.shape[0] + 1,):
        raise InvalidValueError(f"need one length per token, {bits.shape[0] + 1}; got {lengths.shape[0]}")
    if (lengths < 1).any():
        raise InvalidValueError(f"every token stands for at least one byte; got a length {lengths.min()}")
    first = int(lengths[0])
    predicted = lengths[1:]
    total_bytes = first + int(predicted.sum())
    per_byte = np.repeat(bits / predicted, predicted)  # each token's bits spread evenly over its bytes

    def part(mask: np.ndarray | None, name: str) -> tuple[float, int]:
        if mask is None:
            return 0.0, 0
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (total_bytes,):
            raise InvalidValueError(f"the {name} mask must cover the tokens' {total_bytes} bytes; got {mask.shape[0]}")
        inside = mask[first:]
        return float(per_byte[inside].sum()), int(inside.sum())

    rare, unseen = part(rare_mask, "rare"), part(unseen_mask, "unseen")
    return Bits(float(bits.sum()), int(predicted.sum()), *rare, *unseen)
