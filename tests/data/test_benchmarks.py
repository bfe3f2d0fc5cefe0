"""The benchmark files embedlab ships (RW, MEN, SimVerb-3500, MTurk-771, WordSim-353 rel, CARD-660): intact,
in the wheel, parsed right."""

from __future__ import annotations

import csv
import fnmatch
import hashlib
import re
import tomllib
from pathlib import Path

import pytest

from embedlab.data.benchmarks import (
    ALL_PAIR_BENCHMARKS,
    BENCHMARKS,
    FROM_GENSIM,
    SHIPPED,
    WORDSIM7,
    benchmark_path,
)
from embedlab.errors import FileFormatError, UnknownNameError
from embedlab.vectors.io.benchmarks import POS_TAGS, read_benchmark_pairs, read_pair_table, read_tsv_pairs

# the checksums of ../shared/benchmarks/README.md, where the files were copied from (vecto-ai/word-benchmarks
# at commit 222317b, MinishLab/model2vec at afe4101): written here too, so that a file and the package README
# changed together still fail
SHA256 = {
    "rw.csv": "b621a724cc748e4c722e97242da16f15bbb7d73bc7f9b1f6097c11051022a899",
    "men.csv": "ee7efb13c361afe12a6b1a58654833f97029e0b0540859f8db503c2f75782e44",
    "simverb-3500.csv": "cc481bf98ed80549e86dd87df972aa0de931ee7ba3634cdc2df361f23c7b67c9",
    "mturk-771.csv": "04213b3c30625e3e9c8b88b51bbf1dc9837289f2fa3d70c119d44aa65be43b8c",
    "wordsim-353-rel.tsv": "766f4c1444eca97597dc21b876781852f0c43d9956536b4aaf8903b64e7212aa",
    "card-660.tsv": "0cfae4d9ee596c4dd745a138f49c99e74c31a8e171bc4108b62d243607a6c1a8",
}
# pairs per set, as their papers give them (WordSim-353 and SimLex-999: gensim's files)
PAIRS = {"wordsim353": 353, "simlex999": 999, "rw": 2034, "men": 3000, "simverb3500": 3500, "mturk771": 771,
         "wordsim353rel": 252, "card660": 660}  # fmt: skip
# the README's table
SCALES = {"rw": (0, 10), "men": (0, 50), "simverb3500": (0, 10), "mturk771": (1, 5), "wordsim353rel": (0, 10),
          "card660": (0, 4)}  # fmt: skip
PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_shipped_files_match_their_checksums():
    shipped = [n for n in ALL_PAIR_BENCHMARKS if n not in FROM_GENSIM]
    assert sorted(BENCHMARKS[n] for n in shipped) == sorted(SHA256)
    readme = (SHIPPED / "README.md").read_text(encoding="utf8")
    listed = dict(reversed(pair) for pair in re.findall(r"^([0-9a-f]{64})  (\S+\.(?:csv|tsv))$", readme, re.M))
    assert listed == SHA256  # the README beside the files says the same
    for name in shipped:
        path = benchmark_path(name)
        assert path.parent == SHIPPED and _sha256(path) == SHA256[path.name], name


def test_readmes_cite_the_source():
    readme = (SHIPPED / "README.md").read_text(encoding="utf8")
    project = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf8")
    for text in (readme, project):
        assert "vecto-ai/word-benchmarks" in text and "222317b" in text
        assert "MinishLab/model2vec" in text and "afe4101" in text
        assert all(author in text for author in ("Luong", "Bruni", "Gerz", "Halawi", "Agirre", "Pilehvar"))


def test_the_files_ship_in_the_wheel():
    """setuptools puts only the listed package data in a wheel: each shipped file must match a pattern."""
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf8"))
    patterns = config["tool"]["setuptools"]["package-data"]["embedlab.data"]
    package = SHIPPED.parent
    for path in SHIPPED.iterdir():
        relative = path.relative_to(package).as_posix()
        assert any(fnmatch.fnmatch(relative, p) for p in patterns), relative


@pytest.mark.parametrize("name", ALL_PAIR_BENCHMARKS)
def test_pair_counts_and_scales(name):
    pairs = read_benchmark_pairs(name)
    assert len(pairs) == PAIRS[name]
    assert all(isinstance(a, str) and isinstance(b, str) and a and b for a, b, _ in pairs)
    if name in SCALES:
        low, high = SCALES[name]
        scores = [s for _, _, s in pairs]
        assert low <= min(scores) < max(scores) <= high


