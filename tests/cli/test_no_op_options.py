"""A starting point or a filter that matches nothing is an error, never a silent no-op: --init-from a
table that shares no key with the run, --strategies/--tasks lists that name nothing."""

from __future__ import annotations

import pytest


@pytest.fixture
def files(tmp_path):
    (tmp_path / "c.txt").write_text("the cat sat on the mat\n" * 400, encoding="utf-8")
    # width 8, one key no run of c.txt has (as words or as BPE pieces)
    (tmp_path / "other.txt").write_text("1 8\nzzqx 0 0 0 0 0 0 0 1\n", encoding="utf-8")
    return tmp_path


NO_OPS = [
    (("train", "{c}", "--out", "{out}", "--dim", "8", "--min-count", "1", "--init-from", "{other}"),
     "--init-from '{other}' shares no key with the run's"),
    (("train", "{c}", "--out", "{out}", "--method", "lm", "--dim", "8", "--vocab-size", "300", "--init-from",
      "{other}"), "--init-from '{other}' shares no key with the run's"),
    (("arena", "--quick", "--strategies", ",", "--out", "{out}"), "--strategies ',' names nothing"),
    (("arena", "--quick", "--tasks", " ", "--out", "{out}"), "--tasks ' ' names nothing"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), NO_OPS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_an_option_that_would_do_nothing_is_refused(run_cli, files, args, message):
    names = {"c": files / "c.txt", "other": files / "other.txt", "out": files / "out"}
    last = "--json" if args[0] == "arena" else "--no-evaluate"
    status, stdout, err = run_cli(*(a.format(**names) for a in args), last)
    assert status == 2 and stdout == "", err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert message.format(**names) in err, err
