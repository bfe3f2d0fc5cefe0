"""The built-in benchmark files: three in gensim's package test data, six shipped in this package.

benchmark_path("wordsim353")    WordSim-353: 353 word pairs with human relatedness scores
benchmark_path("simlex999")     SimLex-999: 999 pairs scored for similarity, not relatedness
benchmark_path("rw")            Stanford Rare Words: 2,034 pairs, most with a rare, inflected or derived word
benchmark_path("men")           MEN: 3,000 pairs scored for relatedness (words carry a "-n" / "-v" / "-j" tag)
benchmark_path("simverb3500")   SimVerb-3500: 3,500 verb pairs scored for similarity
benchmark_path("mturk771")      MTurk-771: 771 pairs scored for relatedness
benchmark_path("wordsim353rel") WordSim-353's relatedness part: 252 pairs
benchmark_path("card660")       CARD-660: 660 pairs of rare words and terms ("formic_acid")
benchmark_path("google")        the Google analogy set: 19,544 questions in 14 sections

RW, MEN, SimVerb-3500 and MTurk-771 are copies of the files of vecto-ai/word-benchmarks (commit
222317b), WordSim-353 rel and CARD-660 of MinishLab/model2vec's (commit afe4101), in benchmark_files/,
whose README names their papers, columns, scales and sha256 checksums. Like enwiki-sample, WordSim-353,
SimLex-999 and Google come from gensim (`gensim_test_file`).

`embedlab evaluate` reports PAIR_BENCHMARKS and Google; WORDSIM7 are the seven sets whose mean
Spearman × 100 Model2Vec reports as "WordSim" (vectors.instruments.wordsim7).

>>> benchmark_path("google").name
'questions-words.txt'
>>> benchmark_path("simverb3500").name
'simverb-3500.csv'
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from embedlab.errors import MissingDataError, unknown_name

# benchmark name -> its file, word-pair sets first in the order `embedlab evaluate` reports them
BENCHMARKS = {
    "wordsim353": "wordsim353.tsv",
    "simlex999": "simlex999.txt",
    "rw": "rw.csv",
    "men": "men.csv",
    "simverb3500": "simverb-3500.csv",
    "mturk771": "mturk-771.csv",
    "wordsim353rel": "wordsim-353-rel.tsv",
    "card660": "card-660.tsv",
    "google": "questions-words.txt",
}
PAIR_BENCHMARKS = ("wordsim353", "simlex999", "rw", "men", "simverb3500", "mturk771")  # `evaluate`'s report
MORE_PAIR_BENCHMARKS = ("wordsim353rel", "card660")  # read and scored by name, not in that report
ALL_PAIR_BENCHMARKS = PAIR_BENCHMARKS + MORE_PAIR_BENCHMARKS
WORDSIM7 = ("rw", "men", "simlex999", "wordsim353rel", "simverb3500", "mturk771", "card660")  # Model2Vec's order
ANALOGY_BENCHMARKS = ("google",)
FROM_GENSIM = ("wordsim353", "simlex999", "google")  # gensim's "word1<TAB>word2<TAB>score" and analogy files
# the CSV files: a header naming the columns word1, word2 and similarity (their order varies); the TSV
# files: no header, tab-separated, the pair's columns at these positions (word1, word2, score)
TSV_COLUMNS = {"wordsim353rel": (1, 2, 3), "card660": (0, 1, 2)}
POS_TAGGED = ("men",)  # each word ends in a part-of-speech tag, "sun-n": stripped when read
SHIPPED = Path(__file__).with_name("benchmark_files")  # the files this package carries, with their README


def benchmark_path(name: str) -> Path:
    """The file of a built-in benchmark, by name (one of BENCHMARKS)."""
    if name not in BENCHMARKS:
        raise unknown_name("benchmark", name, list(BENCHMARKS))
    if name in FROM_GENSIM:
        return gensim_test_file(BENCHMARKS[name], f"benchmark {name!r}")
    path = SHIPPED / BENCHMARKS[name]
    if not path.is_file():  # a broken install: the package data did not come along
        raise MissingDataError(f"benchmark {name!r}: {path} is missing; reinstall embedlab")
    return path


def gensim_test_file(filename: str, what: str) -> Path:
    """A file of gensim's package test data; `what` names it in the error when gensim is missing."""
    spec = importlib.util.find_spec("gensim")  # found without importing gensim (~2 s, most of an evaluation)
    if spec is None or not spec.submodule_search_locations:
        raise MissingDataError(f"{what} ships with gensim's test data: pip install gensim")
    path = Path(spec.submodule_search_locations[0]) / "test" / "test_data" / filename  # gensim's datapath
    if not path.is_file():
        raise MissingDataError(f"gensim's test data lacks {filename}; reinstall gensim")
    return path
