"""The input-recipe and scale-balance pages in Debian's chromium against a real `embedlab lab`:
each loads without console errors, and moving one control changes what it shows."""

from __future__ import annotations

import math
import re

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
