"""Bounds several lab pages share, kept here so that each page's LIMITS (in its sims module, listed
by /api/config) and the lab's shared query parameters (lab/deps.py) read the same numbers.

    MAX_TOKEN   characters of a token (a table's key): lookup, size's heat map, tying
    MAX_SEED    the largest seed: gradients, patches, tying
"""

from __future__ import annotations

MAX_TOKEN = 100  # characters of a token (a table's key)
MAX_SEED = 2**31 - 1  # seeds fit every generator the simulations use
