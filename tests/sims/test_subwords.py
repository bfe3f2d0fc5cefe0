"""The vocabulary ladder: 1K/8K/32K byte-level BPE on enwiki-sample's training part, pieces that spell
the text back, piece counts checked against the corpus, held-out lines that change nothing, and a disk
cache that is trained once (and never read from an older version's files)."""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections import Counter

import pytest
from tokenizers import decoders, pre_tokenizers

from embedlab.data.corpora import open_corpus, split_lines
from embedlab.errors import InvalidValueError
from embedlab.sims.subwords import SIZES, VocabularyInfo, VocabularyLadder, cache_file, readable, stored
from embedlab.tokenizer import FastTokenizer
from embedlab.tokenizer.bytes import bytes_to_unicode, piece_bytes
from embedlab.vectors.frequency import band

TEXTS = ["unhappiness", "the cat sat", "naïve 東京 🙂", "  two  spaces\tand a tab", "Transformerization!"]
TINY_SIZES = (260, 300)  # a few merges over the 256 bytes: trains in milliseconds


@pytest.fixture(scope="module")
def wiki_lines(wiki_text):
    """enwiki-sample's training part: every line but each 10th."""
    return [line for i, line in enumerate(open_corpus(wiki_text)) if i % 10 != 9]


@pytest.fixture
def tiny_corpus(wiki_text, tmp_path):
    path = tmp_path / "tiny.txt"
    lines = wiki_text.read_text(encoding="utf-8").splitlines()[:200]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return open_corpus(path)


@pytest.fixture
def train_calls(monkeypatch):
    """Counts FastTokenizer.train calls (each ladder size trained is one call)."""
    calls = []
    train = FastTokenizer.train

    def counted(cls, *args, **kwargs):
        calls.append(kwargs.get("vocab_size"))
        return train(*args, **kwargs)

    monkeypatch.setattr(FastTokenizer, "train", classmethod(counted))
    return calls


@pytest.mark.parametrize("leading_space", [True, False])
@pytest.mark.parametrize("text", TEXTS)
def test_pieces_spell_the_text_back(ladder, text, leading_space):
    expected = " " + text if leading_space else text
    for split in ladder.split(text, leading_space=leading_space):
        pieces = [p.piece for p in split.pieces]
        assert decoders.ByteLevel().decode(pieces) == expected  # HF's own byte-level decoder as the oracle
        assert b"".join(piece_bytes(p) for p in pieces) == expected.encode()
        assert ladder.tokenizers[split.size].decode([p.id for p in split.pieces]) == expected
        assert all(ladder.tokenizers[split.size].piece(p.id) == p.piece for p in split.pieces)


def test_readable_shows_spaces_and_partial_characters():
    stand_in = bytes_to_unicode()
    assert readable("Ġcat") == "␣cat" == readable(stand_in[0x20] + "cat")
    assert readable(stand_in[0xC3]) == "\\xc3"  # first byte of "é": no character on its own
    assert readable(stand_in[0xC3] + stand_in[0xA9]) == "é"
    assert readable(stand_in[0x0A]) == "↵"
    with pytest.raises(InvalidValueError, match="'東' is not a byte-level piece"):
        piece_bytes("東")


def test_every_size_is_reached_on_enwiki_sample(ladder, wiki_lines, wiki_text):
    assert list(ladder.tokenizers) == list(SIZES)
    all_lines = len(list(open_corpus(wiki_text)))
    for size, info in ladder.infos.items():
        assert info.vocab_size == size == ladder.tokenizers[size].vocab_size
        assert info.lines == len(wiki_lines) and info.held_out == all_lines // 10 == all_lines - len(wiki_lines)
        assert info.train_seconds > 0 and info.count_seconds > 0


