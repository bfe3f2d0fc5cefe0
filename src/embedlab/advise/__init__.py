"""Lesson 001's decision chart, walked: inputs -> a recipe for the embedding part, its sizes, and
beside each branch what this project measured about it (`embedlab advise`, the lab's Advise page).

chart.py     advise(): the chart's questions -> Advice (Recipe, the path of Branch, SizeReport);
             advice(): the same with sizes typed as text ("125M", "300MiB")
evidence.py  the findings beside each branch, read from the recorded race and cited docs (Evidence)
units.py     "125M" -> 125,000,000 parameters; "512MiB" -> bytes: the sizes people type
"""

from embedlab.advise.chart import DETAILS, MODALITIES, POSITIONS, Advice, Branch, Recipe, advice, advise
from embedlab.advise.evidence import VERDICTS, Evidence
from embedlab.advise.units import parse_bytes, parse_count

__all__ = [
    "DETAILS",
    "MODALITIES",
    "POSITIONS",
    "VERDICTS",
    "Advice",
    "Branch",
    "Evidence",
    "Recipe",
    "advice",
    "advise",
    "parse_bytes",
    "parse_count",
]
