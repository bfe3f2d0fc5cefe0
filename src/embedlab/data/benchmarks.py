"""The built-in benchmark files, and the gensim test-data folder they (and enwiki-sample) ship in.

benchmark_path("wordsim353")    WordSim-353: 353 word pairs with human relatedness scores
benchmark_path("simlex999")     SimLex-999: 999 pairs scored for similarity, not relatedness
benchmark_path("google")        the Google analogy set: 19,544 questions in 14 sections

>>> benchmark_path("google").name
'questions-words.txt'
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from embedlab.errors import MissingDataError, unknown_name

# benchmark name -> file in gensim's package test data
BENCHMARKS = {"wordsim353": "wordsim353.tsv", "simlex999": "simlex999.txt", "google": "questions-words.txt"}


def benchmark_path(name: str) -> Path:
    """The file of a built-in benchmark, by name (one of BENCHMARKS)."""
    if name not in BENCHMARKS:
        raise unknown_name("benchmark", name, list(BENCHMARKS))
    return gensim_test_file(BENCHMARKS[name], f"benchmark {name!r}")


def gensim_test_file(filename: str, what: str) -> Path:
    """A file of gensim's package test data; `what` names it in the error when gensim is missing."""
    spec = importlib.util.find_spec("gensim")  # found without importing gensim (~2 s, most of an evaluation)
    if spec is None or not spec.submodule_search_locations:
        raise MissingDataError(f"{what} ships with gensim's test data: pip install gensim")
    path = Path(spec.submodule_search_locations[0]) / "test" / "test_data" / filename  # gensim's datapath
    if not path.is_file():
        raise MissingDataError(f"gensim's test data lacks {filename}; reinstall gensim")
    return path
