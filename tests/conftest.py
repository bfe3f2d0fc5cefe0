"""Shared fixtures: the real MiniLM model folder and its transformers oracle, a CLI runner, and
enwiki-sample as text files for training runs; `once`, which makes a session's file once a run
however many pytest-xdist workers ask for it."""

from __future__ import annotations

import collections
import fcntl
import itertools
import os
from pathlib import Path

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
def shared_tmp(tmp_path_factory) -> Path:
    """A folder every pytest-xdist worker of this run shares (without xdist, the session's own)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def once(shared_tmp):
    """once(name, make) -> shared_tmp/name, made by make(path) in the first worker to ask; the others
    wait on a lock and reuse it. `make test` runs two workers, and a session fixture otherwise runs
    in each: the enwiki text parsed twice, the lab's run trained twice, its cache filled twice."""

    def get(name: str, make) -> Path:
        path, done = shared_tmp / name, shared_tmp / f"{name}.done"
        with open(shared_tmp / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if make raised
            if not done.exists():
                make(path)
                done.touch()
        return path

    return get


@pytest.fixture(scope="session")
def wiki_text(once):
    """enwiki-sample's lines as a text file: the same words, so the same tables (tests/train/test_run.py
    checks this), without parsing the XML dump again (~5 s) for every training run."""
    from embedlab.data.corpora import open_corpus

    def make(path: Path) -> None:
        path.write_text("".join(f"{line}\n" for line in open_corpus("enwiki-sample")), encoding="utf-8")

    return once("enwiki-sample.txt", make)


@pytest.fixture(scope="session")
def small_text(wiki_text, once):
    """The first 3,000 lines of enwiki-sample: ~100,000 words, ~3,500 of them in the vocabulary."""

    def make(path: Path) -> None:
        with open(wiki_text, encoding="utf-8") as f:
            path.write_text("".join(itertools.islice(f, 3000)), encoding="utf-8")

    return once("wiki-3k.txt", make)


@pytest.fixture(scope="session")
def lab_cache(once):
    """The lab's cache folder for the run (subword vocabularies, live runs, maps): one for every worker,
    so what one worker's lab computes, the other's reuses (its entries are written atomically)."""
    return once("lab-cache", lambda path: path.mkdir())


@pytest.fixture(scope="session")
def distilled_folder(once):
    """`embedlab distill minilm --dim 64 --float32 --pooling mean --weighting zipf --add-words 200 --json`
    (Model2Vec's recipe, plus enwiki-sample's 200 commonest words that MiniLM splits) run once for both
    workers: the folder, its JSON summary beside it as summary.json. Every token goes through MiniLM
    (~20 s of CPU) unless the cache holds the outputs (train.resumable); the other distillations of the
    suite (the fit's, the lab's) use the same pooling and read them."""
    import contextlib
    import io

    from embedlab.cli import main

    def make(path: Path) -> None:
        path.mkdir()
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), pytest.raises(SystemExit) as done:
            main(["distill", "minilm", "--out", str(path / "m2v"), "--dim", "64", "--float32", "--pooling", "mean",
                  "--weighting", "zipf", "--add-words", "200", "--json"])  # fmt: skip
        assert done.value.code == 0
        (path / "summary.json").write_text(printed.getvalue())

    return once("distilled", make)


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


def _tiny_budget(**changes):
    """The quick race's setting on a sliver of its data and compute: runs of about a second, whose
    figures say the machinery works, not which strategy wins (that is the races' and benchmarks' job)."""
    import dataclasses

    from embedlab.arena.strategies import BUDGETS

    # Scoring the held-out part costs more than training at this size (a 32K head's logits for every
    # token, at each curve point): 6 KB and 2 curve points keep every figure defined at half the cost.
    setting = {"name": "tiny", "train_bytes": 150_000, "eval_bytes": 6_000, "text_flops": 4e10, "curve_points": 2}
    setting.update(changes)
    return dataclasses.replace(BUDGETS["quick"], **setting)


@pytest.fixture(scope="session")
def small_race(tmp_path_factory):
    """Every strategy of the quick race raced on a tiny budget (4e10 FLOPs a text run, 6e10 an image run,
    2,000 training images, 2 curve points; under a minute in all, most of it scoring and figures):
    (its folder, its summary, as results.json holds it and `embedlab arena --json` prints it)."""
    from embedlab.arena.runner import Race

    budget = _tiny_budget(image_flops=6e10, image_train=2_000, image_test=500)
    folder = tmp_path_factory.mktemp("arena") / "small"
    return folder, Race.open(folder, budget).run()


@pytest.fixture(scope="session")
def tiny_sweep(tmp_path_factory):
    """A budget sweep on a sliver of the quick race's data and compute (2 widths, 2 budgets, 1 seed, 2
    curve points a run; under a minute): (its folder, its plan, its summary)."""
    from embedlab.arena.sweep import Sweep, SweepPlan

    folder = tmp_path_factory.mktemp("sweep") / "tiny"
    plan = SweepPlan("tiny", _tiny_budget(), (0.5, 1.0), (32, 64), (0,))
    return folder, plan, Sweep.open(folder, plan).run()


# ---- tolerances that follow from float32 arithmetic -----------------------------------------------
# An oracle that computes in float32 (gensim's cosines: unit rows and dot products, summed by whichever
# BLAS kernel the CPU picks) and our float64 computation differ by rounding alone; these bound that
# difference from the arithmetic, so a test holds on any kernel (OPENBLAS_CORETYPE=Prescott, Haswell,
# SkylakeX ...), not only on the one it was measured on.

