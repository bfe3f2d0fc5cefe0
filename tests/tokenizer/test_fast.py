"""FastTokenizer: the library's trainer agrees with the reference BPE; loading real files."""

from __future__ import annotations

import json
from itertools import islice

import pytest

from embedlab.data.corpora import open_corpus
from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, OutputExistsError
from embedlab.tokenizer.bpe import BPE
from embedlab.tokenizer.fast import FastTokenizer, load_tokenizer

AGREEMENT_CHARS = 1_100_000  # the issue asks for a real corpus slice of at least 1 MB
AGREEMENT_MERGES = 2000


def _slice(name: str, chars: int) -> list[str]:
    lines, total = [], 0
    for line in open_corpus(name):
        lines.append(line + "\n")
        total += len(line) + 1
        if total >= chars:
            break
    return lines


@pytest.mark.parametrize("corpus", ["gcide", "enwiki-sample"])
def test_reference_with_hf_ties_equals_the_library_trainer(corpus):
    lines = _slice(corpus, AGREEMENT_CHARS)
    assert sum(map(len, lines)) >= 1_000_000
    fast = FastTokenizer.train(lines, vocab_size=256 + AGREEMENT_MERGES)
    reference = BPE(mode="byte", split="gpt2", tie="hf")
    reference.train(lines, num_merges=AGREEMENT_MERGES)
    assert [(m.left, m.right) for m in reference.history] == fast.merges()
    # and both encode alike, with the same ids
    text = " ".join(islice(open_corpus(corpus), 2000, 2010))
    assert reference.encode(text) == fast.encode(text)


@pytest.mark.parametrize("corpus", ["gcide", "enwiki-sample"])
def test_whitespace_split_agrees_too(corpus):
    lines = _slice(corpus, 300_000)  # a smaller slice: this split adds no new code path to time
    fast = FastTokenizer.train(lines, vocab_size=256 + 500, split="whitespace")
    reference = BPE(mode="byte", split="whitespace", tie="hf")
    reference.train(lines, num_merges=500)
    assert [(m.left, m.right) for m in reference.history] == fast.merges()
    assert all("Ġ" not in m.token or set(m.token) == {"Ġ"} for m in reference.history)  # no word takes a space
    text = "The cat  sat\ton the mat.\n 🙂 naïve " + " ".join(islice(open_corpus(corpus), 2000, 2005))
    assert reference.encode(text) == fast.encode(text) and fast.decode(fast.encode(text)) == text


def test_options_without_a_library_counterpart_are_refused():
    with pytest.raises(InvalidValueError, match="split must be one of gpt2, whitespace; got 'none'"):
        FastTokenizer.train(["the cat"], vocab_size=300, split="none")


def test_minilm_wordpiece_tokenizer():
    fast = FastTokenizer.load("minilm")
    assert fast.vocab_size == 30522
    ids = fast.encode("The cat sat on the mat")
    assert [fast.piece(i) for i in ids] == ["the", "cat", "sat", "on", "the", "mat"]  # no [CLS]/[SEP], no padding
    assert fast.decode(ids) == "the cat sat on the mat"
    with pytest.raises(InvalidValueError, match="a WordPiece tokenizer has no merges"):
        fast.merges()


def test_save_and_load_round_trip(tmp_path):
    fast = FastTokenizer.train(["the cat sat on the mat"] * 20, vocab_size=270, special_tokens=["<pad>"])
    path = fast.save(tmp_path / "tokenizer.json")
    assert [p.name for p in tmp_path.iterdir()] == ["tokenizer.json"]
    loaded = FastTokenizer.load(path)
    assert loaded.encode("the mat 🙂") == fast.encode("the mat 🙂")
    assert loaded.encode_batch(["the mat", "🙂", ""]) == [fast.encode("the mat"), fast.encode("🙂"), []]
    assert loaded.decode(loaded.encode("the mat 🙂")) == "the mat 🙂"
    assert loaded.piece(0) == "<pad>"


def test_load_tokenizer_opens_either_kind_of_file(tmp_path):
    reference = BPE(mode="byte")
    reference.train("the cat sat on the mat", num_merges=5)
    fast = FastTokenizer.train(["the cat sat on the mat"] * 5, vocab_size=260)
    assert isinstance(load_tokenizer(reference.save(tmp_path / "ref.json")), BPE)
    assert isinstance(load_tokenizer(fast.save(tmp_path / "fast.json")), FastTokenizer)
    assert load_tokenizer("minilm").vocab_size == 30522


