"""Static from contextual in Debian's chromium against a real `embedlab lab` process: both matrices and
the stages' chart drawn, the stage and the sentences followed, no console errors."""

from __future__ import annotations

from tests.timeouts import DISTILL_PAGE_S


def test_static_from_contextual_draws_both_matrices_and_every_stage(open_sim, distilled_folder):
    # distilled_folder first: MiniLM's token outputs are then in the cache the lab reads
    page = open_sim("distill", timeout_ms=DISTILL_PAGE_S * 1000)
    page.wait_for_selector("#distill-steps .main-svg")
    assert page.evaluate("document.querySelector('#distill-teacher').data[0].z.length") == 5  # the 5 examples
    assert "SIF weights against the teacher: Spearman" in page.inner_text("#distill-summary")
    bars = page.evaluate("document.querySelector('#distill-steps').data.map((t) => t.y.length)")
    assert bars == [4, 4]  # two instruments, four stages
    title = "document.querySelector('#distill-static').layout.title.text"
    page.select_option("#distill-step", "fitted")
    page.wait_for_function(f"() => {title} === 'Static: fitted'")
    page.fill("#distill-texts", "the cat sat on the mat\na kitten slept on the rug")
    page.dispatch_event("#distill-texts", "change")
    page.wait_for_function("() => document.querySelector('#distill-teacher').data[0].z.length === 2")
    assert "three sentences or more" in page.inner_text("#distill-summary")
