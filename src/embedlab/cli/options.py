"""What several commands share, so each flag reads and behaves the same everywhere: --json, --force
and the rule that an existing file is replaced only with --force."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer

from embedlab.errors import InvalidValueError

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout instead of tables.")]
ForceFlag = Annotated[bool, typer.Option("--force", help="Replace files that already exist at --out.")]


def path_text(text: str) -> str:
    """The parser of every option and argument that takes a path (or a built-in name): an empty one
    is refused, since Path("") is the current folder, which a command would read or write unasked."""
    if not text.strip():
        raise typer.BadParameter(f"an empty path ({text!r}); give a file or folder name ('.' for the current folder)")
    return text


def path_value(text: str) -> Path:
    """path_text for an option whose value is a Path."""
    return Path(path_text(text))


def refuse_existing(paths: Iterable[Path], force: bool) -> None:
    """Raise InvalidValueError naming the first of `paths` that exists, unless `force`.

    Commands call it with every file they are about to write, before any work, so a refusal
    costs nothing and leaves every file as it was.
    """
    existing = next((path for path in paths if path.exists()), None)
    if existing is not None and not force:
        raise InvalidValueError(f"{existing} already exists; add --force to replace it")
