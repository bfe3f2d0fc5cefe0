"""`embedlab advise` through the real entry point: its JSON is the library's answer, its text shows the
recipe, the path with verdicts and the disagreements, and a mistake is one line with exit status 2."""

from __future__ import annotations

import dataclasses
import json

import pytest

from embedlab.advise import advise, chart
from embedlab.cli import choices
from embedlab.sizing import BYTES_PER_PARAM


def test_json_is_the_librarys_answer(run_cli):
    code, out, err = run_cli("advise", "--languages", "20", "--params", "70B", "--seq-len", "8192", "--json")
    assert code == 0, err
    d = json.loads(out)
    expected = advise("text", languages=20, params=70e9, seq_len=8192)
    assert d == json.loads(json.dumps(dataclasses.asdict(expected)))
    assert d["recipe"]["vocab_size"] == 128_000 and d["recipe"]["tied"] is False
    assert d["size"]["total_params"] == 2 * 128_000 * 8192


def test_image_budget_json(run_cli):
    args = ("--modality", "image", "--detail", "detail", "--memory", "300MiB", "--batch", "256", "--json")
    code, out, err = run_cli("advise", *args)
    assert code == 0, err
    d = json.loads(out)
    assert d["recipe"]["patch_size"] == 16 and d["budget"] == 300 * 2**20 and d["fits"] is True


def test_text_shows_recipe_path_and_disagreements(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli("advise", "--params", "125M")
    assert code == 0, err
    assert "V = 32,000" in out and "tied to the token table" in out
    assert "24,576,000" in out  # 32,000 × 768, tied: what `embedlab size --vocab 32000 --dim 768` counts
    assert "Text: model size?" in out and "contradicts" in out and "0.24 nats" in out
    assert out.count("disagrees:") == len(advise("text", params=125e6).disagreements) > 0


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--params", "seven"), "parameter count"),
        (("--modality", "audio"), "modality"),
        (("--modality", "image", "--image-size", "100"), "image_size"),
        (("--memory", "lots"), "memory size"),
        (("--languages", "0"), "languages"),
        (("--dtype", "fp8"), "dtype"),
    ],
)
def test_a_mistake_is_one_line_and_exit_2(run_cli, args, named):
    code, out, err = run_cli("advise", *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and named in err


def test_the_help_lists_the_choices(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli("advise", "--help")
    assert code == 0
    for name in (*choices.MODALITIES, *choices.ADVISE_POSITIONS, *choices.DETAILS, *choices.DTYPES):
        assert name in out


def test_the_help_choices_are_the_librarys():
    assert choices.MODALITIES == chart.MODALITIES
    assert choices.ADVISE_POSITIONS == chart.POSITIONS
    assert choices.DETAILS == tuple(chart.DETAILS)
    assert choices.DTYPES == tuple(BYTES_PER_PARAM)


def test_many_languages_branch_says_not_measured_here(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli("advise", "--languages", "20", "--json")
    assert code == 0, err
    branch = next(b for b in json.loads(out)["path"] if b["question"] == "Text: how many languages?")
    assert branch["verdict"] == "not measured here"
    assert {e["verdict"] for e in branch["evidence"]} == {"not measured here"}
