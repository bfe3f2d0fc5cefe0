"""`embedlab embed` end to end on the built-in MiniLM model."""

from __future__ import annotations

import json

import torch


def test_json_output_holds_every_addend(run_cli):
    status, out, err = run_cli("embed", "the cat sat on the mat", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["pieces"] == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]"]
    assert data["ids"][:3] == [101, 1996, 4937]
    rows = {k: torch.tensor(v) for k, v in data["rows"].items()}
    assert set(rows) == {"token", "position", "segment", "total", "output"}
    torch.testing.assert_close(rows["total"], rows["token"] + rows["position"] + rows["segment"])
    torch.testing.assert_close(torch.tensor(data["norms"]["output"]), rows["output"].norm(dim=-1))


def test_table_output_and_pair(run_cli):
    status, out, _ = run_cli("embed", "the cat", "--pair", "a dog", "--dims", "2")
    assert status == 0
    assert "minilm: 7 pieces" in out and "‖tok‖" in out and "first 2 of 384" in out
    assert "dog" in out


def test_bad_input_is_one_line_and_exit_2(run_cli):
    for args, message in [
        (("embed", ""), "error: TEXT must be a non-empty string"),
        (("embed", "x", "--model", "nope"), "error: model 'nope' is neither a built-in name"),
        (("embed", "x", "--dims", "-1"), "error: --dims must be >= 0; got -1"),
        (("embed", "x", "--dims", "many"), "error: Invalid value for '--dims'"),
        (("embed",), "error: Missing argument 'TEXT'"),
    ]:
        status, out, err = run_cli(*args)
        assert status == 2, args
        assert out == "" and err.startswith(message), (args, err)
        assert err.count("\n") == 1 and "Traceback" not in err
