"""`embedlab size`, run in-process through the real entry point, and once as a console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.timeouts import COMMAND_S

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


def test_a_hashed_128k_vocabulary_at_one_tenth_of_the_rows(run_cli):
    code, out, err = run_cli("size", "--vocab", "128000", "--dim", "1024", "--hashed-rows", "12800", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert (d["vocab_table"], d["token_rows"], d["token_params"]) == ("hashed", 12_800, 12_800 * 1_024)
    assert d["bytes"] == 4 * 12_800 * 1_024 == 52_428_800
    code, out, _ = run_cli("size", "--vocab", "128000", "--dim", "1024", "--hashed-rows", "12800", "--hash-count", "2")
    assert code == 0
    assert "12800×1024 + 12800×2" in out and f"{12_800 * 1_026:,}" in out  # rows, and (K, k) importance weights
    assert "128,000 ids hashed into 12,800 rows (10 ids a row)" in out


def test_quotient_remainder_and_adaptive_options(run_cli):
    code, out, _ = run_cli("size", "--preset", "llama-3-8b", "--qr-buckets", "359", "--qr-op", "add", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["token_params"] == (358 + 359) * 4096  # ceil(128,256 / 359) = 358 quotients
    assert d["output_params"] == 128_256 * 4096  # the preset's untied head stays a full table
    args = ("size", "--vocab", "128000", "--dim", "1024", "--adaptive-cutoffs", "20000,60000", "--div-value", "4")
    code, out, _ = run_cli(*args, "--json")
    d = json.loads(out)
    bands = 20_000 * 1_024 + 40_000 * 256 + 68_000 * 64
    assert d["token_params"] == bands + (256 + 64) * 1_024 == 35_399_680
    assert (d["output_params"], d["adaptive_cutoffs"]) == (2 * 1_024, [20_000, 60_000])
    code, out, _ = run_cli(*args)
    assert code == 0 and "bands 1024/256/64" in out and "2×1024 clusters" in out


def test_albert_factorised_table_beside_the_plain_one(run_cli):
    code, out, err = run_cli("size", "--vocab", "30000", "--dim", "768", "--factor-dim", "128", "--json")
    assert code == 0, err
    d = json.loads(out)  # ALBERT-base's V, E and H: V·E + E·H, tied (its head reads the same two matrices)
    assert (d["vocab_table"], d["token_params"], d["output_params"]) == ("factorized", 3_938_304, 0)
    assert (
        (d["plain_token_params"], d["plain_token_bytes"])
        == (30_000 * 768, 4 * 30_000 * 768)
        == (23_040_000, 92_160_000)
    )
    code, out, _ = run_cli("size", "--vocab", "30000", "--dim", "768", "--factor-dim", "128", "--untied", "--json")
    assert json.loads(out)["output_params"] == 30_000 * 768  # an untied head is a full table
    code, out, _ = run_cli("size", "--vocab", "30000", "--dim", "768", "--factor-dim", "128", "--dtype", "fp16")
    assert code == 0 and "30000×128 + 128×768" in out and "5.85× fewer parameters" in out
    assert "plain token" in out and "46,080,000" in out  # the plain table's bytes in fp16, beside
    code, out, _ = run_cli("size", "--preset", "bert-base", "--json")
    assert "plain_token_params" not in json.loads(out)  # only beside a factorised table


def test_activations_beside_the_parameters(run_cli):
    code, out, err = run_cli("size", "--preset", "bert-base", "--batch", "32", "--seq", "512", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert (d["batch"], d["seq"], d["activation_bytes"]) == (32, 512, 32 * 512 * 768 * 4)
    assert d["total_params"] == 23_835_648  # the parameters are unchanged
    code, out, _ = run_cli("size", "--preset", "vit-b-16", "--batch", "256", "--dtype", "bf16", "--json")
    d = json.loads(out)
    assert (d["seq"], d["activation_bytes"]) == (197, 256 * 197 * 768 * 2)  # T = 196 patches + CLS
    code, out, _ = run_cli("size", "--preset", "bert-base", "--batch", "32", "--seq", "512")
    assert code == 0
    assert "32×512×768" in out and f"{32 * 512 * 768 * 4:,}" in out and "48.00" in out
    code, out, _ = run_cli("size", "--preset", "bert-base", "--json")
    assert "activation_bytes" not in json.loads(out)  # only when asked for


BAD_INPUTS = [
    (["--preset", "nope"], "nope"),
    (["--vocab", "10", "--dim", "0"], "dim must be >= 1; got 0"),
    (["--preset", "gpt2", "--dtype", "fp64"], "fp64"),
    (["--vocab", "10", "--dim", "8", "--positions", "alibi"], "alibi"),
    ([], "--preset"),  # nothing to size: the message says what to pass
    (["--vocab", "10"], "--dim"),
    (["--vocab", "10", "--dim", "x"], "--dim"),  # a parse error, not a library one
    (
        ["--vocab", "100", "--dim", "8", "--hashed-rows", "0"],
        "'--hashed-rows': Input should be greater than or equal to 1",
    ),
    (["--vocab", "100", "--dim", "8", "--hashed-rows", "101"], "--hashed-rows must be between 1 and 100; got 101"),
    (["--vocab", "100", "--dim", "8", "--hashed-rows", "10", "--hash-count", "0"], "--hash-count must be >= 1; got 0"),
    (["--vocab", "100", "--dim", "8", "--qr-buckets", "101"], "--qr-buckets must be between 1 and 100; got 101"),
    (["--vocab", "100", "--dim", "7", "--qr-buckets", "9", "--qr-op", "concat"], "dim must be even for concat"),
    (
        ["--vocab", "100", "--dim", "8", "--adaptive-cutoffs", "60,20"],
        "must increase, each between 1 and 99; got 60,20",
    ),
    (["--vocab", "100", "--dim", "8", "--adaptive-cutoffs", "20,100"], "cutoff must be between 1 and 99; got 100"),
    (["--vocab", "100", "--dim", "8", "--adaptive-cutoffs", "2O"], "whole numbers separated by commas"),
    (["--vocab", "100", "--dim", "8", "--adaptive-cutoffs", "20,40", "--div-value", "4"], "dim must be >= 16"),
    (["--vocab", "100", "--dim", "8", "--hashed-rows", "10", "--qr-buckets", "9"], "one kind"),
    (["--vocab", "100", "--dim", "8", "--factor-dim", "9"], "--factor-dim must be between 1 and 8; got 9"),
    (
        ["--vocab", "100", "--dim", "8", "--factor-dim", "0"],
        "'--factor-dim': Input should be greater than or equal to 1",
    ),
    (["--vocab", "100", "--dim", "8", "--factor-dim", "2", "--adaptive-cutoffs", "20"], "one kind"),
    (["--preset", "vit-b-16", "--factor-dim", "128"], "factor_dim needs a text layout"),
    (["--preset", "bert-base", "--batch", "0", "--seq", "8"], "'--batch': Input should be greater than or equal to 1"),
    (["--preset", "bert-base", "--batch", "2", "--seq", "0"], "'--seq': Input should be greater than or equal to 1"),
    (["--preset", "bert-base", "--batch", "2", "--seq", "513"], "seq must be at most max_len 512"),
    (["--preset", "bert-base", "--batch", "2"], "a text layout needs seq"),
    (["--preset", "bert-base", "--seq", "8"], "--seq 8 needs --batch B"),
    (["--preset", "vit-b-16", "--batch", "2", "--seq", "8"], "T is fixed, N + 1 = 197"),
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
        timeout=COMMAND_S,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: unknown preset 'nope'")


def test_combine_concat_reports_the_width_and_the_cost_of_a_block(run_cli):
    code, out, err = run_cli(
        "size", "--preset", "bert-base", "--combine", "concat", "--batch", "2", "--seq", "8", "--json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["combine"]["width"] == 2304 and report["combine"]["block_params"] == 63_730_944
    assert report["activation_bytes"] == 2 * 8 * 2304 * 4  # X is 2304 wide
    code, out, _ = run_cli("size", "--preset", "bert-base", "--combine", "concat")
    assert "X = [token | position | segment], width 2,304 (3 × 768)" in out
    assert "63,730,944 parameters (12·W² + 13·W), 8.99 × one at 768" in out
    code, _, err = run_cli("size", "--preset", "bert-base", "--combine", "stack")
    assert code == 2 and "stack" in err


def test_the_token_table_stored_four_ways_json(run_cli):
    code, out, err = run_cli("size", "--preset", "bert-base", "--dsub", "4", "--qnorm", "--json")
    assert code == 0, err
    stored = json.loads(out)["token_stored"]
    V, D = 30522, 768
    assert (stored["rows"], stored["fp32"], stored["fp16"], stored["int8"]) == (V, 4 * V * D, 2 * V * D, V * D)
    q = stored["quantized"]
    assert (q["dsub"], q["qnorm"], q["codes"], q["codebooks"], q["norms"]) == (4, True, V * 192, 256 * D * 4, V + 1024)
    assert q["bytes"] == V * 192 + 256 * D * 4 + V + 1024
    code, out, _ = run_cli("size", "--vocab", "100", "--dim", "8", "--json")  # too few rows for 256 centroids
    assert json.loads(out)["token_stored"]["quantized"] is None
    code, out, _ = run_cli("size", "--image-size", "224", "--patch-size", "16", "--dim", "768", "--json")
    assert json.loads(out)["token_stored"] is None  # no token table


def test_the_token_table_stored_four_ways_table(run_cli):
    code, out, err = run_cli("size", "--preset", "bert-base")
    assert code == 0, err
    assert "token table 30,522×768 stored as" in out
    assert "product-quantized, dsub 2   12,506,880" in out  # 30,522 × 384 + 786,432
    assert "30,522 × 384 code bytes + 256 × 768 × 4 codebook bytes" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--preset", "bert-base", "--dsub", "0"), "error: --dsub must be between 1 and 768; got 0"),
        (("--vocab", "30000", "--dim", "768", "--factor-dim", "128", "--qnorm"),
         "error: --qnorm does not apply to a factorized token table"),
        (("--image-size", "224", "--patch-size", "16", "--dim", "768", "--dsub", "4"),
         "error: --dsub 4 does not apply to an image layout"),
    ],
)  # fmt: skip
def test_quantizer_options_that_cannot_apply_are_refused(run_cli, args, message):
    code, out, err = run_cli("size", *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith(message), err
