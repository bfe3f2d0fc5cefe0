"""`embedlab compare A B` end to end: tables from files and the built-in minilm, text and --json."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rich.cells import cell_len

from embedlab.vectors import Vectors
from embedlab.vectors.compare import compare_tables


@pytest.fixture
def two_files(tmp_path):
    """a.txt: 120 Gaussian rows × 8 plus 3 keys of its own; b.txt: the same 120 keys with "w42"
    replaced by another random row, plus 2 of its own, in another order."""
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(123, 8)).astype(np.float32)
    a_keys = [f"w{i}" for i in range(120)] + ["onlya0", "onlya1", "onlya2"]
    changed = rows[:120].copy()
    changed[42] = rng.normal(size=8)
    order = rng.permutation(120)
    b_rows = np.vstack([changed[order], rng.normal(size=(2, 8))]).astype(np.float32)
    b_keys = [f"w{i}" for i in order] + ["onlyb0", "onlyb1"]
    Vectors(a_keys, rows).save(tmp_path / "a.txt")
    Vectors(b_keys, b_rows).save(tmp_path / "b.txt")
    return str(tmp_path / "a.txt"), str(tmp_path / "b.txt")


def test_text_shows_the_summary_and_the_planted_mover_first(run_cli, two_files):
    a, b = two_files
    status, out, err = run_cli("compare", a, b, "-k", "5", "--top", "4")
    assert status == 0 and err == ""
    summary = " ".join(out.split())  # the summary sentence wraps at 80 columns
    assert "120 shared keys, 3 only in A, 2 only in B; widths 8 and 8" in summary
    assert "mean Jaccard@5" in summary
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == 4 and rows[0].split("│")[2].strip() == "w42"  # rank 1 is the replaced row
    assert max(len(line) for line in out.splitlines()) <= 80


def test_json_is_the_library_summary(run_cli, two_files):
    a, b = two_files
    status, out, err = run_cli("compare", a, b, "-k", "5", "--top", "3", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    expected = compare_tables(Vectors.load(a), Vectors.load(b), k=5, top=3).to_dict()
    assert data == expected
    assert data["movers"][0]["key"] == "w42" and len(data["movers"]) == 3
    assert "displacement" not in data  # the per-key arrays stay out of the summary


def test_minilm_against_some_of_its_own_rows(run_cli, tmp_path, minilm_vectors):
    keys = minilm_vectors.index_to_key[5000:5300]
    Vectors(keys, minilm_vectors[keys]).save(tmp_path / "part.txt")  # 9 significant digits: the same float32
    status, out, _ = run_cli("compare", "minilm", str(tmp_path / "part.txt"), "--top", "2", "--json")
    data = json.loads(out)
    assert status == 0 and (data["shared"], data["only_a"], data["only_b"]) == (300, len(minilm_vectors) - 300, 0)
    assert (data["dim_a"], data["dim_b"]) == (384, 384)
    assert data["residual"] < 1e-9 and data["mean_jaccard"] == 1.0  # the same rows: R = I, same neighbours


def test_an_unknown_table_is_one_line_and_status_2(run_cli, two_files):
    status, out, err = run_cli("compare", two_files[0], "no-such-table")
    assert status == 2 and out == ""
    assert err.strip().count("\n") == 0 and "no-such-table" in err


def test_a_bad_k_names_the_value_and_the_range(run_cli, two_files):
    status, _, err = run_cli("compare", *two_files, "-k", "0")
    assert status == 2 and "k must be between 1 and 100; got 0" in err


def test_help_says_what_is_compared(run_cli):
    status, out, _ = run_cli("compare", "--help")
    text = " ".join(out.split())
    assert status == 0 and "Procrustes" in text and "Jaccard@k" in text and "full space" in text


@pytest.fixture(scope="module")
def minilm_slices(minilm_vectors, tmp_path_factory):
    """MiniLM's first 8,000 rows (most benchmark words are among them) as a.npy, and the same rows
    drowned in noise three times their norm as noisy.npy."""
    folder = tmp_path_factory.mktemp("compare")
    keys, rows = minilm_vectors.index_to_key[:8000], minilm_vectors.vectors[:8000]
    noise = np.random.default_rng(0).normal(size=rows.shape) * 3 * np.linalg.norm(rows, axis=1, keepdims=True)
    Vectors(keys, rows.copy()).save(folder / "a.npy")
    Vectors(keys, (rows + noise / np.sqrt(rows.shape[1])).astype(np.float32)).save(folder / "noisy.npy")
    return str(folder / "a.npy"), str(folder / "noisy.npy")


def test_evaluate_a_table_against_itself_is_no_difference(run_cli, minilm_slices):
    a, _ = minilm_slices
    status, out, err = run_cli("compare", a, a, "--evaluate", "--resamples", "200", "--json")
    assert status == 0, err
    benchmarks = json.loads(out)["benchmarks"]
    assert [d["name"] for d in benchmarks] == [
        "wordsim353",
        "simlex999",
        "rw",
        "men",
        "simverb3500",
        "mturk771",
        "google",
    ]
    for d in benchmarks:
        assert d["difference"] == 0.0 and d["interval"] == [0.0, 0.0] and not d["significant"]
        assert d["a"] == d["b"] and d["items"] >= 2 and d["resamples"] == 200


@pytest.mark.slow
def test_evaluate_finds_a_noised_table_worse_beyond_noise(run_cli, minilm_slices):
    a, noisy = minilm_slices
    status, out, err = run_cli("compare", a, noisy, "--evaluate", "--resamples", "500")
    assert status == 0, err
    rows = [line.split("│") for line in out.splitlines() if line.startswith("│ ") and "noise" not in line]
    verdicts = {cells[1].strip(): cells[-2].strip() for cells in rows if cells[1].strip() in ("wordsim353", "google")}
    assert verdicts == {"wordsim353": "beyond", "google": "beyond"}, out
    assert "paired percentile bootstrap, 500 resamples (seed 0)" in " ".join(out.split())
    # columns on screen, not characters: MiniLM's keys hold zero-width and double-width characters
    assert max(cell_len(line) for line in out.splitlines()) <= 80
    status, out, _ = run_cli("compare", a, noisy, "--evaluate", "--resamples", "500", "--json")
    worse = [d for d in json.loads(out)["benchmarks"] if d["significant"] and d["difference"] < 0]
    assert worse, out  # noise three times a row's norm wrecks the similarities
    assert all(d["interval"][1] < 0 for d in worse)


def test_evaluate_refuses_too_few_resamples_before_loading(run_cli):
    status, out, err = run_cli("compare", "no-such-a", "no-such-b", "--evaluate", "--resamples", "5")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "resamples must be an integer between 100 and" in err
