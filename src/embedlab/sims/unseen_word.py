"""The subword page's unseen-word panel: any word in a subword table (fastText's kind,
embedlab.vectors.SubwordVectors), taken apart, beside what a whole-word table answers for it.

    view = unseen_word(table, "philosophys", k=5)  # a table of 3..6-grams in 2,000,000 buckets
    [(g.text, g.bucket) for g in view.ngrams]   # [("<ph", 238651), ("<phi", 1463190), ...]: "<philosophys>" cut up
    view.source                                 # "ngrams": no row of its own, the mean of its buckets' rows
    view.found.keys                             # its 5 nearest whole words, table.most_similar("philosophys", topn=5)
    view.whole_word                             # "unknown key 'philosophys': not among the 9630 keys of ..."

The n-grams and bucket ids are embedlab.hashing's (fastText's FNV-1a ids), each bucket with how
many training updates its row got when the table knows: a run folder trained here with --subwords
does; a fastText .bin has no place for them, whoever wrote it (the fastText tool, gensim or
`embedlab export`). A whole-word table holding the same words and vectors has nothing for a
word without a row: `whole_word` is its lookup's error, word for word. A word the subword table
cannot make a vector for either (no n-gram of min_n..max_n characters, or none of its buckets ever
updated) has no neighbours, and `unknown` says why in the table's own words.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from embedlab.errors import InvalidValueError, UnknownKeyError, check_int
from embedlab.hashing import char_ngrams, ngram_buckets
from embedlab.hashing.ngrams import BOW, EOW
from embedlab.sims.limits import MAX_TOKEN
from embedlab.vectors.neighbors import Neighbors
from embedlab.vectors.table import Vectors

MAX_WORD = MAX_TOKEN  # characters of the word typed (a key of a table)
MAX_K = 50  # nearest whole words shown
DEFAULT_K = 10
SEPARATORS = " \n\r\t\v\f\0"  # where fastText's reader ends a word (a no-break space does not)


@dataclass(frozen=True)
class Ngram:
    """One character n-gram of "<word>" and the hash bucket whose row it shares with other n-grams."""

    text: str  # the n-gram, boundary marks included: "<ph", "ys>"
    bucket: int  # its bucket, 0..buckets-1: FNV-1a (fastText's) or MurmurHash3 (floret's, each key hash_count times)
    updates: int | None  # training updates of that bucket's row; None when unknown (a .bin does not hold them)


@dataclass(frozen=True)
class UnseenWord:
    """A word in a subword table: its n-grams and their buckets, where its vector comes from and its
    nearest whole words; beside what a whole-word table of the same words answers for it."""

    table: str  # the subword table's name
    word: str  # the word asked about
    words: int  # V, whole words with a row of their own
    buckets: int  # B, hash buckets the n-grams of every word share
    min_n: int  # shortest n-gram, in characters (boundary marks count)
    max_n: int  # longest n-gram
    ngrams: tuple[Ngram, ...]  # those of "<word>" in fastText's order; one occurring twice is listed twice
    updates_known: bool  # whether the table knows its buckets' update counts (False: a .bin has no place for them)
    row: int | None  # the word's own row among the whole words; None: it has none
    source: str | None  # "word" (its own row and n-gram rows), "ngrams" (n-gram rows alone); None: no vector
    unknown: str | None  # why the subword table can make no vector for the word (its error), else None
    found: Neighbors | None  # the k whole words nearest its vector (table.most_similar); None without a vector
    whole_word: str | None  # a whole-word table's answer: its lookup's error; None: the word has a row


def unseen_word(table: Vectors, word: str, k: int = DEFAULT_K) -> UnseenWord:
    """`word` (1..MAX_WORD characters, no space or other separator) in the subword `table`: its n-grams with their
    bucket ids and update counts, and its k nearest whole words, beside a whole-word lookup's answer.
    InvalidValueError for a table without n-grams (`table.composes` False) or a bad word or k."""
    if not table.composes:
        raise InvalidValueError(
            f"table {table.name!r} is a whole-word table: it has no character n-grams to build a vector for "
            "a word without a row; pick a subword table (a fastText .bin with n-grams)"
        )
    check_word(word)
    check_int("k", k, low=1, high=MAX_K)
    grams, hashes = char_ngrams(word, table.min_n, table.max_n), table.hash_count
    ids = ngram_buckets(word, table.min_n, table.max_n, table.buckets, hash_count=hashes).tolist()
    if hashes is not None:  # floret: "<word>" is hashed too, first, and every key `hashes` times
        grams = [key for key in [BOW + word + EOW, *grams] for _ in range(hashes)]
    counts = table.bucket_counts  # (B,) int64 or None
    ngrams = tuple(Ngram(g, i, None if counts is None else int(counts[i])) for g, i in zip(grams, ids, strict=True))
    try:
        source, unknown = table.source(word), None
        found = table.most_similar(word, topn=k)
    except UnknownKeyError as err:  # no n-gram, or none of its buckets updated: the table says which
        source, unknown, found = None, str(err), None
    return UnseenWord(
        table=table.name,
        word=word,
        words=len(table),
        buckets=table.buckets,
        min_n=table.min_n,
        max_n=table.max_n,
        ngrams=ngrams,
        updates_known=counts is not None,
        row=table.key_to_index.get(word),
        source=source,
        unknown=unknown,
        found=found,
        whole_word=whole_word_answer(table, word),
    )


def whole_word_answer(table: Vectors, word: str) -> str | None:
    """What a whole-word table of `table`'s words says for `word`: None if the word has a row, else
    the error of looking up its row (`index_of`, the lookup every Vectors query starts with)."""
    try:
        table.index_of(word)
    except UnknownKeyError as err:
        return str(err)
    return None


def check_word(word: object) -> str:
    """`word` if it is 1..MAX_WORD characters of text without a character fastText splits words at
    (SEPARATORS: no table has a word holding one) or a lone surrogate (an undecodable byte: it has no
    UTF-8 bytes to hash); else InvalidValueError naming the problem and where it stands.

    >>> check_word("philosophys")
    'philosophys'
    """
    if not isinstance(word, str):
        raise InvalidValueError(f"word must be a string; got {type(word).__name__}")
    if not 1 <= len(word) <= MAX_WORD:
        raise InvalidValueError(f"word must be 1 to {MAX_WORD} characters; got {len(word)}")
    for i, char in enumerate(word):
        if char in SEPARATORS:
            raise InvalidValueError(
                f"word holds U+{ord(char):04X} at character {i}: fastText ends a word there, so no table's word "
                "holds one; type one word"
            )
        if unicodedata.category(char) == "Cs":
            raise InvalidValueError(
                f"word holds a lone surrogate (an undecodable byte), U+{ord(char):04X}, at character {i}"
            )
    return word