def _trained(kind: str) -> BPE | FastTokenizer:
    if kind == "reference":
        reference = BPE(mode="byte")
        reference.train("the cat sat on the mat", num_merges=5)
        return reference
    fast = FastTokenizer.train(["the cat sat on the mat"] * 5, vocab_size=260)
    fast.counts = [1] * fast.vocab_size  # so the counts file is written beside it
    return fast


@pytest.mark.parametrize("kind", ["reference", "fast"])
def test_of_saves_racing_for_one_new_file_exactly_one_wins(tmp_path, kind, at_once):
    """`embedlab tokenizer train --out` saves with replace=False unless --force: the file is created
    exclusively, not only checked when the command starts. Threads released by a barrier all save
    to one new path: one wins, the others get OutputExistsError naming it."""
    tokenizer, path, n = _trained(kind), tmp_path / "t.json", 6
    outcome = at_once(n, lambda i: tokenizer.save(path, replace=False))
    assert sum(err is None for err in outcome) == 1, outcome
    assert all(err is None or (isinstance(err, OutputExistsError) and str(path) in str(err)) for err in outcome)
    assert load_tokenizer(path).encode("the cat") == tokenizer.encode("the cat")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.counts.json", "t.json"][kind == "reference" :]
    tokenizer.save(path)  # replace (the default, and --force) still replaces


def test_bad_input(tmp_path):
    with pytest.raises(MissingDataError, match="'bert-huge' is neither a built-in name \\(minilm\\) nor a file"):
        FastTokenizer.load("bert-huge")
    with pytest.raises(MissingDataError, match="no tokenizer.json in"):
        FastTokenizer.load(tmp_path)  # a folder without one
    corrupt = tmp_path / "tokenizer.json"
    corrupt.write_text('{"model": {"type": "BPE", "vocab": 3}}')
    with pytest.raises(FileFormatError, match="tokenizer.json: not a readable tokenizer file .*expected a map"):
        FastTokenizer.load(corrupt)
    with pytest.raises(InvalidValueError, match="vocab_size 100 is below the alphabet size 257"):
        FastTokenizer.train("the cat", vocab_size=100, special_tokens=["<pad>"])
    fast = FastTokenizer.load("minilm")
    with pytest.raises(InvalidValueError, match="token id 30522 is out of range: vocab_size is 30522"):
        fast.decode([1, 30522])


DAMAGED_FILES = {  # case -> (tokenizer.json text from the saved one, counts.json text, the file named, it says)
    "tokenizer cut short": (lambda t: t[: len(t) // 2], None, "tokenizer.json", "cut short: "),
    "tokenizer not a tokenizer": (lambda t: '{"model": 7}', None, "tokenizer.json", "HuggingFace tokenizers says: "),
    "counts cut short": (None, "[1, 2, 3", "tokenizer.counts.json", "cut short: "),
    "counts not a list": (None, '{"the": 3}', "tokenizer.counts.json", "expected a list; found an object"),
    "counts of another vocabulary": (None, "[1, 2, 3]", "tokenizer.counts.json", "integers >= 0, one per piece"),
    "counts negative": (None, json.dumps([-1] * 268), "tokenizer.counts.json", "expected 268 integers >= 0"),
}


@pytest.mark.parametrize("case", DAMAGED_FILES)
def test_a_damaged_tokenizer_or_counts_file_raises_file_format_error(tmp_path, case):
    damage_tokenizer, counts, name, says = DAMAGED_FILES[case]
    fast = FastTokenizer.train("the cat sat on the mat " * 20, vocab_size=300)  # stops at 268: no pair is left
    fast.counts = [1] * fast.vocab_size
    path = fast.save(tmp_path / "tokenizer.json")
    if damage_tokenizer is not None:
        path.write_text(damage_tokenizer(path.read_text(encoding="utf-8")), encoding="utf-8")
    if counts is not None:
        (tmp_path / "tokenizer.counts.json").write_text(counts, encoding="utf-8")
    for load in (FastTokenizer.load, load_tokenizer):
        with pytest.raises(FileFormatError) as info:
            load(path)
        message = str(info.value)
        assert message.startswith(f"{tmp_path / name}: not a readable ") and says in message, message
        assert message.isprintable()
