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


def refuse_existing(paths: Iterable[Path], force: bool) -> None:
    """Raise InvalidValueError naming the first of `paths` that exists, unless `force`.

    Commands call it with every file they are about to write, before any work, so a refusal
    costs nothing and leaves every file as it was.
    """
    existing = next((path for path in paths if path.exists()), None)
    if existing is not None and not force:
        raise InvalidValueError(f"{existing} already exists; add --force to replace it")
