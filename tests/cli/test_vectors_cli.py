"""`embedlab neighbors | analogy | evaluate | export` end to end on real tables."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gensim.models import KeyedVectors

from embedlab.vectors import Vectors


@pytest.fixture(scope="module")
def w2v_file(tmp_path_factory, minilm_vectors):
    """The first 3,000 MiniLM rows written by gensim as word2vec text: a real file from a peer."""
    path = tmp_path_factory.mktemp("vectors") / "minilm-3k.txt"
    kv = KeyedVectors(minilm_vectors.vector_size)
    kv.add_vectors(minilm_vectors.index_to_key[:3000], minilm_vectors.vectors[:3000])
    kv.save_word2vec_format(str(path), binary=False)
    return path


def test_neighbors_json_equals_the_library(run_cli, minilm_vectors):
    status, out, err = run_cli("neighbors", "minilm", "king", "-k", "5", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    expected = minilm_vectors.most_similar("king", topn=5)
    assert [n["key"] for n in data["neighbors"]] == list(expected.keys)
    assert data["metric"] == "cosine" and data["inputs"] == ["king"] and data["exclude_inputs"] is True


def test_neighbors_table_says_what_was_excluded(run_cli):
    status, out, _ = run_cli("neighbors", "minilm", "king", "-k", "3", "--metric", "euclidean")
    assert status == 0
    assert "distance: lower is closer" in out and "query words excluded: king" in out and "kings" in out


def test_analogy_with_and_without_inputs(run_cli):
    status, out, _ = run_cli("analogy", "minilm", "king - man + woman", "-k", "3", "--json")
    assert status == 0 and json.loads(out)["neighbors"][0]["key"] == "queen"
    status, out, _ = run_cli("analogy", "minilm", "king - man + woman", "-k", "3", "--include-inputs")
    assert status == 0 and "query words allowed as answers: king, man, woman" in out
    status, out, _ = run_cli("analogy", "minilm", "king - man + woman", "-k", "3", "--include-inputs", "--json")
    assert [n["key"] for n in json.loads(out)["neighbors"]][:2] == ["king", "queen"]
    status, out, _ = run_cli("analogy", "minilm", "king - man + woman", "--method", "3cosmul", "--json")
    assert status == 0 and json.loads(out)["metric"] == "3cosmul"


def test_evaluate_json_and_table(run_cli, w2v_file):
    status, out, err = run_cli("evaluate", str(w2v_file), "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert set(data) >= {"wordsim353", "simlex999", "google"}
    assert -1 <= data["wordsim353"]["spearman"] <= 1 and data["wordsim353"]["pairs"] > 0
    status, out, _ = run_cli("evaluate", str(w2v_file))
    assert status == 0 and "wordsim353" in out and "Total accuracy" in out and "capital-common-countries" in out


def test_evaluate_shows_seeded_intervals(run_cli, w2v_file):
    status, out, err = run_cli("evaluate", str(w2v_file), "--json", "--resamples", "200", "--seed", "3")
    assert status == 0 and err == ""
    data = json.loads(out)
    for name, score in (("wordsim353", "spearman"), ("simlex999", "spearman"), ("google", "accuracy")):
        low, high = data[name]["interval"]
        assert low <= data[name][score] <= high
        assert (data[name]["resamples"], data[name]["confidence"], data[name]["seed"]) == (200, 0.95, 3)
    status, out, _ = run_cli("evaluate", str(w2v_file), "--json", "--resamples", "200", "--seed", "3")
    assert json.loads(out) == data  # the same seed, the same intervals
    status, out, _ = run_cli("evaluate", str(w2v_file), "--resamples", "200", "--seed", "3")
    assert status == 0 and "95% interval" in out
    assert "95% intervals: seeded percentile bootstrap, 200 resamples of the items (seed 3)" in out
    low, high = data["wordsim353"]["interval"]
    assert f"[{low:.4f}, {high:.4f}]" in out
    status, out, _ = run_cli("evaluate", str(w2v_file), "--resamples", "0", "--json")
    assert status == 0 and json.loads(out)["google"]["interval"] is None
    status, out, _ = run_cli("evaluate", str(w2v_file), "--resamples", "0")
    assert status == 0 and "interval" not in out and "Total accuracy" in out


@pytest.mark.parametrize("option", [("--resamples", "5"), ("--resamples", "100001"), ("--seed", "-1")])
def test_evaluate_refuses_bad_bootstrap_settings(run_cli, option):
    status, out, err = run_cli("evaluate", "minilm", *option)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and option[0][2:] in err  # one line naming the setting
    if option[0] == "--resamples":
        assert f"between 100 and 100,000 (or 0: no interval); got {option[1]}" in err


@pytest.mark.parametrize("fmt", ["word2vec", "word2vec-bin", "safetensors", "npy", "projector"])
def test_export_round_trips(run_cli, tmp_path, w2v_file, fmt):
    out_path = tmp_path / ("projector" if fmt == "projector" else f"table.{fmt}")
    status, out, err = run_cli("export", str(w2v_file), "--format", fmt, "--out", str(out_path), "--json")
    assert status == 0 and err == "", err
    files = json.loads(out)["files"]
    source = Vectors.load(w2v_file)
    again = Vectors.load(out_path if fmt == "projector" else files[0])
    assert again.index_to_key == source.index_to_key
    np.testing.assert_array_equal(again.vectors, source.vectors)


def test_export_takes_the_format_from_the_extension(run_cli, tmp_path, w2v_file):
    status, out, _ = run_cli("export", str(w2v_file), "--out", str(tmp_path / "t.bin"), "--json")
    assert status == 0 and json.loads(out)["format"] == "word2vec-bin"
    kv = KeyedVectors.load_word2vec_format(tmp_path / "t.bin", binary=True)  # gensim reads it as binary
    assert kv.index_to_key == Vectors.load(w2v_file).index_to_key


@pytest.mark.parametrize(
    ("out", "existing", "fmt"),
    [("t.txt", "t.txt", None), ("t.safetensors", "t.vocab.json", None), ("proj", "proj/vectors.tsv", "projector")],
)
def test_export_never_replaces_a_file_without_force(run_cli, tmp_path, w2v_file, out, existing, fmt):
    (tmp_path / existing).parent.mkdir(exist_ok=True)
    (tmp_path / existing).write_bytes(b"old bytes")
    args = ["export", str(w2v_file), "--out", str(tmp_path / out), *(["--format", fmt] if fmt else [])]
    status, stdout, err = run_cli(*args)
    assert status == 2 and stdout == "" and err.count("\n") == 1
    assert err.startswith(f"error: {tmp_path / existing} already exists; add --force to replace it")
    assert (tmp_path / existing).read_bytes() == b"old bytes"  # nothing written, nothing beside it either
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == [existing]
    status, _, err = run_cli(*args, "--force")
    assert status == 0, err
    again = Vectors.load(tmp_path / out)
    assert again.index_to_key == Vectors.load(w2v_file).index_to_key


def test_bad_input_is_one_line_and_exit_2(run_cli, tmp_path):
    broken = tmp_path / "broken.txt"
    broken.write_text("2 3\na 1 2 3\nb 1 2\n")
    for args, message in [
        (("neighbors", "minilm", "kign"), "error: unknown key 'kign'"),
        (("neighbors", "minilm", "king", "-k", "0"), "error: -k/--topn must be >= 1; got 0"),
        (("neighbors", "minilm", "king", "--metric", "manhattan"), "error: --metric must be one of"),
        (("neighbors", "nowhere.txt", "king"), "error: vectors 'nowhere.txt' are neither a built-in table"),
        (("neighbors", str(broken), "a"), f"error: {broken}"),
        (("analogy", "minilm", "king - "), "error: cannot parse analogy"),
        (("analogy", "minilm", "king - man", "--method", "3cosdiv"), "error: --method must be one of"),
        (("export", "minilm", "--format", "pickle", "--out", str(tmp_path / "x")), "error: --format/-f must be one of"),
        (("export", "minilm", "--out", str(tmp_path / "x.pkl")), "error: cannot tell the format of"),
        (("export", "minilm"), "error: Missing option '--out'"),
    ]:
        status, out, err = run_cli(*args)
        assert status == 2, args
        assert out == "" and err.startswith(message), (args, err)
        assert err.count("\n") == 1 and "Traceback" not in err
