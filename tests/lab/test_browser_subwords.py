"""The subword explorer in Debian's chromium against a real `embedlab lab` process: a typed word's
pieces, and the measured vocabulary-size table as the API gives it."""

from __future__ import annotations

import json
import urllib.request

from embedlab.sims.subwords import SIZES


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
    with urllib.request.urlopen(f"{lab_url}/api/subwords/table?corpus=enwiki-sample", timeout=120) as r:
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
