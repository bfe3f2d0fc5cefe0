"""`embedlab graph`: a node table written and read back, the scores beside the spectral baseline,
planted graphs by options, and mistakes as one line with exit 2."""

import json

from embedlab.vectors import Vectors


def test_a_karate_table_is_written_and_queried_by_node_id(run_cli, tmp_path):
    out = tmp_path / "karate.txt"
    status, stdout, err = run_cli("graph", "karate", "--dim", "8", "--threads", "1", "--out", str(out), "--json")
    assert status == 0, err
    answer = json.loads(stdout)
    assert (answer["graph"], answer["nodes"], answer["edges"], answer["dim"]) == ("karate", 34, 78, 8)
    assert answer["files"] == [str(out)] and answer["walks"]["length"] == 80
    table = Vectors.load(out)
    assert sorted(table.index_to_key, key=int) == [str(v) for v in range(34)] and table.vectors.shape == (34, 8)
    status, stdout, _ = run_cli("neighbors", str(out), "33", "-k", "3", "--json")
    assert status == 0 and len(json.loads(stdout)["neighbors"]) == 3
    status, _, err = run_cli("graph", "karate", "--out", str(out))
    assert status == 2 and "already exists; add --force" in err


def test_evaluate_scores_ours_and_the_spectral_baseline(run_cli):
    status, stdout, err = run_cli("graph", "karate", "--dim", "16", "--threads", "1", "--evaluate")
    assert status == 0, err
    assert "walks + skip-gram" in stdout and "spectral" in stdout and "k-means accuracy" in stdout
    status, stdout, _ = run_cli("graph", "karate", "--dim", "16", "--threads", "1", "--evaluate", "--json")
    report = json.loads(stdout)["report"]
    assert report["ours"]["accuracy"] > report["spectral"]["accuracy"]  # 0.94 against 0.68 (test_embed.py)


def test_a_planted_graph_is_built_from_its_options(run_cli):
    args = ("graph", "planted", "--groups", "2", "--size", "30", "--p-in", "0.3", "--p-out", "0.02")
    status, stdout, err = run_cli(*args, "--dim", "8", "--evaluate", "--json")
    assert status == 0, err
    answer = json.loads(stdout)
    assert answer["graph"] == "planted-2x30" and answer["nodes"] == 60
    assert answer["report"]["ours"]["accuracy"] >= 0.9  # two dense blocks, few ties across


def test_mistakes_are_one_line_and_exit_2(run_cli):
    for args, message in [
        (("graph", "planted", "--groups", "3"), "a planted graph needs --size, --p-in, --p-out"),
        (("graph", "karate", "--groups", "3", "--evaluate"), "does not apply to graph karate"),
        (("graph", "karate"), "nothing to do"),
        (("graph", "karat", "--evaluate"), "GRAPH must be one of karate"),
        (("graph", "karate", "--evaluate", "--q", "0"), "p and q must be > 0"),
    ]:
        status, stdout, err = run_cli(*args)
        assert status == 2 and message in err and err.count("\n") == 1 and stdout == "", (args, err)


def test_graph_names_on_the_help_page_are_the_librarys():
    from embedlab.cli import choices
    from embedlab.graphs import GRAPHS, embed

    assert choices.GRAPHS == tuple(GRAPHS) and choices.GRAPH_WINDOW == embed.GRAPH_WINDOW


def test_the_default_width_evaluates_a_graph_smaller_than_it(run_cli):
    """karate has 34 nodes: the spectral baseline stops at 32 dims while the walks' table keeps 128."""
    status, stdout, err = run_cli("graph", "karate", "--evaluate", "--threads", "1", "--json")
    assert status == 0, err
    answer = json.loads(stdout)
    assert answer["dim"] == 128 and answer["report"]["spectral_dim"] == 32
    ours, spectral = answer["report"]["ours"], answer["report"]["spectral"]
    assert ours["ari"] > 0.5 > spectral["ari"]  # the two clubs: walks find them, 32 Laplacian dims blur them
