"""The lab's own answers, which no page's sims module makes: the served tables, the limits and the themes."""

from __future__ import annotations

from embedlab.lab.schemas.base import Answer, Limit


class TableList(Answer):
    tables: list[str]  # served tables, by the names requests use


class Themes(Answer):
    names: list[str]  # the THEMES groups, in order
    other: str  # the group of a word in none of them
    chosen: str  # the lookup map's group for the looked-up word when it is in none
    colours: dict[str, str]  # group (other included) -> CSS colour


class LabConfig(Answer):
    pages: dict[str, str]  # page name -> its title, in the nav's order
    themes: Themes
    limits: dict[str, dict[str, Limit]]  # page -> name -> its bound, [low, high] or choices
