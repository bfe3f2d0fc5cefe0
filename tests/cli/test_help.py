"""Every help page: it answers without importing the library, and it reads at 80 columns.

The pages are rendered by the real entry point, for every command and subcommand the app holds
(walked from the app itself, so a new command is checked without touching this file).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
import typer
from tests.timeouts import COMMAND_S

from embedlab.cli import app

# What `embedlab --help` must not wait for: the ML stack and the lab's web stack.
HEAVY = ("torch", "numba", "fastapi", "gensim", "transformers", "sklearn", "matplotlib", "plotly", "uvicorn")
COLUMNS = 80
WIDTH = COLUMNS - 2  # the help formatter fills lines up to the terminal width less 2 (click's rule)
ROOM = 40  # characters a description line must have at 80 columns (rich's panels left ~20)


def _paths(command: typer.core.TyperGroup | None = None, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path: (), ("size",), ..., ("tokenizer",), ("tokenizer", "train")."""
    command = command or typer.main.get_command(app)
    paths = [prefix]
    for name, sub in getattr(command, "commands", {}).items():
        paths += _paths(sub, (*prefix, name))
    return paths


PATHS = _paths()


def test_the_walk_finds_every_command():
    names = {" ".join(path) for path in PATHS}
    assert {"", "size", "embed", "context", "tokenize", "tokenizer", "tokenizer train", "neighbors", "analogy"} <= names
    assert {"evaluate", "compare", "export", "train", "arena", "lab"} <= names


def _help(run_cli, monkeypatch, path: tuple[str, ...]) -> str:
    monkeypatch.setenv("COLUMNS", str(COLUMNS))
    status, out, err = run_cli(*path, "--help")
    assert status == 0 and err == "", err
    assert out.startswith(f"Usage: {' '.join(('embedlab', *path))} [OPTIONS]")
    return out


def _probe(code: str) -> list[str]:
    """Run `code` in a fresh interpreter; it prints a JSON list of the top-level modules it loaded."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=COMMAND_S)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


LOADED = "import json, sys; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"


def test_importing_the_cli_imports_nothing_heavy():
    loaded = _probe("import embedlab.cli; " + LOADED)
    assert "embedlab" in loaded and "typer" in loaded  # the probe does see imports
    assert not set(HEAVY) & set(loaded), sorted(set(HEAVY) & set(loaded))


def test_every_help_page_imports_nothing_heavy():
    code = f"""
import contextlib, io
from embedlab.cli import main
for path in {PATHS!r}:
    with contextlib.redirect_stdout(io.StringIO()) as page:
        try:
            main([*path, "--help"])
        except SystemExit as done:
            assert done.code == 0, (path, done.code)
    assert page.getvalue().startswith("Usage:"), path
{LOADED}"""
    loaded = _probe(code)
    assert not set(HEAVY) & set(loaded), sorted(set(HEAVY) & set(loaded))


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "embedlab")
def test_help_page_at_80_columns(run_cli, monkeypatch, path):
    page = _help(run_cli, monkeypatch, path)
    lines = page.splitlines()
    assert all(len(line) <= COLUMNS for line in lines), max(lines, key=len)
    starts = _description_starts(page)
    assert starts, "a help page lists options (at least --help)"
    narrow = [(line, start) for line, start in starts if COLUMNS - start < ROOM]
    assert not narrow, narrow
    summary = _summary(page)
    assert summary[-1].endswith("."), summary  # the summary is a whole sentence ...
    for line, following in zip(summary, summary[1:], strict=False):  # ... broken only where the width forces it
        assert len(line) + 1 + len(following.split()[0]) > WIDTH, (line, following)


def _description_starts(page: str) -> list[tuple[str, int]]:
    """(line, column where its description text starts) for each line of the Arguments, Options and
    Commands lists: after the term and its gap on a term's line, the indent on a continuation line."""
    starts, listing = [], False
    for line in page.splitlines():
        if line in ("Arguments:", "Options:", "Commands:"):
            listing = True
        elif not line.startswith(" "):
            listing = False
        elif listing and line.strip():
            indent = len(line) - len(line.lstrip())
            if indent > 2:  # a continuation line of a description
                starts.append((line, indent))
            elif (gap := re.search(r"\S\s{2,}(?=\S)", line)) is not None:  # term, then description
                starts.append((line, gap.end()))
    return starts


def _summary(page: str) -> list[str]:
    """The lines of the first paragraph under the usage line: the command's summary."""
    paragraphs = page.split("\n\n")
    return [line.rstrip() for line in paragraphs[1].splitlines()]


@pytest.mark.parametrize("group", [p for p in PATHS if p == () or p == ("tokenizer",)], ids=str)
def test_command_lists_show_whole_summaries(run_cli, monkeypatch, group):
    """A group lists each command with its summary sentence whole, as the command's own page opens."""
    page = _help(run_cli, monkeypatch, group)
    listed = page.split("Commands:\n")[1].splitlines()
    assert listed
    for row in listed:
        name, shown = row.split(maxsplit=1)
        assert shown.endswith(".") and not shown.endswith("..."), row
        own = " ".join(line.strip() for line in _summary(_help(run_cli, monkeypatch, (*group, name))))
        assert shown == own, (shown, own)


def test_choices_are_the_librarys():
    """cli/choices.py copies names so that --help imports nothing: each copy equals its home."""
    from embedlab.arena import flops, runner, strategies
    from embedlab.cli import choices
    from embedlab.hashing import murmur
    from embedlab.models import context
    from embedlab.tokenizer import bpe, pretokenize
    from embedlab.train import config
    from embedlab.vectors import intervals, io, similarity, table

    assert choices.METRICS == similarity.METRICS
    assert choices.ANALOGY_METHODS == table.ANALOGY_METHODS
    assert choices.FORMATS == io.FORMATS + io.SUBWORD_FORMATS + io.QUANTIZED_FORMATS
    assert choices.EXTENSIONS == (*io.EXTENSIONS, *io.WRITE_ONLY_EXTENSIONS, *io.QUANTIZED_EXTENSIONS)
    assert choices.RESAMPLES == intervals.RESAMPLES
    assert choices.TIE_RULES == bpe.TIE_RULES
    assert choices.SPLITS == pretokenize.SPLITS
    assert choices.METHODS == config.METHODS
    assert choices.DEVICES == config.DEVICES == runner.DEVICES
    assert choices.MAX_HASH_COUNT == murmur.MAX_HASH_COUNT
    assert choices.TASKS == strategies.TASKS
    assert choices.CLOCKS == flops.CLOCKS
    assert choices.STRATEGIES == tuple(strategies.STRATEGIES)
    assert (choices.POOLINGS, choices.NEAREST) == (context.POOLINGS, context.NEAREST)
