"""docs/lessons.md holds to its promise: every figure a row states is asserted by a test it cites.

Each row of the page (`| 001.6.2 | the lesson says | embedlab's figure | computed by | verdict |`), and
each row of its errata table "What the lessons get wrong" (`| 001 ch. 1 | the lesson | the right figure |
computed by |`), cites tests as `tests/PATH.py::name` in its "computed by" cell. The guard reads the figures of the
"embedlab's figure" cell (the errata's "right figure") and looks for each one among the numbers the
cited tests assert; both tables are held to the same rules.

What counts as a figure (`figures`), in the figure cell with its backticked code, link targets and
row ids (`001.6.1`) removed first:

- a number written with digits: `23,835,648`, `0.815`, `98.3%`, `1.15×`, `525.3M`;
- except a single digit without decimals (`4th`, `5 nearest`, `d = 4`: counts and settings in prose),
  a number joined to a name (`GPT-2`, `Llama 3.2`, `ViT-B/32`, `fp16`, `384-D`, `8K`, `§2`), a power
  (`10⁻³`, `224²`, `√2`), a reference into a paper (`Table 2.1`) and a year (a four-digit number from
  1900 to 2099 without a separator).

Where a figure is found (`asserted`): the numbers inside the cited tests' assertions (assert statements
and `assert*` calls, tolerances such as `abs=` left out), with what the names there stand for (the
function's assignments and loop variables, its `parametrize` and hypothesis `given` values, the module
constants named, such as `CHAPTER_1_TABLE` in tests/test_lessons.py): number literals and numbers inside
string literals (`"23,835,648"`). A number in a comment, or one the test only uses (a seed), is not asserted.

When a literal matches a figure (`matches`): signs are ignored (the page writes −0.3, a test -0.3).
A literal matches when its value equals the figure's, or when it has more decimals and rounds to the
figure (the page's 0.841 is a test's 0.84147). A percentage also matches as a fraction (98.3% as
0.983), and `525.3M` also matches a literal that rounds to it in millions (525_336_576).

A row whose figures come from a command says so (`by command: `python docs/training_figures.py``; "by
command" without a backticked command is an error). Its figures are pinned by a results file the command
wrote, cited as `docs/results/NAME.json` (`recorded`: every number in it), or the row says
"not pinned: WHY" (how much training it would take); `unpinned` lists those rows and a test names them.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "lessons.md"

ROW_ID = re.compile(r"^\d{3}(?:\.\d+)+$")
CITED = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
BY_COMMAND = re.compile(r"by command: `[^`]+`")
ERRATA_ID = re.compile(r"^\d{3}(?: ch\. \d+(?:, \d+)*)?$")  # the errata table's "where": "001 ch. 1, 7", "003"
RESULTS = re.compile(r"`(docs/results/[\w.-]+\.json)`")
NOT_PINNED = re.compile(r"not pinned: (?P<why>[^;|]*\w[^;|]*?)\s*(?:;|$)")  # "not pinned: needs 15 minutes of …"
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
    id: str  # "001.6.2", or "errata 3" for the third row of "What the lessons get wrong"
    figure_cell: str
    cited: list[tuple[str, str]]  # (path, test name)
    results: list[str]  # results files a command wrote, cited as `docs/results/NAME.json`
    by_command: bool
    not_pinned: str  # "needs about 10 minutes of training", or "" where every figure is pinned


def rows(markdown: str) -> list[Row]:
    """The page's rows with an id, e.g. `| 000.5 | … | 51,200,000 | `tests/…::test_…` | right |`, and the
    errata table's (`| 001 ch. 1 | the lesson | the right figure | computed by |`)."""
    out = []
    errata = 0
    for line in markdown.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 5 and ROW_ID.match(cells[0]):
            row_id, figure_cell, computed_by = cells[0], cells[2], cells[3]
        elif cells and ERRATA_ID.match(cells[0]):
            errata += 1
            if len(cells) != 4:  # a row without its "computed by" cell would be checked against nothing
                raise AssertionError(f"errata {errata} ({cells[0]}): needs 4 cells, the last 'computed by'")
            row_id, figure_cell, computed_by = f"errata {errata}", cells[2], cells[3]
        else:
            continue
        not_pinned = NOT_PINNED.search(computed_by)
        by_command = "by command:" in computed_by
        out.append(
            Row(
                row_id,
                figure_cell,
                CITED.findall(computed_by),
                RESULTS.findall(computed_by),
                by_command,
                not_pinned["why"] if not_pinned else "",
            )
        )
        if by_command and not BY_COMMAND.search(computed_by):
            raise AssertionError(f"{row_id}: 'by command:' must be followed by the command in backticks")
        if "not pinned" in computed_by and not (not_pinned and by_command):
            raise AssertionError(f"{row_id}: 'not pinned' belongs to a row by command: 'not pinned: needs N minutes …'")
    return out


def figures(cell: str) -> list[Figure]:
    """The figures of one cell, by the rules in this module's docstring.

    >>> [f.text for f in figures("23,835,648 (98.3%); GPT-2 at d = 4, see 001.6.1, 0.424 and −0.03, 1.15×")]
    ['23,835,648', '98.3%', '0.424', '0.03', '1.15×']
    >>> [f.text for f in figures("1,050,673,152 bytes = 1,002.0 MiB")]
    ['1,050,673,152', '1,002.0']
    """
    cell = re.sub(r"`[^`]*`", " ", cell)  # commands and code
    cell = re.sub(r"\]\([^)]*\)", "]", cell)  # link targets
    cell = re.sub(r"\b(?:Table|Figure) \d+(?:\.\d+)*", " ", cell)  # references into a paper
    # a row id ("see 001.6.1"), not the end of a figure ("1,002.0")
    cell = re.sub(r"(?<![\d,.])\d{3}(?:\.\d+)+\b", lambda m: " " if m.group().startswith("00") else m.group(), cell)
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


