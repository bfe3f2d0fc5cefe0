"""The reference BPE: the lessons' hand calculation, a naive oracle, HuggingFace agreement."""

from __future__ import annotations

import json
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError
from embedlab.tokenizer.bpe import BPE, TIED_KEPT
from embedlab.tokenizer.pretokenize import SPLITTERS, alphabet

LESSON = "the cat sat on the mat the cat"
REPO = Path(__file__).resolve().parents[2]


def _repo_text_lines() -> list[str]:
    """Real English and code that every clone has: the README and the package's sources."""
    files = [REPO / "README.md", *sorted((REPO / "src" / "embedlab").rglob("*.py"))]
    return [line for f in files for line in f.read_text(encoding="utf-8").splitlines(keepends=True)]


@pytest.mark.parametrize("split", ["none", "gpt2", "whitespace"])
def test_lesson_hand_calculation(split):
    bpe = BPE(mode="char", split=split)
    merges = bpe.train(LESSON, num_merges=3, trace=True)
    assert [(m.left, m.right, m.token, m.count) for m in merges] == [
        ("a", "t", "at", 4),
        ("t", "h", "th", 3),
        ("th", "e", "the", 3),
    ]
    # after merge 1 every "at" is one token; after merge 3 "the" is
    assert bpe.trace[0].count("at") == 4
    assert bpe.trace[2].count("the") == 3 and "th" not in bpe.trace[2]
    assert len(bpe.trace) == 3


# The lesson's text, by hand. Merge 1: (a,t) 4 is alone at the top. Then (t,h), (h,e), (e,␣) and
# (at,␣) all have 3 (the lesson's table leaves out (t,␣) = 3, which became (at,␣)). In reading
# order (t,h) comes first; by ids (alphabet by code point: ␣ a c e h m n o s t, then "at" = 10)
# (e,␣) = (3, 0) is smallest; by strings (t,h) is greatest. After "th", (th,e), (e,␣) and (at,␣)
# tie at 3 again.
LESSON_MERGES = {
    "first": [("a", "t", 4, 1), ("t", "h", 3, 4), ("th", "e", 3, 3), ("the", " ", 3, 2), ("at", " ", 3, 1)],
    "hf": [("a", "t", 4, 1), ("e", " ", 3, 4), ("h", "e ", 3, 3), ("t", "he ", 3, 2), ("at", " ", 3, 1)],
    "lexical": [("a", "t", 4, 1), ("t", "h", 3, 4), ("th", "e", 3, 3), ("the", " ", 3, 2), ("at", " ", 3, 1)],
}


@pytest.mark.parametrize("tie", sorted(LESSON_MERGES))
def test_each_tie_rule_on_the_lesson_text(tie):
    bpe = BPE(mode="char", split="none", tie=tie)
    merges = bpe.train(LESSON, vocab_size=10 + 5)  # 10 characters + 5 merges
    assert [(m.left, m.right, m.count, m.tied) for m in merges] == LESSON_MERGES[tie]
    assert all(len(m.passed_over) == m.tied - 1 for m in merges)  # all named: fewer than TIED_KEPT
    passed = {"first": [("h", "e"), ("e", " "), ("at", " ")],  # reading order
              "hf": [("h", "e"), ("t", "h"), ("at", " ")],  # ids (4, 3) < (9, 4) < (10, 0)
              "lexical": [("h", "e"), ("e", " "), ("at", " ")]}  # fmt: skip
    assert list(merges[1].passed_over) == passed[tie]  # the losers of the second merge, best first


def test_hf_rule_equals_the_huggingface_trainer_on_the_lesson_text():
    # no pre-tokenizer: HF takes the one line as one sequence, as split "none" does
    ours = BPE(mode="char", split="none", tie="hf").train(LESSON, num_merges=6)
    assert [(m.left, m.right) for m in ours] == _hf_merges([LESSON], 10 + 6, None)


def test_a_tie_names_at_most_tied_kept_pairs():
    bpe = BPE(mode="char", split="none", tie="hf")
    first = bpe.train("abcdefghij", num_merges=1)[0]  # nine pairs, each once
    assert (first.left, first.right, first.count, first.tied) == ("a", "b", 1, 9)
    assert first.passed_over == (("b", "c"), ("c", "d"), ("d", "e"), ("e", "f"), ("f", "g"))[:TIED_KEPT]


