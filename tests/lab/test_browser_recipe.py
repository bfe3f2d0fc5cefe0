"""The input-recipe and scale-balance pages in Debian's chromium against a real `embedlab lab`:
each loads without console errors, and moving one control changes what it shows (unticking an
addend changes the sum, LayerNorm and X, not only the bars)."""

from __future__ import annotations

import math
import re

import pytest

SET_SLIDER = "([selector, value]) => { const e = document.querySelector(selector); e.value = value; " \
             "e.dispatchEvent(new Event('input')); }"  # fmt: skip


def test_the_position_slider_moves_the_position_addend(open_sim, bert_oracle):
    page = open_sim("recipe")
    page.wait_for_selector("#recipe-norms table")
    before = page.inner_text("#recipe-norms")
    assert "cat" in page.inner_text("#recipe-summary") and "position 2" in page.inner_text("#recipe-summary")
    page.evaluate(SET_SLIDER, ["#recipe-position", 40])
    page.wait_for_function("t => document.querySelector('#recipe-norms').innerText !== t", arg=before)
    page.wait_for_function("() => document.querySelector('#recipe-summary').innerText.includes('position 40')")
    after = page.inner_text("#recipe-norms")
    norm = bert_oracle.embeddings.position_embeddings.weight[40].norm().item()  # MiniLM's row 40
    assert re.search(rf"position\s+{norm:.4f}", after), after
    token = re.search(r"token\s+(\S+)", before).group(1)
    assert re.search(r"token\s+(\S+)", after).group(1) == token  # the token row stays put

    # each recipe shows its own special tokens, and the piece picked stays the same word
    special = "() => [...document.querySelectorAll('#recipe-tokens .chip.special')].map((c) => c.innerText)"
    assert page.evaluate(special) == ["[CLS]", "[SEP]"]
    assert "[CLS] before the text and [SEP] after it" in page.inner_text("#recipe-specials")
    page.select_option("#recipe-name", "gpt2")
    page.wait_for_function("() => document.querySelector('#recipe-summary').innerText.includes('fresh gpt2')")
    assert page.inner_text("#recipe-specials").startswith("gpt2 adds no special token")
    assert page.evaluate(special) == [] and "[CLS]" not in page.inner_text("#recipe-tokens")
    assert page.inner_text("#recipe-tokens .chip.selected") == "cat"
    assert '"cat" (id 4937) at position 1;' in page.inner_text("#recipe-summary")  # the text's second piece


X_HEAT = "() => document.querySelector('#recipe-x').data[0].z"  # the cosine matrix plotly drew


def test_unticking_position_takes_it_out_of_the_sum_and_of_x(open_sim, bert_oracle):
    page = open_sim("recipe")
    page.wait_for_selector("#recipe-norms table")
    assert page.inner_text("#recipe-identical").startswith("Every piece has its own row of X")
    z = page.evaluate(X_HEAT)
    assert len(z) == 8 and z[1][5] < 0.9  # "the" at 1 and at 5: different rows while positions are added
    before = page.inner_text("#recipe-norms")
    assert re.search(r"position\s+\d", before)

    page.uncheck("#recipe-add-position")
    page.wait_for_function("() => document.querySelector('#recipe-identical').innerText.startsWith('X rows equal')")
    assert page.inner_text("#recipe-identical") == "X rows equal bit for bit: “the” at 1 = “the” at 5."
    assert page.evaluate(X_HEAT)[1][5] == pytest.approx(1.0, abs=1e-5)
    assert "sum = token + segment" in page.inner_text("#recipe-summary")
    after = page.inner_text("#recipe-norms")
    assert "position" not in after
    weights = bert_oracle.embeddings  # "cat" (piece 2) in segment A, no position row
    total = weights.word_embeddings.weight[4937] + weights.token_type_embeddings.weight[0]
    assert re.search(rf"sum\s+{total.norm().item():.4f}", after), after
    bars = page.evaluate("() => document.querySelector('#recipe-addends').data.map((t) => t.name)")
    assert bars == ["token", "segment"]

    page.check("#recipe-add-position")
    page.uncheck("#recipe-add-token")  # the lesson's "only position": no word left in the sum
    page.uncheck("#recipe-add-segment")
    page.wait_for_function("() => document.querySelector('#recipe-summary').innerText.includes('sum = position;')")
    assert page.is_disabled("#recipe-add-position")  # the last addend ticked cannot be unticked: the sum needs one
    assert page.inner_text("#recipe-identical").startswith("Every piece has its own row of X")


def test_scale_ratio_follows_the_controls(open_sim):
    page = open_sim("scale")
    before = page.inner_text("#scale-ratio")
    assert "mean ‖position‖ = 16.000" in before  # d_model 512: √(512/2)
    page.select_option("#scale-mode", "sqrt_d")
    page.wait_for_function("t => document.querySelector('#scale-ratio').innerText !== t", arg=before)
    ratio = float(re.search(r"ratio (\S+) ", page.inner_text("#scale-ratio")).group(1))
    assert math.isclose(ratio, math.sqrt(2), rel_tol=0.02)  # √d against √(d/2)
    page.evaluate(SET_SLIDER, ["#scale-dim", 1024])
    page.wait_for_function("() => document.querySelector('#scale-ratio').innerText.includes('‖position‖ = 22.627')")
