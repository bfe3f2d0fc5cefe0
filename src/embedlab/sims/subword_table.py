"""The subwords page's vocabulary-size table, measured: what a 1K, 8K, 32K or 100K vocabulary costs
and buys, on text its tokenizers were not trained on, beside a whole-word vocabulary of as many rows.

    ladder = VocabularyLadder.open(corpus, folder)         # BPE trained on the training part only
    table = measure(ladder, corpus)                        # VocabularyTable: one Rung per size
    [(r.size, r.pieces_per_word, r.word_oov_running) for r in table.rungs]

Per rung, with the held-out lines of data.corpora.split_lines (every 10th line of the corpus):
    pieces_per_word       BPE tokens / whitespace-separated words of the held-out text
    pieces_per_rare_word  BPE pieces of a held-out word in the frequency band RARE (fewer than 100
                          occurrences in the training part, never-seen words included), each word
                          encoded after a space as it stands in running text, weighted by occurrences
    pieces_per_other_word the same for the other held-out words: the contrast the lesson draws
                          (punctuation is no word here, so these two are below pieces_per_word)
    paragraph_tokens      BPE tokens of PARAGRAPH, one fixed paragraph written for this table
    rare_piece_share      the share of the vocabulary's pieces that are themselves RARE: used fewer
                          than 100 times when the training part is encoded (rows that barely train)
    params, mib_fp32/16   the (V, DIM) token table, counted by embedlab.sizing
    word_oov_*            a whole-word vocabulary of the same number of rows (SPECIALS + the most
                          frequent lower-cased words of the training part): the share of held-out
                          running words, and of distinct held-out words, it has no row for
BPE has no such share: every byte is a piece, so any text is spelled (spelled_back checks that
every held-out line decodes to itself).

A rung is measured only if the training part has at least as many distinct words as the rung has
rows: past that a word vocabulary holds every word, and BPE spends its extra rows on whole words
seen a handful of times. enwiki-sample's training part has about 34K distinct words, so its table
stops at 32K; gcide's has more than 100K.

This is its own module, beside subwords.py (the ladder and a word's split): measuring a ladder is
a second concept, and together they would pass 300 lines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from embedlab.data.corpora import HELD_OUT, split_lines
from embedlab.errors import InvalidValueError
from embedlab.sims.subwords import MAX_SIZE, SIZES, VocabularyLadder
from embedlab.sizing import EmbeddingLayout, count
from embedlab.tokenizer.fast import FastTokenizer
from embedlab.tokenizer.vocab import Vocab, count_words, pieces_per_word, words
from embedlab.vectors.frequency import BANDS, band, frequency_bands

RUNGS = (*SIZES, MAX_SIZE)  # the lesson's 8K, 32K and 100K columns, and the ladder's 1K below them
DIM = 768  # the lesson's d (BERT-base, GPT-2 small)
RARE = BANDS[-1][1]  # "rare": the lowest band of vectors.frequency
RARE_BELOW = BANDS[-2][0]  # its ceiling: fewer than 100 occurrences in the training part

# One fixed paragraph, the same for every corpus and rung (75 words, written for this table): plain
# English of no particular century, so that a dictionary of 1913 and Wikipedia both know its words.
PARAGRAPH = (
    "The old ferry crossed the river twice a day, carrying farmers, their baskets of apples and now and "
    "then a bewildered goat. In winter the water froze near the banks, and the ferryman, a patient and "
    "weatherbeaten fellow, broke the ice with a long iron pole before every crossing. Children from the "
    "village gathered to watch him work; most of them believed, quite wrongly, that he could predict the "
    "thaw by listening to the current."
)


@dataclass(frozen=True)
class Rung:
    """One vocabulary size: BPE's figures on the held-out text, and a word vocabulary's beside them."""

    size: int  # rows asked for, of the BPE vocabulary and of the word vocabulary alike
    vocab_size: int  # BPE pieces reached (fewer than `size` only if the corpus ran out of merges)
    pieces_per_word: float  # held-out BPE tokens / held-out whitespace words
    pieces_per_rare_word: float  # over held-out running words (vocab.words) of band RARE
    pieces_per_other_word: float  # over the other held-out running words, measured alike
    paragraph_tokens: int  # BPE tokens of PARAGRAPH
    rare_piece_share: float  # pieces used fewer than RARE_BELOW times in the training part / vocab_size
    spelled_back: bool  # every held-out line decodes from its BPE ids to itself: BPE's OOV is 0
    params: int  # vocab_size × DIM
    mib_fp32: float
    mib_fp16: float
    word_rows: int  # the word vocabulary's rows: SPECIALS + most frequent training words
    word_oov_running: float  # share of held-out running words without a row (they become [UNK])
    word_oov_distinct: float  # share of distinct held-out words without a row
    word_paragraph_unknown: int  # words of PARAGRAPH without a row


@dataclass(frozen=True)
class LeftOut:
    """A rung that was not measured, and why."""

    size: int
    reason: str


@dataclass(frozen=True)
class VocabularyTable:
    """The measured table of one corpus: one Rung per measured size, smallest first."""

    corpus: str
    held_out_every: int  # line i is held out when i % held_out_every == held_out_every - 1
    train_lines: int
    held_out_lines: int
    held_out_words: int  # whitespace-separated words of the held-out lines
    distinct_words: int  # distinct lower-cased words (vocab.words) of the training part
    rare_band: str  # RARE
    rare_below: int  # RARE_BELOW
    rare_words: int  # held-out running words (vocab.words) in band RARE
    rare_share: float  # rare_words / all held-out running words (vocab.words, as written)
    paragraph: str  # PARAGRAPH
    paragraph_words: int  # its whitespace-separated words
    dim: int  # DIM
    rungs: list[Rung]
    left_out: list[LeftOut]


def supported(rungs: Sequence[int], distinct_words: int) -> list[int]:
    """The rungs a training part with `distinct_words` distinct words can give: no more rows than words.

    >>> supported(RUNGS, 34_181)
    [1000, 8000, 32000]
    """
    return [size for size in rungs if size <= distinct_words]


def measure(ladder: VocabularyLadder, lines: Iterable[str], rungs: tuple[int, ...] = RUNGS) -> VocabularyTable:
    """Measure `ladder`'s vocabularies on the held-out part of `lines`, the corpus it was trained on.

    rungs: the sizes to measure; a size the corpus is too small for, or that the ladder lacks,
    is listed in `left_out` with the reason.
    """
    train, held = split_lines(lines)
    trained_on = {info.lines for info in ladder.infos.values()}
    if trained_on != {len(train)}:  # another corpus, or another split: the figures would be wrong
        raise InvalidValueError(
            f"the ladder was trained on {sorted(trained_on)} lines, but this corpus's training part has "
            f"{len(train)}: measure it on the corpus it was trained on"
        )
    if not held:
        raise InvalidValueError(f"a corpus of {len(train)} lines holds nothing out (every {HELD_OUT}th line is)")
    train_counts = count_words(train)  # lower-cased, as the word vocabulary's
    held_counts = count_words(held)
    surface = count_words(held, lowercase=False)  # as written: BPE tells "The" from "the"
    rare = Counter({w: n for w, n in surface.items() if band(train_counts[w.lower()]) == RARE})
    other = surface - rare
    held_words = sum(len(line.split()) for line in held)
    measured, left_out = [], []
    fitting = supported(rungs, len(train_counts))
    for size in rungs:
        if size not in fitting:
            left_out.append(LeftOut(size, f"the training part has {len(train_counts):,} distinct words, fewer than "
                                          f"{size:,}: a word vocabulary of {size:,} would hold them all"))  # fmt: skip
        elif size not in ladder.tokenizers:
            trained = ", ".join(f"{s:,}" for s in ladder.tokenizers)
            left_out.append(LeftOut(size, f"this ladder has no {size:,} vocabulary (it has {trained})"))
        else:
            vocab = Vocab(train_counts, max_size=size, lowercase=True)
            measured.append(_rung(size, ladder.tokenizers[size], vocab, held, held_words, held_counts, rare, other))
    return VocabularyTable(
        corpus=ladder.corpus,
        held_out_every=HELD_OUT,
        train_lines=len(train),
        held_out_lines=len(held),
        held_out_words=held_words,
        distinct_words=len(train_counts),
        rare_band=RARE,
        rare_below=RARE_BELOW,
        rare_words=sum(rare.values()),
        rare_share=sum(rare.values()) / sum(surface.values()),
        paragraph=PARAGRAPH,
        paragraph_words=len(PARAGRAPH.split()),
        dim=DIM,
        rungs=measured,
        left_out=left_out,
    )


def _rung(size: int, tokenizer: FastTokenizer, vocab: Vocab, held: list[str], held_words: int,
          held_counts: Counter[str], rare: Counter[str], other: Counter[str]) -> Rung:  # fmt: skip
    ids = tokenizer.encode_batch(held)
    fp32 = count(EmbeddingLayout(vocab_size=tokenizer.vocab_size, dim=DIM), "fp32")
    fp16 = count(EmbeddingLayout(vocab_size=tokenizer.vocab_size, dim=DIM), "fp16")
    unknown = [w for w in held_counts if w not in vocab]
    return Rung(
        size=size,
        vocab_size=tokenizer.vocab_size,
        pieces_per_word=sum(map(len, ids)) / held_words,
        pieces_per_rare_word=pieces_per_word(tokenizer, rare),
        pieces_per_other_word=pieces_per_word(tokenizer, other),
        paragraph_tokens=len(tokenizer.encode(PARAGRAPH)),
        rare_piece_share=frequency_bands(tokenizer.counts, RARE_BELOW).rare_share,
        spelled_back=all(tokenizer.decode(line_ids) == line for line_ids, line in zip(ids, held, strict=True)),
        params=fp32.token_params,
        mib_fp32=fp32.mib,
        mib_fp16=fp16.mib,
        word_rows=len(vocab),
        word_oov_running=sum(held_counts[w] for w in unknown) / sum(held_counts.values()),
        word_oov_distinct=len(unknown) / len(held_counts),
        word_paragraph_unknown=sum(w not in vocab for w in words(PARAGRAPH)),
    )
