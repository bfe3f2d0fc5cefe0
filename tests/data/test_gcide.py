"""Webster 1913 read as a dictionary: entries, first definitions, and the two instruments' items, checked
against the installed file itself (entries found by hand in /usr/share/dictd/gcide.dict.dz)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from embedlab.data import gcide


@pytest.fixture(scope="module")
def entries():
    return {(e.headword, e.paragraphs[0][:12]): e for e in gcide.entries()}


def test_entries_and_their_first_definitions(entries):
    by_word = {}
    for (headword, _), entry in entries.items():
        by_word.setdefault(headword, []).append(entry)
    assert len(gcide.entries()) > 100_000
    # "Abjure \\Ab*jure"\\, v. t. [imp. & p. p. {Abjured}; ...] [L. abjurare ...] 1. To renounce upon oath; ..."
    transitive, intransitive = by_word["Abjure"]  # two homographs: two entries, in file order
    assert transitive.paragraphs[0].startswith(", v. t. [imp. & p. p. Abjured;")
    assert gcide.first_definition(transitive) == "To renounce upon oath; to forswear; to disavow"
    assert gcide.first_definition(intransitive) == "To renounce on oath"
    # a subject label before the definition, and an etymology holding "?" for Greek letters
    assert gcide.first_definition(by_word["Ablastemic"][0]) == "Non-germinal"
    assert gcide.first_definition(by_word["Abreption"][0]) == "A snatching away"
    # WordNet's entries number their senses "1. 1"
    assert gcide.first_definition(by_word["abrocome"][0]) == "ratlike rodent of the Andes with soft fur and large ears"


def test_a_headwords_forms_leave_its_definition():
    assert gcide.without_headword("The act of abjuring; an abjuration of the realm", "Abjure") == (
        "The act of an of the realm"
    )
    assert gcide.is_form("atmosphere", "atmospheric") and gcide.is_form("strict", "strictness")
    assert not gcide.is_form("abject", "abjure") and not gcide.is_form("sea", "search")
    assert gcide.is_form("seas", "sea")  # a short headword: any word that starts with it


def test_the_reverse_dictionary_pairs():
    pairs = gcide.reverse_dictionary_pairs()
    words = [w for w, _ in pairs]
    assert len(pairs) == gcide.REVERSE_PAIRS == len(set(words))  # one pair a headword
    counts = gcide.word_counts()
    for word, definition in pairs:
        assert re.fullmatch(r"[a-z]{3,}", word) and counts[word] >= gcide.MIN_HEADWORD_COUNT
        assert len(definition.split()) >= 3 and not re.match(r"(?i)see\b|same as\b", definition)
        assert not any(gcide.is_form(w.lower().strip("\"'(),.;:"), word) for w in definition.split())
    assert words == sorted(words, key=gcide._md5)  # md5 order: spread over the alphabet
    assert len({w[0] for w in words}) == 26
    assert dict(pairs).get("stirrup", "").startswith("A kind of ring, or bent piece of metal")


def test_the_domain_definitions():
    examples = gcide.domain_definitions()
    sizes = Counter(label for label, _, _ in examples)
    assert len(sizes) == 15 and min(sizes.values()) >= gcide.MIN_DOMAIN_EXAMPLES
    assert sizes.most_common(1)[0][0] == "Zool." and 0.25 < sizes["Zool."] / len(examples) < 0.32
    texts = [text for _, text, _ in examples]
    assert len(texts) == len(set(texts)) > 20_000  # each text once, under one label
    assert all(text == text.lower() and len(text.split()) >= 3 for text in texts)
    held = sum(h for _, _, h in examples) / len(examples)
    assert abs(held - 0.2) < 0.01  # md5 % 5: a fifth, give or take the draw (sd 0.003 at 23,000)
    by_text = {text: label for label, text, _ in examples}
    # "(Med.) Removing or destroying of a body tissue, especially by a surgical procedure. --Dorland."
    assert by_text["removing or destroying of a body tissue, especially by a surgical procedure"] == "Med."


def test_the_paragraphs_to_train_on_hold_no_scored_item():
    scored = {w for w, _ in gcide.reverse_dictionary_pairs()}
    kept = [e for e in gcide.entries() if e.headword.lower() not in scored]
    paragraphs = list(gcide.unscored_paragraphs())
    assert 0 < len(paragraphs) < sum(len(e.paragraphs) for e in kept)  # the labelled ones are out
    assert not any(gcide.SUBJECT.search(p) for p in paragraphs)
    word = gcide.reverse_dictionary_pairs()[0][0]
    own = {e.paragraphs[0] for e in gcide.entries() if e.headword.lower() == word}  # what the pair was cut from
    assert own and not own & set(paragraphs)
