"""The scale page's σ sweep in Debian's chromium against a real `embedlab lab`: the button trains the
models, and the verdict table and the charts show the library's answer for the settings chosen."""

from __future__ import annotations

import math

from embedlab.sims.init_sweep import SIGMAS, init_sweep

STEPS = 2  # two steps per σ: the page shows what the server computed as well as at sixty


def test_the_sweep_shows_each_sigmas_verdict_and_norms(open_sim):
    page = open_sim("scale")
    page.select_option("#sweep-optimizer", "sgd")
    page.select_option("#sweep-head", "tied")
    page.fill("#sweep-steps", str(STEPS))
    page.click("#sweep-start")
    page.wait_for_selector("#sweep-verdicts table")
    rows = [line.split("\t") for line in page.inner_text("#sweep-verdicts table").splitlines()[1:]]
    expected = init_sweep(SIGMAS, optimizer="sgd", tied=True, steps=STEPS)
    assert [float(row[0]) for row in rows] == list(SIGMAS)
    assert [row[3] for row in rows] == [run.verdict for run in expected.runs]
    assert rows[-1][3] == "explodes"  # σ = 100 read back by a tied head
    for row, run in zip(rows, expected.runs, strict=True):
        assert float(row[2].replace(",", "")) == round(run.final_loss, 3)
    assert "sgd at lr 0.1, tied head, 2 steps" in page.inner_text("#sweep-status")
    assert "ln V + 0.1 = 5.645" in page.inner_text("#sweep-rules")

    drawn = page.evaluate("() => document.querySelector('#sweep-activations').data.map((t) => [t.name, t.y])")
    assert [name for name, _ in drawn] == expected.activation_layers
    token_rows = dict(drawn)["token rows"]  # one point per σ: ≈ σ√64 = 8σ
    assert all(math.isclose(y, 8 * s, rel_tol=0.15) for y, s in zip(token_rows, SIGMAS, strict=True))
    lines = page.evaluate("() => document.querySelector('#sweep-losses').data.map((t) => t.name)")
    assert lines == [f"σ = {run.sigma:g} ({run.verdict})" for run in expected.runs]
    gradients = page.evaluate("() => document.querySelector('#sweep-gradients').data.map((t) => t.name)")
    assert gradients == ["token table", "positions", "block 1", "block 2", "final norm"]  # tied: no head of its own
