"""Subword pieces composed by attention (lesson 001, chapter 7), measured layer by layer on a real encoder.

The lesson says a word split into pieces ("un ##ha ##pp ##iness") enters the model as separate
rows, and that attention then composes them into one word. If it does, the states of a word's
pieces should grow more alike, layer by layer, than the states of two neighbouring pieces that
belong to different words.

    encoder = Encoder.load("minilm")
    targets = enwiki_targets(encoder.tokenizer)     # 120 words of 2+ pieces, one per enwiki sentence
    result = composition(encoder, targets)
    result.layers[0].gap        ~0: at the input a word's pieces are no closer than neighbours
    result.layers[3].interval   95% t interval of the gap over the words
    result.largest_gap          the layer where the pieces stand furthest above their neighbours

Per word and layer (0 = the input embedding, L = the states after encoder layer L):

- within: the mean cosine between the word's adjacent pieces (un·##ha, ##ha·##pp, ##pp·##iness);
- neighbours: the mean cosine across the word's two edges (the piece before and the first piece,
  the last piece and the piece after), pieces one step apart as the word's own are, so position
  and the layer's shared direction (003.5: later layers have one) affect both alike;
- gap: within − neighbours, paired in the same sentence; its interval is Student t's over words.

The words (`find_targets`): sentences of 8 to 30 words cut from the first 400 lines of enwiki-sample,
in order; in each, the first word that is all letters, that the tokenizer splits into 2 or more
pieces, that no earlier sentence gave, and whose neighbouring pieces are all letters too (not
[CLS], [SEP] or punctuation); the first 120 such words.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from statistics import fmean

import torch
import torch.nn.functional as F

from embedlab.arena.noise import t_interval
from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError, check_int
from embedlab.models.encoder import Encoder

WORDS = 120  # target words: the t interval of the gap is then about ±0.02 on MiniLM
LINES = 400  # enwiki-sample lines read (paragraphs): ~800 sentences, of which 120 give a word
MIN_WORDS, MAX_WORDS = 8, 30  # a sentence's length in words: short, but with context on both sides
MIN_PIECES = 2
BATCH = 64  # sentences per forward pass
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Target:
    """One word of several pieces in one sentence."""

    text: str  # the sentence
    word: str  # the word as its pieces spell it, lower case for an uncased tokenizer
    start: int  # its first piece, in the sentence's pieces with [CLS] at 0
    end: int  # one past its last piece


@dataclass(frozen=True)
class LayerComposition:
    """The words' pieces at one layer, averaged over the words."""

    layer: int  # 0 = the input embedding, L = the states after encoder layer L
    within: float  # mean cosine between adjacent pieces of the same word
    neighbours: float  # mean cosine between adjacent pieces of different words (the word's edges)
    gap: float  # within - neighbours
    interval: tuple[float, float]  # 95% t interval of the gap over the words


@dataclass(frozen=True)
class Composition:
    """How the pieces of multi-piece words converge, layer by layer."""

    words: tuple[str, ...]  # the target words, in order
    pieces: float  # mean pieces per target word
    layers: tuple[LayerComposition, ...]  # layers 0..L
    largest_gap: int  # the layer whose gap is largest


def word_spans(pieces: list[str]) -> list[tuple[int, int]]:
    """WordPiece pieces -> each word's [start, end): a piece not starting with "##" opens a word and
    the "##" pieces after it continue it ([CLS], [SEP] and punctuation are words of one piece).

    >>> word_spans(["[CLS]", "un", "##ha", "##pp", "##iness", "is", "rare", "[SEP]"])
    [(0, 1), (1, 5), (5, 6), (6, 7), (7, 8)]
    """
    spans: list[list[int]] = []
    for i, piece in enumerate(pieces):
        if piece.startswith("##") and spans:
            spans[-1][1] = i + 1
        else:
            spans.append([i, i + 1])
    return [(start, end) for start, end in spans]


def sentences(lines: Iterable[str], min_words: int = MIN_WORDS, max_words: int = MAX_WORDS) -> Iterator[str]:
    """Paragraphs -> their sentences (split after . ! ?) of `min_words` to `max_words` words, in order."""
    for line in lines:
        for sentence in SENTENCE_END.split(line.strip()):
            if min_words <= len(sentence.split()) <= max_words:
                yield sentence