def test_split_lines_holds_out_every_tenth_line():
    lines = [f"line {i}" for i in range(25)]
    train, held = split_lines(lines)
    assert held == lines[9::10] == ["line 9", "line 19"]
    assert train == [line for line in lines if line not in held]
    assert split_lines(iter(lines)) == (train, held)  # a stream splits as the list does
    with pytest.raises(InvalidValueError, match="every must be >= 2; got 1"):
        split_lines(lines, every=1)


def test_held_out_lines_change_nothing(tiny_corpus, tmp_path):
    """The ladder never reads a held-out line: replacing all of them leaves merges and counts alike."""
    lines = list(tiny_corpus)
    (tmp_path / "other").mkdir()
    other = tmp_path / "other" / "tiny.txt"  # the same name: the same file names, in another cache folder
    other.write_text("".join(("zebra quokka " * 20 if i % 10 == 9 else line) + "\n" for i, line in enumerate(lines)),
                     encoding="utf-8")  # fmt: skip
    first = VocabularyLadder.open(tiny_corpus, tmp_path / "a", TINY_SIZES)
    second = VocabularyLadder.open(open_corpus(other), tmp_path / "b", TINY_SIZES)
    for size in TINY_SIZES:
        assert first.tokenizers[size].merges() == second.tokenizers[size].merges()
        assert first.tokenizers[size].counts == second.tokenizers[size].counts
    assert "zebra" not in "".join(lines) and second.split("zebra") == first.split("zebra")


def test_smaller_vocabularies_are_the_first_merges_of_bigger_ones(ladder):
    merges = {size: tok.merges() for size, tok in ladder.tokenizers.items()}
    assert merges[1_000] == merges[8_000][: len(merges[1_000])]
    assert merges[8_000] == merges[32_000][: len(merges[8_000])]


def test_bigger_vocabularies_never_use_more_pieces(ladder, wiki_lines):
    words = Counter(w for line in wiki_lines for w in re.findall(r"[A-Za-z]+", line))
    rare = sorted(w for w, c in words.items() if c == 1 and len(w) >= 8)[::20]  # a spread of rare words
    frequent = [w for w, _ in words.most_common(100)]
    lengths = {}
    for word in rare + frequent:
        splits = ladder.split(word)  # 1K, 8K, 32K
        cuts = [set(itertools.accumulate(len(piece_bytes(p.piece)) for p in s.pieces)) for s in splits]
        assert cuts[0] >= cuts[1] >= cuts[2], word  # a bigger vocabulary only removes cuts between pieces
        lengths[word] = [len(s.pieces) for s in splits]
    assert len(rare) > 50
    assert sum(lengths[w][0] for w in rare) > sum(lengths[w][2] for w in rare)  # rare words fall apart more
    assert all(lengths[w][2] == 1 for w in frequent)  # the 100 most frequent words are whole at 32K
    assert sum(lengths[w][0] == 1 for w in frequent) < len(frequent)  # ... but not all at 1K


def test_counts_are_how_often_the_training_part_uses_each_piece(ladder, wiki_lines):
    tokenizer = ladder.tokenizers[1_000]
    by_line = Counter(i for line in wiki_lines for i in tokenizer.encode(line))  # one line at a time
    assert tokenizer.counts == [by_line[i] for i in range(tokenizer.vocab_size)]
    # On 32K, a whole-word piece occurs at least once per pre-tokenized chunk equal to it, and at
    # most as often as it appears inside chunks: bounds taken from the raw text, not the encoding.
    splitter = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    chunks = Counter(c for line in wiki_lines for c, _ in splitter.pre_tokenize_str(line))
    tokenizer = ladder.tokenizers[32_000]
    for word in ["Ġthe", "Ġcity", "Ġmusic", "Ġwar", "Ġlanguage"]:
        (piece,) = ladder.split(word[1:])[2].pieces
        inside = sum(c * chunk.count(word) for chunk, c in chunks.items() if word in chunk)
        assert chunks[word] <= piece.count == tokenizer.counts[piece.id] <= inside, word
        assert piece.band == band(piece.count) and piece.count > 0


