"""The subword explorer in Debian's chromium against a real `embedlab lab` process."""

from __future__ import annotations

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