def test_men_tags_are_stripped():
    pairs = read_benchmark_pairs("men")
    assert pairs[:2] == [("sun", "sunlight", 50.0), ("automobile", "car", 50.0)]
    with open(benchmark_path("men"), newline="", encoding="utf8") as f:
        raw = list(csv.reader(f))[1:]
    tags = {w.rsplit("-", 1)[1] for row in raw for w in row[1:3]}
    assert tags == set(POS_TAGS)  # every word had a tag, and every tag is one of these
    assert [(a, b) for a, b, _ in pairs] == [tuple(w.rsplit("-", 1)[0] for w in row[1:3]) for row in raw]


def test_simverb_columns_found_by_name():
    # the file's columns are: index, similarity, word1, word2, relation
    pairs = read_benchmark_pairs("simverb3500")
    assert pairs[:3] == [("take", "remove", 6.81), ("walk", "trail", 4.81), ("feed", "starve", 1.49)]


def test_hyphens_inside_words_are_kept():
    words = {w for a, b, _ in read_benchmark_pairs("rw") for w in (a, b)}
    assert {"narrow-minded", "re-argue"} <= words  # RW's own hyphens; only MEN's tags are stripped
    assert read_benchmark_pairs("rw")[0] == ("squishing", "squirt", 5.88)
    assert read_benchmark_pairs("mturk771")[0] == ("access", "gateway", 3.791666667)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (",word1,word2,score\n0,a,b,1\n", "lacks similarity"),
        (",word1,word2,similarity\n0,a,b,1\n1,a,b,high\n", "line 3: a missing field or a score"),
        (",word1,word2,similarity\n0,a,b,1\n1,a\n", "line 3: a missing field"),
        ("", "lacks word1, word2, similarity"),
    ],
    ids=["no similarity column", "bad score", "short row", "empty"],
)
def test_malformed_pair_tables_name_the_line(tmp_path, text, message):
    path = tmp_path / "pairs.csv"
    path.write_text(text, encoding="utf8")
    with pytest.raises(FileFormatError, match=message):
        read_pair_table(path)


def test_a_word_without_its_tag(tmp_path):
    path = tmp_path / "tagged.csv"
    path.write_text(",word1,word2,similarity\n0,sun-n,moon-n,40\n1,sun-n,bright,30\n", encoding="utf8")
    assert read_pair_table(path) == [("sun-n", "moon-n", 40.0), ("sun-n", "bright", 30.0)]
    with pytest.raises(FileFormatError, match=r"line 3: 'bright' lacks a part-of-speech tag \(-n, -v, -j\)"):
        read_pair_table(path, pos_tagged=True)


def test_the_tsv_sets_read_their_own_columns():
    assert read_benchmark_pairs("wordsim353rel")[:2] == [("computer", "keyboard", 7.62), ("Jerusalem", "Israel", 8.46)]
    card = read_benchmark_pairs("card660")
    assert card[:2] == [("Pokemon", "Pocket_Monsters", 3.81), ("prejudice", "chauvinist", 2.25)]
    assert sum("_" in w for a, b, _ in card for w in (a, b)) > 100  # multi-word terms keep their joins
    assert set(WORDSIM7) <= set(ALL_PAIR_BENCHMARKS) and len(WORDSIM7) == 7


@pytest.mark.parametrize(
    ("text", "message"),
    [("0\ta\tb\t1\n1\ta\tb\n", "line 2: a missing field"), ("0\ta\tb\thigh\n", "line 1: a missing field or a score"),
     ("0\t\tb\t1\n", "line 1: an empty word")],
    ids=["short line", "bad score", "empty word"],
)  # fmt: skip
def test_malformed_tsv_pairs_name_the_line(tmp_path, text, message):
    path = tmp_path / "pairs.tsv"
    path.write_text(text, encoding="utf8")
    with pytest.raises(FileFormatError, match=message):
        read_tsv_pairs(path, (1, 2, 3))


def test_unknown_word_pair_benchmark():
    with pytest.raises(UnknownNameError, match="unknown word-pair benchmark 'google'; known: card660, men, mturk"):
        read_benchmark_pairs("google")