UNIT_ROUNDOFF_F32 = 2.0**-24


def _float32_cosine_error(dim: int) -> float:
    """The largest error of a cosine computed in float32 from two rows of width `dim`: each row's norm
    (dim squares summed, a square root) and the dot product (dim products summed) each round by at
    most about dim·u relative (u = 2⁻²⁴; Higham's γ_n bound for a sum of n terms), and |cos| ≤ 1;
    8 more units cover the divisions and the square roots."""
    return (2 * dim + 8) * UNIT_ROUNDOFF_F32


def _spearman_rounding_bound(gold, scores, error: float) -> float:
    """The most Spearman's rho of (gold, scores) can move when every score moves by at most `error`.

    Rounding can only reorder scores that lie within 2·error of each other, so score i's rank moves by
    at most m_i, the number of other scores that close. rho is the cosine of the centred rank vectors
    a (gold) and b (scores); reordering keeps |b|, so |Δrho| ≤ Σ |a_i|·m_i / (|a|·|b|). (A tie that
    rounding creates gives its scores their mean rank, which lies in the same range.) Scores exactly
    equal are left out of m_i: they come from one computation done twice (a pair listed twice, the 0.0
    of a word with no vector), which rounds the same way both times.
    """
    import numpy as np

    from embedlab.vectors.stats import ranks

    s = np.asarray(scores, dtype=np.float64)
    order = np.sort(s)
    close = np.searchsorted(order, s + 2 * error, side="right") - np.searchsorted(order, s - 2 * error, side="left")
    close -= np.searchsorted(order, s, side="right") - np.searchsorted(order, s, side="left")  # exactly equal
    a = ranks(np.asarray(gold, dtype=np.float64))
    b = ranks(s)
    a, b = a - a.mean(), b - b.mean()
    return float(np.abs(a) @ close / (np.linalg.norm(a) * np.linalg.norm(b)))


def _pearson_rounding_bound(scores, error: float) -> float:
    """The most Pearson's r of (gold, scores) can move when every score moves by at most `error`: r is
    the cosine of the centred vectors, and a change δ of the centred scores s turns s by an angle of at
    most arcsin(|δ| / |s|), with |δ| ≤ √n·error; a cosine moves by no more than its angle."""
    import math

    import numpy as np

    s = np.asarray(scores, dtype=np.float64)
    centred = np.linalg.norm(s - s.mean())
    return math.asin(min(1.0, math.sqrt(len(s)) * error / centred)) if centred else math.inf


@pytest.fixture(scope="session")
def float32_bounds():
    """The rounding bounds above: .cosine_error(dim), .spearman(gold, scores, error), .pearson(scores, error)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        cosine_error=_float32_cosine_error, spearman=_spearman_rounding_bound, pearson=_pearson_rounding_bound
    )


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which turns the groups into nodeid suffixes
def pytest_collection_modifyitems(config, items):
    """Groups for `make test`'s `-n 2 --dist loadgroup`: a worker runs a group whole, so a fixture
    shared within it is made once a run, not once a worker. The tests sharing the session's races form
    one group (and are slow: the races take a minute each); every other test goes with its module,
    whose module-scoped fixtures (a trained table, a vision run) would otherwise run on both workers,
    unless it names its own group (the UMAP fits of two modules share a worker's compiled numba code) or
    shares a lab process that only a few tests of several modules use (SHARED_SERVERS)."""
    for item in items:
        if _in_races(item):
            item.add_marker(pytest.mark.xdist_group("races"))
            item.add_marker(pytest.mark.slow)
        elif server := _shared_server(item):
            item.add_marker(pytest.mark.xdist_group(server))
        elif not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    # The races group is the suite's longest chain (three races, one after another, on one worker):
    # it goes first, so the other worker runs everything else beside it instead of waiting at the end.
    # Then the largest groups first, as xdist orders them itself (`make test` passes --no-loadscope-reorder
    # so this order stands).
    size = collections.Counter(item.get_closest_marker("xdist_group").args[0] for item in items)
    items.sort(key=lambda item: (not _in_races(item), -size[item.get_closest_marker("xdist_group").args[0]]))


def _in_races(item) -> bool:
    return bool({"small_race", "tiny_sweep"} & set(getattr(item, "fixturenames", ())))


# session fixtures that start a lab process for five tests of three modules -> their group: on one
# worker the process starts once (a MiniLM lab: about 6 s of CPU and 5 s of wall)
SHARED_SERVERS = {"minilm_lab_url": "minilm-lab"}


def _shared_server(item) -> str | None:
    return next((SHARED_SERVERS[f] for f in getattr(item, "fixturenames", ()) if f in SHARED_SERVERS), None)


def _at_once(n: int, attempt) -> list[BaseException | None]:
    """Run attempt(i) in n threads released together by a barrier -> each one's error, or None."""
    import threading

    barrier, outcome = threading.Barrier(n), [None] * n

    def run(i):
        barrier.wait()
        try:
            attempt(i)
        except BaseException as err:
            outcome[i] = err

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcome


@pytest.fixture(scope="session")
def at_once():
    """at_once(n, attempt) -> each thread's error or None: n threads call attempt(i) together (a barrier
    releases them), for the tests of exclusive creation (one of them must win, the rest be refused)."""
    return _at_once