TOLERANCES = {"abs", "rel", "atol", "rtol"}  # keywords that give a tolerance, not a figure


def asserted(path: Path, name: str) -> list[Decimal]:
    """The numbers test `name` asserts: those inside its assert statements and `assert*` calls
    (`np.testing.assert_allclose`), the tolerances of `pytest.approx` and the like left out, with what
    the names in them stand for: the function's own assignments and loop variables, the `parametrize`
    values of its arguments, and the module constants they name. Comments, messages and numbers the
    test only uses (a seed, a size it passes) do not count.
    """
    module = ast.parse(path.read_text(encoding="utf-8"))
    funcs = [n for n in module.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name]
    if not funcs:
        return []
    func = funcs[0]
    sources: dict[str, list[ast.AST]] = {}  # name -> the expressions that give it its value
    for node in module.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            for target in _assigns(node):
                sources.setdefault(target, []).append(node.value)
    for node in ast.walk(func):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in _names(targets):
                sources.setdefault(target, []).append(node.value)
        elif isinstance(node, ast.For | ast.comprehension):
            for target in _names([node.target]):
                sources.setdefault(target, []).append(node.iter)
    for decorator in func.decorator_list:  # the values a decorator gives the function's arguments
        if not isinstance(decorator, ast.Call):
            continue
        if _called(decorator) == "parametrize" and len(decorator.args) >= 2:  # ("layout", "params"), TABLE
            names = [n.value for n in ast.walk(decorator.args[0]) if isinstance(n, ast.Constant)]
            for arg in (a for n in names if isinstance(n, str) for a in re.split(r"[,\s]+", n) if a):
                sources.setdefault(arg, []).append(decorator.args[1])
        elif _called(decorator) == "given":  # hypothesis: d=st.integers(1, 32), the range the property holds on
            for keyword in decorator.keywords:
                sources.setdefault(keyword.arg, []).append(keyword.value)
    checks: list[ast.AST] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Assert):
            checks.append(node.test)  # not node.msg: a message is not asserted
        elif isinstance(node, ast.Call) and _called(node).startswith("assert"):
            checks += [*node.args, *(k.value for k in node.keywords if k.arg not in TOLERANCES)]
    out: list[Decimal] = []
    seen: set[str] = set()
    while checks:
        expr = checks.pop()
        for node in _walk(expr):
            if isinstance(node, ast.Constant) and type(node.value) in (int, float):  # not a bool
                out.append(Decimal(repr(node.value)) if isinstance(node.value, float) else Decimal(node.value))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                out += [Decimal(n.replace(",", "")) for n in re.findall(STRING_NUMBER, node.value)]
            elif isinstance(node, ast.Name) and node.id not in seen:
                seen.add(node.id)
                checks += sources.get(node.id, [])
    return out


def _walk(expr: ast.AST):
    """ast.walk, less the tolerance keywords of calls (`pytest.approx(x, abs=1e-3)`)."""
    todo = [expr]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.Call):
            todo += [node.func, *node.args, *(k.value for k in node.keywords if k.arg not in TOLERANCES)]
        else:
            todo += list(ast.iter_child_nodes(node))


def _called(call: ast.Call) -> str:
    """The name a call calls: `np.testing.assert_allclose(...)` -> "assert_allclose"."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _names(targets: list[ast.expr]) -> set[str]:
    """The names bound by assignment targets, tuples unpacked: `a, (b, c) = ...` -> {a, b, c}."""
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


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


def recorded(path: Path) -> list[Decimal]:
    """Every number a results file holds (`{"wordsim": {"rare": 0.4512}}` -> [0.4512]), booleans left out."""
    todo, out = [json.loads(path.read_text(encoding="utf-8"))], []
    while todo:
        value = todo.pop()
        if isinstance(value, dict):
            todo += value.values()
        elif isinstance(value, list):
            todo += value
        elif isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            out.append(Decimal(repr(value)) if isinstance(value, float) else Decimal(value))
    return out


def unasserted(markdown: str, root: Path) -> list[str]:
    """'ROW: FIGURE' for each figure that no test cited by its row asserts and no results file it cites
    holds, unless the row is by command and says why it is not pinned (those rows `unpinned` lists)."""
    problems = []
    for row in rows(markdown):
        if row.not_pinned:
            continue
        found = [lit for path, name in row.cited for lit in asserted(root / path, name)]
        found += [x for path in row.results for x in recorded(root / path)]
        problems += [f"{row.id}: {f.text}" for f in figures(row.figure_cell) if not any(matches(f, x) for x in found)]
    return problems


def unpinned(markdown: str) -> list[str]:
    """'ROW: why' for each row by command whose figures no test or results file pins."""
    return [f"{row.id}: {row.not_pinned}" for row in rows(markdown) if row.not_pinned]


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


def test_the_rows_not_pinned_are_named():
    # every row by command whose figures no test or results file pins, and why: a visible list, changed on purpose
    assert [u.split(":")[0] for u in unpinned(DOC.read_text(encoding="utf-8"))] == NOT_PINNED_ROWS


NOT_PINNED_ROWS = [
    "errata 7",
    "000.4",
    "000.8",
    "000.12",
    "001.1.8",
    "001.1.12",
    "001.2.8",
    "001.3.9",
    "001.4.7",
    "001.6.1",
    "001.6.2",
    "001.6.3",
    "001.7.7",
    "002.8",
    "002.10",
    "002.11",
    "002.12",
    "002.13",
]


def test_the_docstring_examples():
    import doctest
    import sys

    result = doctest.testmod(sys.modules[__name__])
    assert result.attempted >= 3 and result.failed == 0
