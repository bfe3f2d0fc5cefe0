"""docs/lessons.md holds to its promise: every figure a row states is asserted by a test it cites.

Each row of the page (`| 001.6.2 | the lesson says | embedlab's figure | computed by | verdict |`)
cites tests as `tests/PATH.py::name` in its "computed by" cell. The guard reads the figures of the
"embedlab's figure" cell and looks for each one among the literals of the cited tests' source.

What counts as a figure (`figures`), in the figure cell with its backticked code, link targets and
row ids (`001.6.1`) removed first:

- a number written with digits: `23,835,648`, `0.815`, `98.3%`, `1.15×`, `525.3M`;
- except a single digit without decimals (`4th`, `5 nearest`, `d = 4`: counts and settings in prose),
  a number joined to a name (`GPT-2`, `Llama 3.2`, `ViT-B/32`, `fp16`, `384-D`, `8K`, `§2`), a power
  (`10⁻³`, `224²`, `√2`), a reference into a paper (`Table 2.1`) and a year (a four-digit number from
  1900 to 2099 without a separator).

Where a figure is found (`literals`): the numbers of the cited test functions' code (with their
decorators, so `parametrize` tables count) and of the module-level constants they name (such as
`CHAPTER_1_TABLE` in tests/test_lessons.py): Python number literals (`23_835_648`, `0.815`) and numbers
inside string literals (`"23,835,648"`). Comments do not count: a figure in a comment is not asserted.

When a literal matches a figure (`matches`): signs are ignored (the page writes −0.3, a test -0.3).
A literal matches when its value equals the figure's, or when it has more decimals and rounds to the
figure (the page's 0.841 is a test's 0.84147). A percentage also matches as a fraction (98.3% as
0.983), and `525.3M` also matches a literal that rounds to it in millions (525_336_576).

A row whose figures come from a command rather than a test says so in its "computed by" cell:
`by command: `python docs/training_figures.py``. Its figures that no cited test holds are then
accepted, and only then; "by command" without a backticked command is itself an error.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "lessons.md"

ROW_ID = re.compile(r"^\d{3}(?:\.\d+)+$")
CITED = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
BY_COMMAND = re.compile(r"by command: `[^`]+`")
# A number and the character after it; that and the one before decide whether it is a figure.
NUMBER = re.compile(r"(?<![\d,.])(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<decimals>\.\d+)?(?P<after>.?)")
POWERS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"
STRING_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"  # in a string: "23,835,648", "0.815"


@dataclass(frozen=True)
class Figure:
    """A number as the page writes it: value without sign, decimals shown, and its unit."""

    text: str  # as written, for messages: "98.3%"
    value: Decimal  # 98.3
    unit: str  # "%", "M" (millions) or ""

    @property
    def places(self) -> int:
        return max(0, -self.value.as_tuple().exponent)


@dataclass(frozen=True)
class Row:
    id: str  # "001.6.2"
    figure_cell: str
    cited: list[tuple[str, str]]  # (path, test name)
    by_command: bool


def rows(markdown: str) -> list[Row]:
    """The page's rows with an id, e.g. `| 000.5 | … | 51,200,000 | `tests/…::test_…` | right |`."""
    out = []
    for line in markdown.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 5 and ROW_ID.match(cells[0]):
            out.append(Row(cells[0], cells[2], CITED.findall(cells[3]), "by command:" in cells[3]))
            if out[-1].by_command and not BY_COMMAND.search(cells[3]):
                raise AssertionError(f"{cells[0]}: 'by command:' must be followed by the command in backticks")
    return out


def figures(cell: str) -> list[Figure]:
    """The figures of one cell, by the rules in this module's docstring.

    >>> [f.text for f in figures("23,835,648 (98.3%); GPT-2 at d = 4, see 001.6.1, 0.424 and −0.03, 1.15×")]
    ['23,835,648', '98.3%', '0.424', '0.03', '1.15×']
    """
    cell = re.sub(r"`[^`]*`", " ", cell)  # commands and code
    cell = re.sub(r"\]\([^)]*\)", "]", cell)  # link targets
    cell = re.sub(r"\b(?:Table|Figure) \d+(?:\.\d+)*", " ", cell)  # references into a paper
    cell = re.sub(r"\b\d{3}(?:\.\d+)+\b", lambda m: " " if m.group().startswith("00") else m.group(), cell)
    out = []
    for m in NUMBER.finditer(cell):
        before = cell[m.start() - 1] if m.start() else ""
        digits, decimals, after = m["digits"], m["decimals"] or "", m["after"]
        rest = cell[m.end("after") :]
        if before.isalpha() or (before and before in "-/§√." + POWERS) or (after and after in POWERS):
            continue  # a name (GPT-2, ViT-B/32, §2, Llama 3.2) or a power (√2, 224²)
        if after == "M" and not rest[:1].isalpha():
            unit = "M"
        elif after == "%":
            unit = "%"
        elif after.isalpha() or (after == "-" and rest[:1].isalpha()):
            continue  # fp16, 4th, 8K, 384-D
        else:
            unit = ""
        if not decimals and "," not in digits and (len(digits) == 1 or re.fullmatch(r"19\d\d|20\d\d", digits)):
            continue  # a count in prose, or a year
        text = m.group() if after in ("×", unit) else m.group()[: len(m.group()) - len(after)]
        out.append(Figure(text, Decimal(digits.replace(",", "") + decimals), unit))
    return out


