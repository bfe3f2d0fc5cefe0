"""`embedlab context` end to end on the built-in MiniLM encoder."""

from __future__ import annotations

import json

RIVER = "he sat on the river bank and watched the water"
MONEY = "she paid the cheque into the bank"


def test_json_gives_every_layer_and_vector(run_cli):
    status, out, err = run_cli("context", RIVER, MONEY, "--word", "bank", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["model"] == "minilm" and data["word_pieces"] == ["bank"] and data["pooling"] == "mean"
    assert [v["layer"] for v in data["layers"]] == list(range(7))
    cosines = [v["cosines"][0][1] for v in data["layers"]]
    assert cosines[0] > 0.95 and cosines[-1] < 0.85  # same row in, two different vectors out
    assert all(len(vec) == 384 for v in data["layers"] for vec in v["vectors"])
    assert data["layers"][0]["nearest"][0][0]["piece"] == "bank"


def test_table_and_one_layer(run_cli):
    status, out, _ = run_cli("context", RIVER, MONEY, "--word", "bank")
    assert status == 0
    assert "'bank' (bank: one piece) in 2 texts" in out and "cos 1·2" in out
    assert "Closest static token rows to each vector at layer 6" in out
    status, out, _ = run_cli("context", RIVER, MONEY, "-w", "bank", "--layer", "0", "--json")
    assert status == 0 and [v["layer"] for v in json.loads(out)["layers"]] == [0]


def test_bad_input_is_one_line_and_exit_2(run_cli):
    for args, message in [
        (("context", RIVER, "--word", "bank"), "error: give at least 2 texts"),
        (("context", RIVER, "a cat", "--word", "bank"), "error: the word 'bank' (pieces: bank) is not in text 1"),
        (("context", RIVER, MONEY, "--word", "bank", "--layer", "7"), "error: --layer must be between 0 and 6"),
        (("context", RIVER, MONEY, "-w", "bank", "--pooling", "max"), "error: --pooling must be one of mean, first"),
        (("context", RIVER, MONEY), "error: Missing option '--word'"),
        (("context", "I love ☃ snow", "the ♞ knight", "--word", "✈"), "error: the word '✈' is outside this"),
    ]:
        status, out, err = run_cli(*args)
        assert status == 2, args
        assert out == "" and err.startswith(message), (args, err)
        assert err.count("\n") == 1 and "Traceback" not in err
