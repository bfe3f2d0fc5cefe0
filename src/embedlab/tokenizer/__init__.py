"""Tokenizers: a readable reference BPE, the same interface on HuggingFace `tokenizers`, and
word-level vocabularies with an OOV policy.

    bpe.py     BPE: the reference trainer and tokenizer (train, encode, decode, save, load)
    pairs.py   PairIndex: adjacent-pair counts kept current as merges rewrite words; merge
    pretokenize.py  what BPE starts from: split rules (gpt2, whitespace, none) and alphabets
    bytes.py   GPT-2's byte table and the space marker "Ġ": word_key, piece_word, piece_bytes
    fast.py    FastTokenizer on HuggingFace `tokenizers`; load_tokenizer, the one file reader
    vocab.py   words and count_words (the one word tokenizer), Vocab, piece and word statistics

    load_tokenizer("minilm")          # a built-in model's tokenizer.json
    load_tokenizer("bpe.json")        # a file written by BPE.save or FastTokenizer.save
"""

from __future__ import annotations

from embedlab.tokenizer.bpe import BPE, Merge
from embedlab.tokenizer.fast import FastTokenizer, load_tokenizer
from embedlab.tokenizer.vocab import Vocab

__all__ = ["BPE", "FastTokenizer", "Merge", "Vocab", "load_tokenizer"]
