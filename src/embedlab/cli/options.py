"""Option types shared by several commands, so each flag reads the same everywhere."""

from __future__ import annotations

from typing import Annotated

import typer

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout instead of tables.")]
