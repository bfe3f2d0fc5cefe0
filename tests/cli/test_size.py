"""`embedlab size`, run in-process through the real entry point, and once as a console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from embedlab.sizing import PRESETS


def test_preset_json(run_cli):
    code, out, err = run_cli("size", "--preset", "bert-base", "--json")
    assert code == 0, err
    d = json.loads(out)  # exactly one JSON object, nothing else on stdout
    assert d["total_params"] == 30522 * 768 + 512 * 768 + 2 * 768 == 23_835_648
    assert d["segment_params"] == 2 * 768
    assert d["dtype"] == "fp32"


def test_custom_layout_json(run_cli):
    code, out, err = run_cli(
        "size",
        "--vocab",
        "100000",
        "--dim",
        "2048",
        "--tied",
        "--positions",
        "learned",
        "--max-len",
        "4096",
        "--dtype",
        "fp16",
        "--json",
    )
    assert code == 0, err
    d = json.loads(out)
    assert d["total_params"] == 100_000 * 2_048 + 4_096 * 2_048 == 213_188_608
    assert d["bytes"] == 2 * 213_188_608 == 426_377_216
    assert d["output_params"] == 0


def test_options_override_the_preset(run_cli):
    code, out, _ = run_cli("size", "--preset", "gpt2", "--untied", "--dtype", "bf16", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["output_params"] == 50257 * 768
    assert d["total_params"] == 2 * 50257 * 768 + 1024 * 768
    assert d["max_len"] == 1024  # fields not given keep the preset's value


def test_custom_vit_layout(run_cli):
    code, out, _ = run_cli(
        "size",
        "--image-size",
        "384",
        "--patch-size",
        "16",
        "--channels",
        "3",
        "--dim",
        "1024",
        "--positions",
        "learned",
        "--json",
    )
    assert code == 0
    d = json.loads(out)
    assert d["patch_params"] == 3 * 16 * 16 * 1024 + 1024
    assert d["position_params"] == (24 * 24 + 1) * 1024  # 384 / 16 = 24 patches a side, + CLS


def test_segments_option(run_cli):
    code, out, _ = run_cli("size", "--vocab", "100", "--dim", "8", "--segments", "3", "--json")
    assert code == 0
    assert json.loads(out)["segment_params"] == 24


def test_table_output_has_every_row_and_the_total(run_cli):
    code, out, _ = run_cli("size", "--preset", "bert-base")
    assert code == 0
    assert "23,835,648" in out  # total params
    assert f"{23_835_648 * 4:,}" in out  # total bytes in fp32
    for name in ("token", "position", "segment", "output", "patch", "cls", "total"):
        assert name in out


def test_list_presets_json(run_cli):
    code, out, _ = run_cli("size", "--list-presets", "--json")
    assert code == 0
    d = json.loads(out)
    assert set(d) == set(PRESETS)
    assert d["bert-base"]["vocab_size"] == 30522
    assert d["llama-3-8b"]["tied"] is False


def test_list_presets_table(run_cli):
    code, out, _ = run_cli("size", "--list-presets")
    assert code == 0
    for name in PRESETS:
        assert name in out


BAD_INPUTS = [
    (["--preset", "nope"], "nope"),
    (["--vocab", "10", "--dim", "0"], "dim must be >= 1; got 0"),
    (["--preset", "gpt2", "--dtype", "fp64"], "fp64"),
    (["--vocab", "10", "--dim", "8", "--positions", "alibi"], "alibi"),
    ([], "--preset"),  # nothing to size: the message says what to pass
    (["--vocab", "10"], "--dim"),
    (["--vocab", "10", "--dim", "x"], "--dim"),  # a parse error, not a library one
]


@pytest.mark.parametrize(("args", "needle"), BAD_INPUTS)
def test_bad_input_is_one_line_and_exit_2(run_cli, args, needle):
    code, out, err = run_cli("size", *args)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error:")
    assert needle in lines[0]
    assert "Traceback" not in err


def test_console_script_end_to_end():
    script = Path(sys.executable).parent / "embedlab"
    if not script.exists():
        pytest.skip(f"no console script next to {sys.executable}")
    env = {k: v for k, v in os.environ.items() if k != "EMBEDLAB_DEBUG"}
    proc = subprocess.run(
        [str(script), "size", "--preset", "nope"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: unknown preset 'nope'")
