"""Shared fixtures: the real MiniLM model folder and its transformers oracle, a CLI runner, and
enwiki-sample as text files for training runs."""

from __future__ import annotations

import itertools
import os

import pytest

# The built-in model ships inside an installed package; nothing may reach a hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# As `import embedlab` does, but before any test module imports torch (see embedlab/__init__.py).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@pytest.fixture(scope="session")
def minilm_dir():
    from embedlab.data.models import model_dir

    return model_dir("minilm")


@pytest.fixture(scope="session")
def bert_oracle(minilm_dir):
    """transformers' own BertModel on the MiniLM weights, in eval mode."""
    from transformers import BertModel

    return BertModel.from_pretrained(str(minilm_dir)).eval()


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch):
    # With EMBEDLAB_DEBUG set the CLI re-raises; tests check the user-facing behaviour.
    monkeypatch.delenv("EMBEDLAB_DEBUG", raising=False)


@pytest.fixture
def run_cli(capsys):
    """Run `embedlab ARGS...` in-process -> (exit status, stdout, stderr)."""
    from embedlab.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as exit_info:
            main(list(args))
        out, err = capsys.readouterr()
        return exit_info.value.code, out, err

    return run


@pytest.fixture(scope="session")
def minilm_vectors():
    """The built-in MiniLM token table as Vectors (30522 WordPiece keys × 384)."""
    from embedlab.vectors import Vectors

    return Vectors.load("minilm")


@pytest.fixture(scope="session")
def minilm_keyed(minilm_vectors):
    """gensim's KeyedVectors holding the same table: the oracle for queries and benchmarks."""
    from gensim.models import KeyedVectors

    kv = KeyedVectors(minilm_vectors.vector_size)
    kv.add_vectors(minilm_vectors.index_to_key, minilm_vectors.vectors)
    return kv


@pytest.fixture(scope="session")
def wiki_text(tmp_path_factory):
    """enwiki-sample's lines as a text file: the same words, so the same tables (tests/train/test_run.py
    checks this), without parsing the XML dump again (~5 s) for every training run."""
    from embedlab.data.corpora import open_corpus

    path = tmp_path_factory.getbasetemp() / "enwiki-sample.txt"
    path.write_text("".join(f"{line}\n" for line in open_corpus("enwiki-sample")), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def small_text(wiki_text, tmp_path_factory):
    """The first 3,000 lines of enwiki-sample: ~100,000 words, ~3,500 of them in the vocabulary."""
    path = tmp_path_factory.mktemp("small") / "wiki-3k.txt"
    with open(wiki_text, encoding="utf-8") as f:
        path.write_text("".join(itertools.islice(f, 3000)), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def check_neighbours():
    """What word2vec must learn from enwiki-sample, for any engine: check(vectors, method)."""

    def check(vectors, method: str) -> None:
        assert "february" in [k for k, _ in vectors.most_similar("january", topn=10)]
        assert "three" in [k for k, _ in vectors.most_similar("two", topn=3)]
        assert "she" in [k for k, _ in vectors.most_similar("he", topn=3)]
        margin = 0.5 if method == "sgns" else 0.2  # CBOW's cosines sit closer together
        assert vectors.similarity("january", "february") > vectors.similarity("january", "water") + margin
        assert vectors.similarity("two", "three") > vectors.similarity("two", "river") + margin / 2

    return check


@pytest.fixture(scope="session")
def quick_race(tmp_path_factory):
    """`embedlab arena --quick --json`, run once for the session as a user runs it (about 2
    minutes): (its folder, the JSON it printed)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    out = tmp_path_factory.mktemp("arena") / "quick"
    command = [str(Path(sys.executable).parent / "embedlab"), "arena", "--quick", "--out", str(out), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return out, json.loads(done.stdout)


@pytest.fixture(scope="session")
def tiny_sweep(tmp_path_factory):
    """A budget sweep on a sliver of the quick race's data and compute (2 widths, 2 budgets, 1 seed;
    about a minute): (its folder, its plan, its summary)."""
    import dataclasses

    from embedlab.arena.strategies import BUDGETS
    from embedlab.arena.sweep import Sweep, SweepPlan

    tiny = dataclasses.replace(BUDGETS["quick"], name="tiny", train_bytes=150_000, eval_bytes=12_000, text_flops=4e10)
    folder, plan = tmp_path_factory.mktemp("sweep") / "tiny", SweepPlan("tiny", tiny, (0.5, 1.0), (32, 64), (0,))
    return folder, plan, Sweep.open(folder, plan).run()
