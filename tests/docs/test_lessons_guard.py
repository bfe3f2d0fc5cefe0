"""The guard of docs/lessons.md (tests/docs/test_lessons_page.py) on a page and a test file of its own:
what it accepts, what it names, and that it fails when a cited test stops asserting its figure."""

from __future__ import annotations

import json

import pytest
from tests.docs.test_lessons_page import unasserted, unpinned

SYNTHETIC_TEST = """
TABLE = {"bert": 23_440_896}


def test_sizes():
    table = make(0.515, seed=17)  # used, not asserted
    assert count("bert") == TABLE["bert"]
    assert round(share, 3) == 0.983  # 0.424 in a comment is not asserted
    assert out == "98,304 rows"
"""


def synthetic_page(figure: str, computed_by: str = "`tests/test_x.py::test_sizes`") -> str:
    return "\n".join([
        "| # | the lesson says | embedlab's figure | computed by | verdict |",
        "|---|---|---|---|---|",
        f"| 001.2.1 | BERT's table | {figure} | {computed_by} | right |",
    ])  # fmt: skip


@pytest.mark.parametrize("figure", ["23,440,896 (98.3%) at d = 4, GPT-2", "23.4M", "98,304 rows", "0.98"])
def test_the_guard_passes_figures_the_cited_test_asserts(tmp_path, figure):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(SYNTHETIC_TEST, encoding="utf-8")
    assert unasserted(synthetic_page(figure), tmp_path) == []


@pytest.mark.parametrize(("figure", "missing"), [("23,440,897", "23,440,897"), ("cos 0.424", "0.424"),
                                                 ("98.4%", "98.4%"), ("23.5M at d = 4", "23.5M")])  # fmt: skip
def test_the_guard_names_the_row_and_the_figure_no_test_asserts(tmp_path, figure, missing):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(SYNTHETIC_TEST, encoding="utf-8")
    assert unasserted(synthetic_page(figure), tmp_path) == [f"001.2.1: {missing}"]
    # by command, the figure needs a results file that holds it, or the row says why it is not pinned
    command = "by command: `embedlab size --preset bert-base`"
    assert unasserted(synthetic_page(figure, command), tmp_path) == [f"001.2.1: {missing}"]
    page = synthetic_page(figure, command + "; not pinned: needs 3 minutes of training")
    assert unasserted(page, tmp_path) == [] and unpinned(page) == ["001.2.1: needs 3 minutes of training"]
    (tmp_path / "docs" / "results").mkdir(parents=True)
    (tmp_path / "docs" / "results" / "x.json").write_text(json.dumps({"a": [23440897, 0.4241, 0.984, 23.5e6]}))
    assert unasserted(synthetic_page(figure, command + ", `docs/results/x.json`"), tmp_path) == []
    with pytest.raises(AssertionError, match="001.2.1: 'by command:' must be followed by the command"):
        unasserted(synthetic_page(figure, "by command: embedlab size"), tmp_path)


ERRATA_HEAD = "| where | the lesson | the right figure | computed by |\n|---|---|---|---|\n"


def test_the_errata_table_is_held_to_the_same_rules(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(SYNTHETIC_TEST, encoding="utf-8")
    cited = "`tests/test_x.py::test_sizes`"
    assert unasserted(ERRATA_HEAD + f"| 001 ch. 1 | BERT's 23.5M | 23,440,896 (98.3%) | {cited} |", tmp_path) == []
    page = ERRATA_HEAD + f"| 003 | x | 0.983 |  |\n| 001 ch. 1, 7 | y | 23,440,896 and 0.515 | {cited} |"
    assert unasserted(page, tmp_path) == ["errata 1: 0.983", "errata 2: 0.515"]  # 0.515 is only used
    by_command = "by command: `python docs/x.py`; not pinned: needs 2 minutes of training"
    assert unpinned(ERRATA_HEAD + f"| 003 | x | 0.777 | {by_command} |") == ["errata 1: needs 2 minutes of training"]
    with pytest.raises(AssertionError, match="errata 1 \\(001 ch. 4\\): needs 4 cells"):
        unasserted("| where | the lesson | the right figure |\n|---|---|---|\n| 001 ch. 4 | x | 0.983 |", tmp_path)


@pytest.mark.parametrize("figure", ["0.515", "17 seeds", "0.424"])
def test_a_figure_the_test_only_uses_or_comments_is_not_asserted(tmp_path, figure):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(SYNTHETIC_TEST, encoding="utf-8")
    assert unasserted(synthetic_page(figure), tmp_path) == [f"001.2.1: {figure.split()[0]}"]


def test_the_guard_fails_when_a_cited_test_stops_asserting_its_figure(tmp_path):
    (tmp_path / "tests").mkdir()
    path = tmp_path / "tests" / "test_x.py"
    path.write_text(SYNTHETIC_TEST, encoding="utf-8")
    assert unasserted(synthetic_page("0.983"), tmp_path) == []
    path.write_text(SYNTHETIC_TEST.replace("0.983", "0.98"), encoding="utf-8")
    assert unasserted(synthetic_page("0.983"), tmp_path) == ["001.2.1: 0.983"]