def literals(path: Path, name: str) -> list[Decimal]:
    """The numbers in test `name`'s code (decorators and the module constants it names), no comments."""
    source = path.read_text(encoding="utf-8")
    module = ast.parse(source)
    funcs = [n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if not funcs:
        return []
    names = {n.id for n in ast.walk(funcs[0]) if isinstance(n, ast.Name)}
    constants = [n for n in module.body if isinstance(n, ast.Assign | ast.AnnAssign) and _assigns(n) & names]
    out = []
    for node in [funcs[0], *constants]:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text = "\n".join(source.splitlines()[first - 1 : node.end_lineno])
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NUMBER and re.fullmatch(r"[\d_]*\.?[\d_]*(e[+-]?\d+)?", tok.string, re.I):
                out.append(Decimal(tok.string.replace("_", "")))
            elif tok.type == tokenize.STRING:
                out += [Decimal(n.replace(",", "")) for n in re.findall(STRING_NUMBER, tok.string)]
    return out


def _assigns(node: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _rounds_to(literal: Decimal, target: Decimal, places: int) -> bool:
    shown = max(0, -literal.as_tuple().exponent)  # decimals as the test wrote them: 0.84147 -> 5
    return literal == target or (shown > places and round(literal, places) == target)


def matches(figure: Figure, literal: Decimal) -> bool:
    """Whether a test's literal spells the page's figure (see the module docstring).

    >>> matches(figures("0.841")[0], Decimal("0.84147")), matches(figures("98.3%")[0], Decimal("0.983"))
    (True, True)
    >>> matches(figures("525.3M")[0], Decimal("525336576")), matches(figures("0.424")[0], Decimal("0.42"))
    (True, False)
    """
    literal = abs(literal)
    if _rounds_to(literal, figure.value, figure.places):
        return True
    if figure.unit == "%":
        return _rounds_to(literal, figure.value / 100, figure.places + 2)
    if figure.unit == "M":
        return literal >= 10**6 and round(literal / 10**6, figure.places) == figure.value
    return False


def unasserted(markdown: str, root: Path) -> list[str]:
    """'ROW: FIGURE' for each figure that no test cited by its row holds (rows marked by command pass)."""
    problems = []
    for row in rows(markdown):
        if row.by_command:
            continue
        found = [lit for path, name in row.cited for lit in literals(root / path, name)]
        problems += [f"{row.id}: {f.text}" for f in figures(row.figure_cell) if not any(matches(f, x) for x in found)]
    return problems


# --- the page ------------------------------------------------------------------------------------


def test_every_test_the_page_cites_exists():
    cited = set(CITED.findall(DOC.read_text(encoding="utf-8")))
    assert len(cited) > 50
    missing = [
        f"{path}::{name}"
        for path, name in sorted(cited)
        if not re.search(rf"^def {name}\(", (ROOT / path).read_text(encoding="utf-8"), re.MULTILINE)
    ]
    assert missing == []


def test_every_figure_is_asserted_by_a_cited_test_or_marked_by_command():
    assert unasserted(DOC.read_text(encoding="utf-8"), ROOT) == []


# --- the guard itself, on a page and a test file of its own ---------------------------------------

SYNTHETIC_TEST = """
TABLE = {"bert": 23_440_896}


def test_sizes():
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
    # the same figure given by a command passes, and "by command" needs the command
    assert unasserted(synthetic_page(figure, "by command: `embedlab size --preset bert-base`"), tmp_path) == []
    with pytest.raises(AssertionError, match="001.2.1: 'by command:' must be followed by the command"):
        unasserted(synthetic_page(figure, "by command: embedlab size"), tmp_path)


def test_the_guard_fails_when_a_cited_test_stops_asserting_its_figure(tmp_path):
    (tmp_path / "tests").mkdir()
    path = tmp_path / "tests" / "test_x.py"
    path.write_text(SYNTHETIC_TEST, encoding="utf-8")
    assert unasserted(synthetic_page("0.983"), tmp_path) == []
    path.write_text(SYNTHETIC_TEST.replace("0.983", "0.98"), encoding="utf-8")
    assert unasserted(synthetic_page("0.983"), tmp_path) == ["001.2.1: 0.983"]


def test_the_docstring_examples():
    import doctest
    import sys

    result = doctest.testmod(sys.modules[__name__])
    assert result.attempted >= 3 and result.failed == 0
