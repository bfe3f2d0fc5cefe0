"""Every figure of a race or sweep folder, drawn again from its results.json alone (nothing is trained).

    redraw("runs/arena")      # a race: TASK.png and curves.png (arena/figures.py)
    redraw("runs/sweep")      # a sweep: sweep.png, and each point's race figures

`embedlab arena --figures --out DIR` runs it: the docs' figures come from it.
"""

from __future__ import annotations

from pathlib import Path

from embedlab.arena.figures import draw, draw_sweep
from embedlab.arena.runner import RACE_FILE, Race
from embedlab.arena.sweep import SWEEP_FILE, Sweep
from embedlab.errors import InvalidValueError


def redraw(folder: str | Path) -> list[Path]:
    """Draw every figure of the race or sweep in `folder` again from its results.json; -> the paths."""
    folder = Path(folder)
    if (folder / SWEEP_FILE).is_file():
        summary = Sweep.read_results(folder)
        if summary is None:
            raise InvalidValueError(f"{folder} holds a sweep that has not finished; run it to the end first")
        races = sorted(p.parent for p in folder.glob(f"d*/x*/{RACE_FILE}"))
        return [p for race in races for p in redraw(race)] + [draw_sweep(summary, folder)]
    if (folder / RACE_FILE).is_file():
        summary = Race.read_results(folder)
        if summary is None:
            raise InvalidValueError(f"{folder} holds a race that has not finished; run it to the end first")
        return draw(summary, folder)
    raise InvalidValueError(f"{folder} holds no arena race or sweep (no {RACE_FILE} or {SWEEP_FILE})")