def test_splits_decide_which_pieces_can_become_tokens():
    assert SPLITTERS["gpt2"]("the cat's  mat") == ["the", " cat", "'s", " ", " mat"]
    assert SPLITTERS["whitespace"]("the cat's  mat") == ["the", " ", "cat's", "  ", "mat"]
    assert SPLITTERS["none"]("the cat's  mat") == ["the cat's  mat"]
    tokens = {}
    for split in SPLITTERS:
        bpe = BPE(mode="char", split=split)
        bpe.train(LESSON, num_merges=30)
        tokens[split] = [m.token for m in bpe.history]
        assert bpe.decode(bpe.encode(LESSON)) == LESSON
    # a space is a token's first character under gpt2, a token of its own under whitespace,
    # and anywhere under none, where merges run on until the whole text is one token
    assert all(" " not in t[1:] for t in tokens["gpt2"]) and " cat" in tokens["gpt2"]
    assert all(" " not in t for t in tokens["whitespace"])
    assert "the " in tokens["none"] and tokens["none"][-1] == LESSON


def test_char_alphabet_is_the_distinct_characters():
    assert alphabet("char", ["the cat", "sat"]) == [" ", "a", "c", "e", "h", "s", "t"]
    bpe = BPE(mode="char", split="none")
    bpe.train(LESSON, num_merges=0)
    assert bpe.vocab == [" ", "a", "c", "e", "h", "m", "n", "o", "s", "t"]  # by code point
    with pytest.raises(
        InvalidValueError, match=r"vocab_size 9 is below the alphabet size 10 \(0 specials \+ 10 distinct"
    ):
        bpe.train(LESSON, vocab_size=9)
    special = BPE(mode="char", special_tokens=["<pad>"])
    special.train(LESSON, vocab_size=11)  # 1 special + 10 characters, no merges
    assert special.vocab_size == 11 and special.history == []


def _naive_merges(text: str, split: str, num_merges: int, tie: str) -> list[tuple[str, str]]:
    """Oracle: recount every pair of every chunk before each merge (minbpe's way)."""
    chunks = Counter(SPLITTERS[split](text))
    alphabet = sorted({ch for c in chunks for ch in c})
    rank = {ch: i for i, ch in enumerate(alphabet)}  # HF ids: alphabet by code point, then merges
    words = [(list(c), f) for c, f in chunks.items()]
    merges = []
    for _ in range(num_merges):
        counts: dict[tuple[str, str], int] = {}  # insertion order = first occurrence
        for pieces, f in words:
            for p in pairwise(pieces):
                counts[p] = counts.get(p, 0) + f
        if not counts:
            break
        best = max(counts.values())
        tied = [p for p, c in counts.items() if c == best]
        if tie == "first":
            pair = tied[0]
        elif tie == "hf":
            pair = min(tied, key=lambda p: (rank[p[0]], rank[p[1]]))
        else:
            pair = max(tied)
        rank[pair[0] + pair[1]] = len(rank)
        merges.append(pair)
        for k, (pieces, f) in enumerate(words):
            out, i = [], 0
            while i < len(pieces):
                if i + 1 < len(pieces) and (pieces[i], pieces[i + 1]) == pair:
                    out.append(pieces[i] + pieces[i + 1])
                    i += 2
                else:
                    out.append(pieces[i])
                    i += 1
            words[k] = (out, f)
    return merges


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet="abcd e", min_size=1, max_size=60),
    st.sampled_from(["none", "whitespace", "gpt2"]),
    st.sampled_from(["first", "hf", "lexical"]),
)
def test_incremental_training_equals_naive_recount(text, split, tie):
    bpe = BPE(mode="char", split=split, tie=tie)
    ours = [(m.left, m.right) for m in bpe.train(text, num_merges=12)]
    assert ours == _naive_merges(text, split, 12, tie)


def test_tie_rules_on_a_text_built_to_tie():
    # "cdab": pairs (c,d), (d,a), (a,b) occur once each
    first = BPE(mode="char", split="none", tie="first").train("cdab", num_merges=1)[0]
    hf = BPE(mode="char", split="none", tie="hf").train("cdab", num_merges=1)[0]
    lexical = BPE(mode="char", split="none", tie="lexical").train("cdab", num_merges=1)[0]
    assert (first.left, first.right) == ("c", "d")  # seen first
    assert (hf.left, hf.right) == ("a", "b")  # smallest ids: a < b < c < d by code point
    assert (lexical.left, lexical.right) == ("d", "a")  # lexicographically greatest


