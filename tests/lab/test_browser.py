"""The lab in Debian's chromium against a real `embedlab lab` process: the page lists every
simulation, and each loads without console errors and answers one interaction."""

from __future__ import annotations

from tests.timeouts import PAGE_S

from embedlab.lab.pages import PAGES

SIMULATIONS = ["lookup", "size", "recipe", "patches", "tying", "scale", "training", "subwords", "geometry",
               "gradients", "attention", "context", "distill", "bag", "arena", "projector", "advise",
               "nodes"]  # fmt: skip


def test_the_nav_lists_every_simulation(open_sim):
    page = open_sim("size")
    links = page.query_selector_all("nav a")
    assert [a.get_attribute("data-sim") for a in links] == SIMULATIONS == list(PAGES)
    assert [a.inner_text() for a in links] == list(PAGES.values())
    assert page.get_attribute("nav a.active", "data-sim") == "size"


def test_size_follows_its_controls(open_sim):
    page = open_sim("size")
    assert f"{50257 * 768 + 1024 * 768:,} parameters" in page.inner_text("#size-total")  # gpt2: tied tokens + positions
    before = page.inner_text("#size-total")
    page.uncheck("#size-tied")
    page.wait_for_function("t => document.querySelector('#size-total').innerText !== t", arg=before)
    assert f"{2 * 50257 * 768 + 1024 * 768:,} parameters" in page.inner_text("#size-total")  # untied: a second table


def test_geometry_answers_a_new_word(open_sim):
    page = open_sim("geometry")
    page.wait_for_selector("#geo-neighbors table")
    assert "queen" in page.inner_text("#geo-neighbors")
    page.fill("#geo-word", "paris")
    page.dispatch_event("#geo-word", "change")
    page.wait_for_function("() => document.querySelector('#geo-neighbors').innerText.includes('france')")


def test_the_api_page_works_offline(chromium, lab_url):
    # Swagger UI's assets come from the swagger-ui-bundle package: the page renders with no network.
    page = chromium.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{lab_url}/docs")
    page.wait_for_selector(".opblock", timeout=PAGE_S * 1000)  # one block per documented route
    shown = page.inner_text("body").replace("\u200b", "")  # Swagger UI breaks paths with zero-width spaces
    page.close()
    assert "/api/geometry/neighbors" in shown and "/api/size/presets" in shown
    assert not errors, errors


def test_leaving_a_page_tells_it_and_a_quick_second_choice_wins(open_sim):
    page = open_sim("size")
    page.evaluate("() => document.querySelector('#sim').addEventListener('leave', () => { window.left = true; })")
    page.evaluate("() => { location.hash = '#attention'; setTimeout(() => { location.hash = '#size'; }, 0); }")
    page.wait_for_function("() => window.left === true")
    page.wait_for_selector('#sim[data-sim="size"][data-ready="true"]')
    page.wait_for_timeout(3000)  # long enough for the attention module (and a stale render of it) to arrive
    assert page.eval_on_selector_all("#sim h2", "hs => hs.map((h) => h.innerText)") == ["Table size"]
