"""The evidence beside each branch is the recorded race's, recomputed here from recorded_race() with
its orderings judged as one Holm family (as the lab's arena page reads them), and every figure quoted
from a doc is found in the section it cites."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from embedlab.advise import advise
from embedlab.advise import evidence as ev
from embedlab.arena.claims import holm_orderings, tolerance_goal
from embedlab.data.races import recorded_race
from embedlab.errors import InvalidValueError
from embedlab.sizing import PRESETS

DOCS = Path(__file__).resolve().parents[2] / "docs"
RACE = recorded_race()
HOLM = holm_orderings(RACE)


def _ordering(metric: str, winner: str, loser: str, orderings: list[dict] = HOLM) -> str:
    row = next(r for r in orderings if r["metric"] == metric and {r["winner"], r["loser"]} == {winner, loser})
    return row["verdict"] if row["winner"] == winner or row["verdict"] == "within noise" else "contradicted"


def test_order_reads_the_race_both_ways():
    assert ev.order(RACE, "tokens_per_input", "large-v-untied", "bytes") == "holds"  # no seed moves a count
    assert ev.order(RACE, "tokens_per_input", "bytes", "large-v-untied") == "contradicted"
    with pytest.raises(InvalidValueError):
        ev.order(RACE, "accuracy", "patch-32", "bytes")


def test_order_reads_the_holm_verdicts_not_the_recorded_ones():
    # BPE over large V held at 95% alone (the file's verdict) and is within noise among the race's 502
    assert _ordering("bits_per_byte", "bpe-32k", "large-v-untied", RACE["orderings"]) == "holds"
    assert ev.order(RACE, "bits_per_byte", "bpe-32k", "large-v-untied") == "within noise"
    assert [ev.order(RACE, o["metric"], o["winner"], o["loser"]) for o in HOLM] == [o["verdict"] for o in HOLM]


def test_one_language_verdicts_are_the_races():
    lm, rare, _ = ev.vocab_one_language(RACE, 125e6)
    beats_large = _ordering("bits_per_byte", "bpe-32k", "large-v-untied")
    against_small = _ordering("bits_per_byte", "bpe-32k", "small-v-tied")
    expected = {"holds": "supports", "within noise": "not measured here", "contradicted": "contradicts"}[beats_large]
    assert lm.verdict == ("contradicts" if against_small == "contradicted" else expected)
    assert f"{ev.value(RACE, 'bpe-32k', 'bits_per_byte'):.3f}" in lm.finding
    assert ("does not resolve" in lm.finding) == ("within noise" in (beats_large, against_small))
    small_beats_bpe = _ordering("rare_bits_per_byte", "small-v-tied", "bpe-32k")
    settled = {"holds": "contradicts", "within noise": "not measured here", "contradicted": "supports"}
    assert rare.verdict == settled[small_beats_bpe]
    # as recorded: both within noise once judged as one family, so neither speaks for or against 32K
    assert (lm.verdict, rare.verdict) == ("not measured here", "not measured here")


def test_patch_verdicts_are_the_races():
    coarse_won = _ordering("accuracy", "patch-32", "patch-16")
    assert ev.patches(RACE, 16)[0].verdict == {"holds": "contradicts", "contradicted": "supports"}.get(
        coarse_won, "not measured here"
    )
    assert (ev.patches(RACE, 32)[0].verdict == "supports") == (coarse_won != "contradicted")
    accuracy = next(r["value"] for r in RACE["results"] if r["strategy"] == "patch-32" and r["metric"] == "accuracy")
    assert f"{accuracy:.3f}" in ev.patches(RACE, 32)[0].finding
    assert [e.verdict for e in ev.patches(RACE, 8)][1] == "not measured here"


def test_adaptive_input_is_judged_by_its_tolerance_goal():
    goal = tolerance_goal(RACE, "large-v-adaptive", "large-v-untied", ev.ADAPTIVE_TOLERANCE)
    (finding,) = ev.adaptive_input(RACE)
    assert finding.verdict == {"met": "supports", "refuted": "contradicts"}.get(goal["verdict"], "not measured here")
    # as recorded: 12.7x fewer parameters and better by 0.318 bits per byte, its upper bound far below +0.02
    assert goal["verdict"] == "met" and "12.7× fewer" in finding.finding and f"{goal['upper']:+.3f}" in finding.finding


def test_a_small_model_is_told_the_tying_measurement_contradicts_the_chart():
    advice = advise("text", params=125e6)
    size = next(b for b in advice.path if b.question == "Text: model size?")
    assert size.verdict == "contradicts" and any("0.24 nats" in d for d in advice.disagreements)


def test_the_tying_census_reads_the_presets():
    census = ev.tying(70e9)[0].finding
    for name in ("llama-2-70b", "llama-3-8b", "gpt-3"):
        assert name in census
        assert (name in census.split("untied:")[1]) == (not PRESETS[name].tied)


def test_every_model_size_is_a_preset():
    assert set(ev.MODEL_SIZES) <= set(PRESETS)


def _section(source: str) -> str:
    """The text of the docs section `source` names: 'docs/x.md#anchor' or 'docs/x.md rows 001.5.4, 001.5.10'."""
    path, _, where = source.partition(" (")[0].partition("#") if "#" in source else source.partition(" rows ")
    text = (DOCS.parent / path.strip()).read_text(encoding="utf-8")
    if "#" in source:
        headings = [(m.start(), _anchor(m.group(2))) for m in re.finditer(r"^(#+) (.+)$", text, re.M)]
        start = next(i for i, (pos, anchor) in enumerate(headings) if anchor == where.split(" ")[0])
        end = headings[start + 1][0] if start + 1 < len(headings) else len(text)
        return text[headings[start][0] : end]
    rows = [
        line for line in text.splitlines() if any(line.startswith(f"| {row.strip()} |") for row in where.split(","))
    ]
    assert len(rows) == len(where.split(",")), source
    return "\n".join(rows)


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: '4. Tied vs untied output layer' -> '4-tied-vs-untied-output-layer'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


FINDINGS = [*ev.tying(125e6), *ev.tying_saves(), *ev.scaling("sinusoidal"), *ev.scaling("rotary")]
DOC_FINDINGS = [e for e in FINDINGS if e.source.startswith("docs/") and "recorded_race" not in e.source]


@pytest.mark.parametrize("finding", DOC_FINDINGS, ids=lambda e: e.source)
def test_every_figure_quoted_from_a_doc_is_in_its_section(finding):
    section = _section(finding.source)
    # a finding without figures cites its section only (the Gemma counter-example): the section must name it
    figures = re.findall(r"\d[\d,.]*\d|\d", finding.finding) or ["Gemma"]
    for figure in figures:
        assert figure in section, (figure, finding.source)


def test_the_doc_findings_are_the_ones_with_figures():
    assert len(DOC_FINDINGS) == 4 and sum(bool(re.search(r"\d", e.finding)) for e in DOC_FINDINGS) == 3


def test_arena_sources_name_a_real_heading():
    for finding in (*ev.vocab_one_language(RACE, 1e8), *ev.patches(RACE, 16), *ev.sequence_length(RACE)):
        assert _section(finding.source.split(" (")[0])


def test_many_languages_is_not_measured_here_whatever_the_english_race_says():
    # the race trains and scores on English only: a large V's cost there neither supports nor
    # contradicts "V = 100K+ for script coverage", so no finding of the branch may take a side
    assert [e.verdict for e in ev.vocab_many_languages(RACE)] == ["not measured here"] * 2
    advice = advise("text", languages=20, params=70e9, seq_len=8192)  # what `embedlab advise --languages 20` walks
    languages = next(b for b in advice.path if b.question == "Text: how many languages?")
    assert languages.answer == "20" and languages.verdict == "not measured here"
    assert not any(d.startswith("Text: how many languages?") for d in advice.disagreements)