def _hf_merges(lines, num_merges: int, pre_tokenizer, alphabet=None) -> list[tuple[str, str]]:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizer
    trainer = trainers.BpeTrainer(
        vocab_size=(len(alphabet) if alphabet else 0) + num_merges,
        initial_alphabet=alphabet or [],
        show_progress=False,
    )
    tok.train_from_iterator(lines, trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges]


def test_char_level_merges_equal_huggingface_trainer():
    lines = _repo_text_lines()
    ours = BPE(mode="char", split="whitespace", tie="hf").train(lines, num_merges=600)
    alphabet_size = len({ch for line in lines for ch in line})  # HF's alphabet: the characters seen
    split = pre_tokenizers.Split(Regex(r"\S+|\s+"), behavior="isolated")
    theirs = _hf_merges(lines, 600 + alphabet_size, split)[:600]
    assert [(m.left, m.right) for m in ours] == theirs


BYTE_BPE = BPE(mode="byte")
BYTE_BPE.train(["the cat sat on the mat 🙂 naïve café \x00 e\u0301"] * 3, num_merges=40)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_byte_mode_round_trips_every_string(text):
    assert BYTE_BPE.decode(BYTE_BPE.encode(text)) == text


def test_byte_mode_handles_emoji_combining_marks_and_nul():
    for text in ["🙂🙃 family 👨‍👩‍👧", "e\u0301 (combining acute)", "nul \x00 inside", "", "   "]:
        assert BYTE_BPE.decode(BYTE_BPE.encode(text)) == text


def test_encode_applies_the_learned_merges():
    bpe = BPE(mode="char", split="gpt2")
    bpe.train(LESSON, num_merges=8)
    pieces = [bpe.piece(i) for i in bpe.encode("the mat")]
    assert "".join(pieces) == "the mat"
    assert pieces[0] == "the"  # merged early, and merges never cross chunk boundaries
    assert bpe.decode(bpe.encode(LESSON)) == LESSON


def test_char_mode_rejects_unseen_characters():
    bpe = BPE(mode="char")
    bpe.train(LESSON, num_merges=2)
    with pytest.raises(InvalidValueError, match="character 'z' is not in this tokenizer's alphabet of 10 characters"):
        bpe.encode("zebra")


def test_save_and_load_round_trip(tmp_path):
    bpe = BPE(mode="byte", special_tokens=["<pad>", "<unk>"])
    bpe.train(LESSON * 5, vocab_size=2 + 256 + 10)
    path = bpe.save(tmp_path / "bpe.json")
    assert [p.name for p in tmp_path.iterdir()] == ["bpe.json"]  # no temporary file left
    loaded = BPE.load(path)
    assert loaded.vocab == bpe.vocab and loaded.history == bpe.history
    assert loaded.encode("the cat 🙂") == bpe.encode("the cat 🙂")
    assert loaded.decode([0, 1]) == "<pad><unk>"


@pytest.mark.parametrize("split", ["none", "whitespace"])
def test_char_tokenizer_save_and_load_round_trip(tmp_path, split):
    text = "the cat sat on the mat\nthe cat\n"  # a line break, inside the one sequence under "none"
    bpe = BPE(mode="char", split=split, tie="hf")
    bpe.train(text, vocab_size=11 + 8)
    loaded = BPE.load(bpe.save(tmp_path / "chars.json"))
    assert (loaded.mode, loaded.split, loaded.tie) == ("char", split, "hf")
    assert loaded.vocab == bpe.vocab and loaded.history == bpe.history and loaded.counts == bpe.counts
    assert loaded.encode(text) == bpe.encode(text) and loaded.decode(loaded.encode(text)) == text
    with pytest.raises(InvalidValueError, match="character 'z'"):
        loaded.encode("zebra")


