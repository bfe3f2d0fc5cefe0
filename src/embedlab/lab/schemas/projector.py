"""The projector's key list: a JSON body the route sends as bytes, documented here (its other answers
are sims.projector's dataclasses, derived)."""

from __future__ import annotations

from pydantic import RootModel


class ProjectorKeys(RootModel[list[str]]):
    """Every key of the table, in row order (sent as JSON serialised once per table)."""
