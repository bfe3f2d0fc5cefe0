"""Advise (a lab page): lesson 001's decision chart walked by embedlab.advise.advice, the inputs as
the page sends them (sizes as text, "125M" and "300MiB", the way the CLI takes them), within LIMITS.
"""

from __future__ import annotations

from embedlab.advise import DETAILS, MODALITIES, POSITIONS, Advice, advice
from embedlab.advise.chart import MAX_IMAGE, MAX_SEQ
from embedlab.sizing import BYTES_PER_PARAM

__all__ = ["LIMITS", "MAX_BATCH", "MAX_DIM", "MAX_IMAGE", "MAX_LANGUAGES", "MAX_SEQ", "MAX_TEXT", "Advice", "advice"]
MAX_LANGUAGES = 10_000
MAX_BATCH = 1_000_000
MAX_DIM = 65_536
MAX_TEXT = 32  # characters of a size typed as text ("1.5B", "300MiB")
LIMITS = {
    "modalities": list(MODALITIES),
    "positions": list(POSITIONS),
    "details": list(DETAILS),
    "dtypes": list(BYTES_PER_PARAM),
    "languages": [1, MAX_LANGUAGES],
    "seq_len": [1, MAX_SEQ],
    "image_size": [1, MAX_IMAGE],
    "batch": [1, MAX_BATCH],
    "dim": [0, MAX_DIM],
    "text": MAX_TEXT,
}