def test_a_file_in_the_first_format_still_loads(tmp_path):
    # version 1 as the first char-mode files were written: no field has been added since
    old = {"format": "embedlab-bpe", "version": 1, "mode": "char", "split": "none", "tie": "first",
           "special_tokens": [], "alphabet": [" ", "a", "c", "e", "h", "m", "n", "o", "s", "t"],
           "merges": [["a", "t", 4], ["t", "h", 3], ["th", "e", 3]], "counts": []}  # fmt: skip
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    bpe = BPE.load(path)
    assert [bpe.piece(i) for i in bpe.encode("the mat")] == ["the", " ", "m", "at"]
    assert bpe.history == BPE(mode="char", split="none").train(LESSON, num_merges=3)


def test_bad_files(tmp_path):
    with pytest.raises(MissingDataError, match="no tokenizer file at"):
        BPE.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "embedlab-bpe", "mode": "byte"}')
    with pytest.raises(FileFormatError, match="bad.json: not a readable embedlab BPE file \\(no 'split' field\\)"):
        BPE.load(bad)
    bad.write_text("not json")
    with pytest.raises(FileFormatError, match="bad.json: not a readable embedlab BPE file \\(not valid JSON"):
        BPE.load(bad)


def _damage(saved: dict, case: str) -> str:
    """The text of a BPE.save file damaged as `case` says."""
    text = json.dumps(saved)
    if case == "cut short":
        return text[: len(text) // 2]
    damaged = dict(saved)
    if case == "another format":
        damaged["format"] = "sentencepiece"
    elif case == "unknown mode":
        damaged["mode"] = "words"
    elif case == "merge of an unknown piece":
        damaged["merges"] = [["zz", "qq", 3]]
    elif case == "merge not a triple":
        damaged["merges"] = [["t", "h"]]
    elif case == "counts of another vocabulary":
        damaged["counts"] = [1, 2]
    elif case == "counts not numbers":
        damaged["counts"] = ["many"] * len(saved["counts"])
    return json.dumps(damaged)


DAMAGED_BPE = {  # case -> what the message says
    "cut short": "cut short: ",
    "another format": "its format is not 'embedlab-bpe'",
    "unknown mode": "mode must be one of",
    "merge of an unknown piece": "merge 1 joins a piece no earlier one made",
    "merge not a triple": "not enough values to unpack",
    "counts of another vocabulary": "2 counts for",
    "counts not numbers": "invalid literal for int()",
}


@pytest.mark.parametrize("case", DAMAGED_BPE)
def test_a_damaged_bpe_file_raises_file_format_error(tmp_path, case):
    path = tmp_path / "bpe.json"
    bpe = BPE(mode="char", split="none")
    bpe.train(LESSON, num_merges=3)
    saved = json.loads(bpe.save(path).read_text(encoding="utf-8"))
    path.write_text(_damage(saved, case), encoding="utf-8")
    with pytest.raises(FileFormatError) as info:
        BPE.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: not a readable embedlab BPE file (") and DAMAGED_BPE[case] in message
    assert message.endswith("; train and save the tokenizer again")


def test_bad_arguments():
    with pytest.raises(InvalidValueError, match="vocab_size 100 is below the alphabet size 256"):
        BPE(mode="byte").train(LESSON, vocab_size=100)
    with pytest.raises(InvalidValueError, match="give exactly one of vocab_size and num_merges"):
        BPE().train(LESSON)
    with pytest.raises(InvalidValueError, match="the training text is empty"):
        BPE().train([], num_merges=3)
    with pytest.raises(InvalidValueError, match="tie must be one of first, hf, lexical; got 'random'"):
        BPE(tie="random")
    with pytest.raises(InvalidValueError, match="not trained yet"):
        BPE().encode("x")
    bpe = BPE()
    bpe.train(LESSON, num_merges=1)
    with pytest.raises(InvalidValueError, match="token id 999 is out of range: vocab_size is 257"):
        bpe.decode([999])


def test_training_stops_when_nothing_is_left_to_merge():
    merges = BPE(mode="char", split="whitespace").train("ab ab", num_merges=50)
    assert [(m.left, m.right) for m in merges] == [("a", "b")]


def test_counts_and_on_merge_callback():
    seen = []
    bpe = BPE(mode="byte")
    bpe.train([LESSON, LESSON], num_merges=6, on_merge=seen.append)
    assert seen == bpe.history and len(seen) == 6
    assert len(bpe.counts) == bpe.vocab_size
    assert sum(bpe.counts) == 2 * len(bpe.encode(LESSON))  # every training token counted once
    the = bpe.encode("the")[0]
    assert bpe.counts[the] == 2  # "the" opens each line; " the" is another token
