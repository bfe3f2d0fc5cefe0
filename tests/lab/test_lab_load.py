"""bench/lab_load.py: it covers every route the lab registers (a route added without a call in the
bench fails here), and a short run against the session's real `embedlab lab` process answers every
call of its mix under concurrency, with no 5xx and no failed connection."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from embedlab.lab import create_app

BENCH = Path(__file__).parents[2] / "bench" / "lab_load.py"


def _bench():
    spec = importlib.util.spec_from_file_location("lab_load", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["lab_load"] = module  # dataclasses look their module up while the class is made
    sys.path.insert(0, str(BENCH.parent))  # its sibling module machine.py, as when run from bench/
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH.parent))
    return module


def test_every_route_the_lab_registers_is_in_the_bench(tmp_path):
    bench = _bench()
    openapi = create_app(["minilm"], cache=tmp_path).openapi()
    assert bench.uncovered(openapi) == []
    # and nothing in the bench that the lab no longer has
    assert {call.name for call in bench.CALLS} | set(bench.UNTIMED) == bench.routes(openapi)
    assert len(bench.CALLS) == len({call.name for call in bench.CALLS})  # one call per route


def test_a_route_missing_from_the_bench_is_named(tmp_path):
    bench = _bench()
    openapi = create_app(["minilm"], cache=tmp_path).openapi()
    openapi["paths"]["/api/new"] = {"get": {}}
    assert bench.uncovered(openapi) == ["GET /api/new"]


@pytest.mark.slow  # its warm-up asks every route once: vocabularies, a σ sweep, a small training run
def test_concurrent_clients_get_no_server_errors(lab_url, capsys):
    bench = _bench()
    status = bench.main(["--url", lab_url, "--clients", "3", "--seconds", "2", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert status == 0, result["failures"]
    assert result["overall"]["5xx"] == 0 and result["failures"] == [] and result["uncovered"] == []
    # lab_url serves MiniLM and a run folder, no subword table: one call is left out, and says why
    assert list(result["not_timed"]) == ["GET /api/subwords/unseen"]
    assert "subword table" in result["not_timed"]["GET /api/subwords/unseen"]
    # every other call answered its warm-up below 400 and is in the mix; the clients cycle through it
    # (in 2 s on a loaded machine they may not reach every call)
    assert set(result["mix"]) == {call.name for call in bench.CALLS} - set(result["not_timed"])
    assert set(result["routes"]) <= set(result["mix"])
    assert result["overall"]["p50_ms"] <= result["overall"]["p95_ms"]
    assert {"GET /api/attention", "GET /api/scale"} <= set(bench.queued_routes())


def test_its_bounds_are_named(capsys):
    bench = _bench()
    for option, value, message in [("--clients", "65", "--clients must be between 1 and 64; got 65"),
                                   ("--burners", "-1", "--burners must be between 0 and 16; got -1")]:  # fmt: skip
        with pytest.raises(SystemExit) as exit_info:
            bench.main([option, value])
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err
