"""bench/lab_load.py, briefly, against the session's real `embedlab lab` process: every endpoint of
its mix answers under concurrency, with no 5xx and no failed connection."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[2] / "bench" / "lab_load.py"


def _bench():
    spec = importlib.util.spec_from_file_location("lab_load", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["lab_load"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def test_concurrent_clients_get_no_server_errors(lab_url, capsys):
    bench = _bench()
    status = bench.main(["--url", lab_url, "--clients", "3", "--seconds", "2", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert status == 0, result["failures"]
    assert result["overall"]["5xx"] == 0 and result["failures"] == []
    assert set(result["endpoints"]) == {name for name, _, _ in bench.REQUESTS}
    assert result["overall"]["p50_ms"] <= result["overall"]["p95_ms"]


def test_its_bounds_are_named(capsys):
    bench = _bench()
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--clients", "65"])
    assert exit_info.value.code == 2
    assert "--clients must be between 1 and 64; got 65" in capsys.readouterr().err
