"""A distilled model's vocabulary: the teacher's tokens less those no text produces, plus, if asked,
whole words that the teacher splits into pieces (Model2Vec's vocabulary extension).

    words = frequent_words(teacher.tokenizer, lines, 5000)   the corpus's commonest words the teacher splits
    vocabulary = Vocabulary.of(teacher.tokenizer, words)     its tokenizer: kept tokens, then the words

BERT vocabularies hold placeholders ([unused0] …) that no text produces; they leave the table, so the
static model's ids run 0 … K-1 over the kept tokens in the teacher's order, then K … K+W-1 over the
added words in the order given. A word added to a WordPiece vocabulary wins over its pieces: the
tokenizer matches the longest vocabulary entry from a word's start, so "alkali" becomes one row
where the teacher read "al ##kali". Its row is the encoder's output over all of its pieces at once
("[CLS] al ##kali [SEP]"), pooled as a single token's is (train.distill.word_outputs).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from tokenizers import Tokenizer

from embedlab.errors import InvalidValueError, check_int

UNUSED = re.compile(r"\[unused\d+\]")  # BERT's placeholder rows: never produced from text


@dataclass(frozen=True)
class Vocabulary:
    """tokenizer: the static model's (WordPiece over the kept tokens, then the words; no post-processor,
    padding or truncation); kept (K,) int64: the teacher's id of each kept token, ascending; words (W,):
    the added words, normalised as the tokenizer normalises text; skipped: words given but not added
    (already a token, more than one word once pre-tokenised, a piece the teacher cannot spell, or twice);
    removed: the teacher's tokens left out ([unusedN])."""

    tokenizer: Tokenizer
    kept: np.ndarray
    words: tuple[str, ...]
    skipped: int
    removed: int

    @classmethod
    def of(cls, teacher: Tokenizer, words: Iterable[str] = ()) -> Vocabulary:
        """The vocabulary of a static model distilled from `teacher` ([unusedN] out, `words` added)."""
        tokens = [teacher.id_to_token(i) for i in range(teacher.get_vocab_size(with_added_tokens=True))]
        kept = np.array([i for i, t in enumerate(tokens) if not UNUSED.fullmatch(t)], dtype=np.int64)
        given = list(words)
        added = tuple(dict.fromkeys(w for w in (_as_one_word(teacher, g) for g in given) if w is not None))
        state = json.loads(teacher.to_str())
        if added and state["model"]["type"] != "WordPiece":  # a BPE or Unigram model would never emit them
            raise InvalidValueError(
                f"words can be added to a WordPiece tokenizer; the teacher's is {state['model']['type']}"
            )
        new_id = {int(old): new for new, old in enumerate(kept)}
        state["model"]["vocab"] = {tokens[old]: new for new, old in enumerate(kept)} | {
            w: len(kept) + i for i, w in enumerate(added)
        }
        state["added_tokens"] = [t | {"id": new_id[t["id"]]} for t in state["added_tokens"] if t["id"] in new_id]
        # pieces only: no [CLS]/[SEP] around a text (as Model2Vec), no padding to a fixed length
        state["post_processor"] = state["padding"] = state["truncation"] = None
        tokenizer = Tokenizer.from_str(json.dumps(state))
        return cls(tokenizer, kept, added, len(given) - len(added), len(tokens) - len(kept))

    @property
    def size(self) -> int:
        """Tokens of the static model: kept ones and added words."""
        return len(self.kept) + len(self.words)


def frequent_words(teacher: Tokenizer, lines: Iterable[str], count: int) -> list[str]:
    """The `count` commonest words of `lines` (fewer if the lines hold fewer) that the teacher splits
    into pieces: each line normalised and pre-tokenised as the teacher does (lower-cased, punctuation
    apart), words of letters only that are not a token already and that the teacher spells without
    its unknown piece, most frequent first (ties: first seen first, so a word list keeps its order)."""
    check_int("count", count, low=0)
    counts = Counter(w for line in lines for w in _pre_tokens(teacher, line) if w.isalpha())
    words = []
    for word, _ in counts.most_common():
        if len(words) == count:
            break
        if _as_one_word(teacher, word) is not None:
            words.append(word)
    return words


def _pre_tokens(teacher: Tokenizer, text: str) -> list[str]:
    """`text` normalised and split into words as the teacher does before its model sees it."""
    text = teacher.normalizer.normalize_str(text) if teacher.normalizer else text
    return [w for w, _ in teacher.pre_tokenizer.pre_tokenize_str(text)] if teacher.pre_tokenizer else [text]


def _as_one_word(teacher: Tokenizer, word: str) -> str | None:
    """`word` as the teacher's normaliser leaves it, if that is one pre-token, not already a token,
    and spelled by the teacher without its unknown piece; else None."""
    if not isinstance(word, str):
        return None
    split = _pre_tokens(teacher, word)
    if len(split) != 1 or teacher.token_to_id(split[0]) is not None:
        return None
    unknown = getattr(teacher.model, "unk_token", None)
    pieces = teacher.encode(split[0], add_special_tokens=False).tokens
    return None if not pieces or unknown in pieces else split[0]
