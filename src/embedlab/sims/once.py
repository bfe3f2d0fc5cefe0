"""Things made once per name, however many threads ask at once: one lock per name.

    made = MadeOnce()
    made.get("pca", compute_pca)     # computed on the first call; every later call gets that object
    made.values()                    # what has been made so far (to close it, say)
    made.names()                     # the names made so far

The lab's services (a table, MiniLM's layers, the subword vocabularies) and a projector's maps are
kept this way. A lock per name, not one for all: a slow make (training a vocabulary, a UMAP fit)
holds up only the requests that wait for the same thing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any


class MadeOnce:
    """name -> the object `make()` returned the first time that name was asked for."""

    def __init__(self) -> None:
        self._made: dict[Hashable, Any] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()  # guards _locks

    def get(self, name: Hashable, make: Callable[[], Any]) -> Any:
        with self._lock:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            if name not in self._made:
                self._made[name] = make()
            return self._made[name]

    def values(self) -> list[Any]:
        return list(self._made.values())

    def names(self) -> list[Hashable]:
        return list(self._made)
