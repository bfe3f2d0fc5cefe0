"""The subword explorer in Debian's chromium against a real `embedlab lab` process: a typed word's
pieces, the measured vocabulary-size table as the API gives it, and the unseen-word panel on a
subword table the fastText tool trained (its n-grams, buckets and neighbours as the library's)."""

from __future__ import annotations

import json
import urllib.request

import pytest
from tests.timeouts import PAGE_S

from embedlab.errors import UnknownKeyError
from embedlab.hashing import char_ngrams, ngram_buckets
from embedlab.sims.subwords import SIZES
from embedlab.vectors import Vectors, load


@pytest.mark.slow
def test_subwords_split_a_newly_typed_word(open_sim):
    page = open_sim("subwords")  # the first use may train the vocabularies
    page.wait_for_selector(f"#sub-vocab-{SIZES[0]} .sub-piece")
    before = page.inner_text("#sub-result")
    page.fill("#sub-text", "transformerization")
    page.wait_for_function("t => document.querySelector('#sub-result').innerText !== t", arg=before)
    lengths = []
    for size in SIZES:
        texts = page.eval_on_selector_all(f"#sub-vocab-{size} .sub-text", "nodes => nodes.map(n => n.textContent)")
        assert "".join(texts) == "␣transformerization"  # the chips spell the typed word, after a space
        lengths.append(int(page.get_attribute(f"#sub-vocab-{size}", "data-pieces")))
    assert lengths == sorted(lengths, reverse=True) and lengths[0] > lengths[-1]
    assert "Trained on enwiki-sample" in page.inner_text("#sub-info")


def test_subwords_show_the_measured_table(open_sim, lab_url):
    page = open_sim("subwords")
    page.wait_for_selector("#sub-measured td")  # after the split: the first use may train, then measures
    # the page waited for this same answer; the lab keeps it
    with urllib.request.urlopen(f"{lab_url}/api/subwords/table?corpus=enwiki-sample", timeout=PAGE_S) as r:
        table = json.load(r)
    cells = page.eval_on_selector_all("#sub-measured tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    assert cells[0] == ["", *(f"{size // 1000}K rows" for size in SIZES)]
    rows = {row[0]: row[1:] for row in cells[1:]}
    assert rows["BPE tokens per held-out word"] == [f"{r['pieces_per_word']:.2f}" for r in table["rungs"]]
    assert rows["token table at d = 768: parameters"] == [f"{r['params']:,}" for r in table["rungs"]]
    assert rows["whole words: held-out running words without a row"] == [
        f"{100 * r['word_oov_running']:.1f} %" for r in table["rungs"]
    ]
    assert page.inner_text(".sub-left-out").startswith("100K rows not measured: the training part has")
    assert page.inner_text("#sub-paragraph") == table["paragraph"]


@pytest.mark.slow
def test_the_unseen_word_panel_follows_the_typed_word(open_sim, subword_lab_url, subword_bin):
    table = load(subword_bin)  # the served "wiki-ft.bin", as the library reads it
    page = open_sim("subwords", url=subword_lab_url)
    page.wait_for_selector("#sub-unseen .sub-ngram")
    assert page.eval_on_selector_all("#sub-unseen-table option", "os => os.map(o => o.value)") == ["wiki-ft.bin"]
    assert "a fastText .bin has no place for them, whoever wrote it" in page.inner_text("#sub-unseen")

    def typed(word: str, shows: str) -> None:
        before = page.inner_text("#sub-unseen")
        page.fill("#sub-unseen-word", word)
        page.wait_for_function(
            "([t, s]) => { const now = document.querySelector('#sub-unseen').innerText; "
            "return now !== t && now.includes(s); }",
            arg=[before, shows],
        )

    typed("philosophys", "philosophys” has no row among the 9,630 words of wiki-ft.bin")
    chips = page.eval_on_selector_all(
        "#sub-ngrams .sub-ngram", "cs => cs.map(c => [c.querySelector('.sub-text').textContent, +c.dataset.bucket])"
    )
    grams, buckets = char_ngrams("philosophys", 4, 6), ngram_buckets("philosophys", 4, 6, 10_000).tolist()
    assert chips == [[g, b] for g, b in zip(grams, buckets, strict=True)]
    assert neighbours(page) == list(table.most_similar("philosophys", topn=10).keys)
    with pytest.raises(UnknownKeyError) as err:
        Vectors(table.index_to_key, table.vectors, name="wiki-ft.bin")["philosophys"]
    assert page.inner_text("#sub-unseen-whole .error") == str(err.value)

    page.fill("#sub-unseen-k", "3")
    page.dispatch_event("#sub-unseen-k", "change")
    page.wait_for_function("() => document.querySelectorAll('#sub-unseen-found tr').length === 4")
    assert neighbours(page) == list(table.most_similar("philosophys", topn=3).keys)

    typed("anarchists", f"has its own row (row {table.key_to_index['anarchists']:,} of 9,630)")
    assert neighbours(page) == list(table.most_similar("anarchists", topn=3).keys)
    assert "The same neighbours" in page.inner_text("#sub-unseen-whole")

    typed("ǅ", "no character n-gram of 4 to 6 characters")  # "<ǅ>" is shorter than the table's min_n
    assert page.query_selector("#sub-unseen-found table") is None and not page.query_selector_all(".sub-ngram")


def test_without_a_subword_table_the_panel_says_how_to_serve_one(open_sim):
    page = open_sim("subwords")  # minilm and a word2vec run: whole-word tables only
    hint = page.inner_text("#sub-no-subword-tables")
    assert "a run folder trained with --subwords" in hint and "a fastText .bin that has n-grams" in hint
    assert "embedlab lab --vectors minilm --vectors runs/sub" in hint
    assert page.query_selector("#sub-unseen-word") is None


def neighbours(page) -> list[str]:
    """The whole words listed in the subword table's column, best first."""
    return page.eval_on_selector_all("#sub-unseen-found tr", "rs => rs.slice(1).map(r => r.cells[1].textContent)")