def find_targets(
    texts: Iterable[str], tokenize: Callable[[str], list[str]], count: int = WORDS, min_pieces: int = MIN_PIECES
) -> list[Target]:
    """The first `count` targets, at most one per text (module docstring); `tokenize` maps a text to
    its pieces with [CLS] and [SEP]. Raises if the texts hold fewer than `count`."""
    count = check_int("count", count, low=1)
    min_pieces = check_int("min_pieces", min_pieces, low=2)
    found: list[Target] = []
    seen: set[str] = set()
    for text in texts:
        pieces = tokenize(text)
        for start, end in word_spans(pieces)[1:-1]:  # never [CLS] or [SEP]
            word = "".join(p.removeprefix("##") for p in pieces[start:end])
            if end - start < min_pieces or not word.isalpha() or word in seen:
                continue
            if not (pieces[start - 1].isalpha() and pieces[end].isalpha()):
                continue  # the edges must be word pieces, not [CLS], [SEP] or punctuation
            seen.add(word)
            found.append(Target(text, word, start, end))
            break
        if len(found) == count:
            return found
    raise InvalidValueError(f"the texts hold only {len(found)} words of {min_pieces}+ pieces; asked for {count}")


def enwiki_targets(tokenizer, count: int = WORDS) -> list[Target]:
    """`count` targets from the first LINES lines of enwiki-sample, split by a HuggingFace `tokenizer`."""
    lines = itertools.islice(open_corpus("enwiki-sample"), LINES)
    return find_targets(sentences(lines), lambda text: tokenizer.encode(text).tokens, count)


def piece_cosines(states: torch.Tensor, start: int, end: int) -> tuple[float, float]:
    """(T, D) one sentence's states, a word's [start, end) -> (within, neighbours): the mean cosine of
    its adjacent pieces, and the mean of the two cosines across its edges (start - 1 with start,
    end - 1 with end). The word needs 2+ pieces and a piece on each side."""
    if not (1 <= start and start + 2 <= end < states.shape[0]):
        raise InvalidValueError(f"a word needs 2+ pieces and one on each side; got [{start}, {end}) of {len(states)}")
    unit = F.normalize(states[start - 1 : end + 1].double(), dim=-1)  # (n + 2, D): the word and its edges
    steps = (unit[:-1] * unit[1:]).sum(-1)  # (n + 1,) cosine of each adjacent pair
    return steps[1:-1].mean().item(), ((steps[0] + steps[-1]) / 2).item()


@torch.no_grad()
def composition(encoder: Encoder, targets: list[Target], batch_size: int = BATCH) -> Composition:
    """The targets' sentences through `encoder`, `batch_size` at a time -> within, neighbours and gap
    per layer, averaged over the targets. The target positions are checked against the encoder's
    own tokenizer."""
    if len(targets) < 2:
        raise InvalidValueError(f"give at least 2 targets for an interval; got {len(targets)}")
    per_word: list[list[tuple[float, float]]] = []  # per target, per layer: (within, neighbours)
    for first in range(0, len(targets), batch_size):
        chunk = targets[first : first + batch_size]
        batch, output = encoder.encode([t.text for t in chunk])
        for i, target in enumerate(chunk):
            spelled = "".join(p.removeprefix("##") for p in batch.pieces[i][target.start : target.end])
            if spelled != target.word:
                raise InvalidValueError(
                    f"{target.word!r} is not at pieces {target.start}..{target.end} of {target.text!r}"
                )
            per_word.append([piece_cosines(states[i], target.start, target.end) for states in output.hidden_states])
    layers = tuple(_summary(layer, [word[layer] for word in per_word]) for layer in range(len(per_word[0])))
    pieces = sum(t.end - t.start for t in targets) / len(targets)
    largest = max(layers, key=lambda view: view.gap).layer
    return Composition(tuple(t.word for t in targets), pieces, layers, largest)


def _summary(layer: int, pairs: list[tuple[float, float]]) -> LayerComposition:
    """One layer's (within, neighbours) per word -> their means and the gap's interval."""
    gaps = [w - n for w, n in pairs]
    within, neighbours = fmean(w for w, _ in pairs), fmean(n for _, n in pairs)
    return LayerComposition(layer, within, neighbours, fmean(gaps), t_interval(gaps))