def test_a_second_open_loads_what_the_first_trained(tiny_corpus, tmp_path, train_calls):
    first = VocabularyLadder.open(tiny_corpus, tmp_path / "cache", TINY_SIZES)
    assert train_calls == list(TINY_SIZES)
    files = sorted((tmp_path / "cache").iterdir())
    times = {f.name: f.stat().st_mtime_ns for f in files}
    assert {f.name for f in files} >= {f"tiny.txt-260-v2.{end}" for end in ("json", "counts.json", "meta.json")}
    second = VocabularyLadder.open(tiny_corpus, tmp_path / "cache", TINY_SIZES)  # as a new process would
    assert train_calls == list(TINY_SIZES)  # nothing trained again
    assert {f.name: f.stat().st_mtime_ns for f in sorted((tmp_path / "cache").iterdir())} == times
    assert second.split("unhappiness") == first.split("unhappiness")
    assert second.infos == first.infos


def test_concurrent_opens_train_once(tiny_corpus, tmp_path, train_calls):
    ladders, errors = [], []

    def open_():
        try:
            ladders.append(VocabularyLadder.open(tiny_corpus, tmp_path, TINY_SIZES))
        except Exception as err:  # a thread's failure must fail the test, not vanish
            errors.append(err)

    threads = [threading.Thread(target=open_) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(ladders) == 4
    assert sorted(train_calls) == list(TINY_SIZES)  # each size trained by one of the four
    assert len({tuple(p.id for s in ld.split("the cat") for p in s.pieces) for ld in ladders}) == 1


def test_an_incomplete_size_is_trained_again(tiny_corpus, tmp_path, train_calls):
    VocabularyLadder.open(tiny_corpus, tmp_path, TINY_SIZES)
    cache_file(tmp_path, "tiny.txt", 300, "meta.json").unlink()  # as if the process died before its last write
    assert stored(tmp_path, "tiny.txt", 300) is None and stored(tmp_path, "tiny.txt", 260) is not None
    cache_file(tmp_path, "tiny.txt", 260, "meta.json").write_text("{not json", encoding="utf-8")
    ladder = VocabularyLadder.open(tiny_corpus, tmp_path, TINY_SIZES)
    assert train_calls == [*TINY_SIZES, *TINY_SIZES]
    assert ladder.infos[300].vocab_size == ladder.tokenizers[300].vocab_size == 300


def test_a_damaged_tokenizer_file_is_trained_again(tiny_corpus, tmp_path, train_calls):
    VocabularyLadder.open(tiny_corpus, tmp_path, TINY_SIZES)
    tokenizer = cache_file(tmp_path, "tiny.txt", 260, "json")
    tokenizer.write_bytes(tokenizer.read_bytes()[:100])  # cut short, its meta.json still saying "whole"
    ladder = VocabularyLadder.open(tiny_corpus, tmp_path, TINY_SIZES)
    assert train_calls == [*TINY_SIZES, 260]  # only the damaged size again
    assert ladder.tokenizers[260].vocab_size == ladder.infos[260].vocab_size == 260


# A cache file with the right keys and wrong types (a string where a number goes, a list where an
# object goes, NaN where a finite float goes): each ending, its damage, and whether to expect a log line.
DAMAGED = [
    ("meta.json", lambda d: {**d, "vocab_size": str(d["vocab_size"])}),
    ("meta.json", lambda d: {**d, "corpus": [d["corpus"]]}),
    ("meta.json", lambda d: {**d, "train_seconds": float("nan")}),
    ("meta.json", lambda d: {**d, "size": 8000}),  # well typed, but another vocabulary's record
    ("counts.json", lambda d: [str(c) for c in d]),
    ("counts.json", lambda d: [{"count": c} for c in d]),
    ("json", lambda d: {**d, "model": {**d["model"], "vocab": list(d["model"]["vocab"])}}),
    ("json", lambda d: {**d, "model": {**d["model"], "merges": {"a": "b"}}}),
]


@pytest.mark.parametrize(("ending", "damage"), DAMAGED, ids=[f"{e}-{i}" for i, (e, _) in enumerate(DAMAGED)])
def test_a_cache_file_with_the_right_keys_and_wrong_types_is_trained_again(
    tiny_corpus, tmp_path, train_calls, caplog, ending, damage
):
    """The ladder's files are its own cache: one damaged by type is rebuilt (and logged), never served."""
    first = VocabularyLadder.open(tiny_corpus, tmp_path, TINY_SIZES)
    path = cache_file(tmp_path, "tiny.txt", 260, ending)
    path.write_text(json.dumps(damage(json.loads(path.read_text(encoding="utf-8")))), encoding="utf-8")
    with caplog.at_level("WARNING", logger="embedlab"):
        ladder = VocabularyLadder.open(tiny_corpus, tmp_path, TINY_SIZES)
    assert train_calls == [*TINY_SIZES, 260]  # the damaged size alone, again
    assert "subword vocabulary tiny.txt-260" in caplog.text and "training it again" in caplog.text
    meta = json.loads(cache_file(tmp_path, "tiny.txt", 260, "meta.json").read_text())
    assert ladder.infos[260] == VocabularyInfo(**meta) and meta["size"] == 260
    assert ladder.tokenizers[260].counts == first.tokenizers[260].counts  # what was served is what was trained
    assert ladder.splits("unhappiness") == first.splits("unhappiness")


def test_files_of_the_first_version_are_not_read(tiny_corpus, tmp_path, train_calls):
    """Version 1 wrote CORPUS-SIZE.json, trained on every line: a ladder that found it would hand
    out vocabularies that had seen the held-out lines."""
    FastTokenizer.train(list(tiny_corpus), vocab_size=260).save(tmp_path / "tiny.txt-260.json")
    train_calls.clear()
    old_info = {"corpus": "tiny.txt", "size": 260, "vocab_size": 260, "lines": 200, "train_seconds": 0.1,
                "count_seconds": 0.1}  # fmt: skip
    (tmp_path / "tiny.txt-260.meta.json").write_text(json.dumps(old_info), encoding="utf-8")
    ladder = VocabularyLadder.open(tiny_corpus, tmp_path, (260,))
    assert train_calls == [260]  # trained again on the training part
    meta = json.loads(cache_file(tmp_path, "tiny.txt", 260, "meta.json").read_text())
    assert ladder.infos[260] == VocabularyInfo(**meta)
    assert (ladder.infos[260].lines, ladder.infos[260].held_out) == (180, 20)
    assert json.loads((tmp_path / "tiny.txt-260.meta.json").read_text()) == old_info  # left as it was


def test_a_small_corpus_says_what_size_it_reached(tiny_corpus, tmp_path):
    ladder = VocabularyLadder.open(tiny_corpus, tmp_path, (300, 90_000))
    reached = FastTokenizer.train(split_lines(tiny_corpus)[0], vocab_size=90_000).vocab_size
    assert reached < 90_000
    assert [(s.size, s.vocab_size) for s in ladder.split("cat")] == [(300, 300), (90_000, reached)]


@pytest.mark.parametrize(
    "sizes, message",
    [
        ((1_000, 1_000), "sizes must be distinct and ascending; got (1000, 1000)"),
        ((8_000, 1_000), "sizes must be distinct and ascending; got (8000, 1000)"),
        ((), "sizes must be distinct and ascending; got ()"),
        ((100,), "size must be between 257 and 100000; got 100"),
        ((200_000,), "size must be between 257 and 100000; got 200000"),
    ],
)
def test_bad_sizes_name_the_limit(tiny_corpus, tmp_path, sizes, message):
    with pytest.raises(InvalidValueError) as err:
        VocabularyLadder.open(tiny_corpus, tmp_path, sizes)
    assert str(err.value) == message
    assert not list(tmp_path.glob("*.json"))
