"""`embedlab classify`: train, test and predict end to end, printed as the fastText tool prints them;
files never replaced unasked, two runs of one model kept apart, bad text refused in one line with
nothing written, and a run killed with -9 resumed to the same bytes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from embedlab.data.gcide import domain_text

TOOL = shutil.which("fasttext")
KILL_TIMEOUT = 120  # seconds for a run to write its first checkpoint; it writes one every call (~0.1 s)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("classify")
    train, test = folder / "train.txt", folder / "test.txt"
    train.write_text("".join(domain_text(False).splitlines(keepends=True)[:2000]))
    test.write_text("".join(domain_text(True).splitlines(keepends=True)[:300]))
    return train, test


@pytest.fixture(scope="module")
def model(data, tmp_path_factory):
    from embedlab.cli import main

    out = tmp_path_factory.mktemp("model") / "m.bin"
    with pytest.raises(SystemExit) as done:
        main(["classify", "train", str(data[0]), "--out", str(out), "--epoch", "10", "--lr", "0.5",
              "--word-ngrams", "2", "--bucket", "20000", "--dim", "16", "--threads", "1"])  # fmt: skip
    assert done.value.code == 0
    return out


def test_train_says_what_it_wrote(data, tmp_path, run_cli):
    out = tmp_path / "m.bin"
    status, stdout, err = run_cli("classify", "train", str(data[0]), "--out", str(out), "--dim", "8", "--json")
    assert status == 0, err
    summary = json.loads(stdout)
    assert summary["out"] == str(out) and summary["bytes"] == out.stat().st_size
    assert summary["labels"] == 15 and summary["dim"] == 8 and summary["rows"] == summary["words"]  # no n-grams
    assert not Path(f"{out}.partial").exists()


def test_test_prints_what_the_tool_prints(model, data, run_cli):
    assert TOOL, "this test needs the fastText 0.9.2 tool: apt-get install fasttext"
    for k in ("1", "3"):
        status, stdout, err = run_cli("classify", "test", str(model), str(data[1]), "-k", k)
        theirs = subprocess.run([TOOL, "test", str(model), str(data[1]), k], capture_output=True, text=True, check=True)
        assert status == 0 and stdout == theirs.stdout, (stdout, theirs.stdout)


def test_test_json_and_per_label(model, data, run_cli):
    status, stdout, _ = run_cli("classify", "test", str(model), str(data[1]), "--per-label", "--json")
    answer = json.loads(stdout)
    assert answer["examples"] == 300 and 0.3 < answer["precision"] == answer["recall"] <= 1
    labels = answer["labels"]
    assert len(labels) == 15 and all(set(m) == {"f1", "precision", "recall"} for m in labels.values())
    status, stdout, _ = run_cli("classify", "test", str(model), str(data[1]), "--per-label")
    rows = stdout.splitlines()
    assert len(rows) == 15 + 3 and rows[0].startswith("F1-Score : ") and rows[-3] == "N\t300"


def test_predict_prints_labels_and_probabilities_as_the_tool(model, data, run_cli):
    assert TOOL, "this test needs the fastText 0.9.2 tool: apt-get install fasttext"
    status, stdout, _ = run_cli("classify", "predict", str(model), str(data[1]), "-k", "2")
    theirs = subprocess.run([TOOL, "predict-prob", str(model), str(data[1]), "2"], capture_output=True, text=True)
    ours, tool = [line.split() for line in stdout.splitlines()], [line.split() for line in theirs.stdout.splitlines()]
    assert status == 0 and len(ours) == len(tool) == 300
    assert [line[::2] for line in ours] == [line[::2] for line in tool]  # labels, word for word
    status, stdout, _ = run_cli("classify", "predict", str(model), str(data[1]), "--json", "--threshold", "0.5")
    predictions = json.loads(stdout)["predictions"]
    assert len(predictions) == 300 and all(len(p) <= 1 and all(prob >= 0.5 for _, prob in p) for p in predictions)


def test_an_existing_model_is_replaced_only_with_force(data, tmp_path, run_cli):
    out = tmp_path / "m.bin"
    out.write_bytes(b"keep")
    status, _, err = run_cli("classify", "train", str(data[0]), "--out", str(out), "--dim", "4")
    assert status == 2 and "already exists; add --force" in err and out.read_bytes() == b"keep"
    status, _, err = run_cli("classify", "train", str(data[0]), "--out", str(out), "--dim", "4", "--force")
    assert status == 0 and out.read_bytes()[:4] == b"\xba\x16\x4f\x2f"


def test_a_second_run_of_one_model_and_a_resume_with_nothing_to_resume_are_refused(data, tmp_path, run_cli):
    out = tmp_path / "m.bin"
    Path(f"{out}.partial").touch()  # another run's claim
    status, _, err = run_cli("classify", "train", str(data[0]), "--out", str(out), "--dim", "4")
    assert status == 2 and "another run is writing this model" in err and not out.exists()
    os.remove(f"{out}.partial")
    status, _, err = run_cli("classify", "train", str(data[0]), "--out", str(out), "--resume")
    assert status == 2 and "no checkpoint at" in err and not out.exists()


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("__label__a one two\nno label\n", "line 2 has no label"),
        ("__label__a one\n__label__a two\n", "2 or more labels"),
        (b"__label__a \xff\n__label__b x\n", "not UTF-8"),
    ],
)
def test_bad_text_is_refused_in_one_line_and_nothing_is_written(text, named, tmp_path, run_cli):
    path = tmp_path / "bad.txt"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    status, _, err = run_cli("classify", "train", str(path), "--out", str(tmp_path / "m.bin"), "--dim", "4")
    assert status == 2 and named in err and err.strip().count("\n") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt"]


def test_kill_9_then_resume_writes_the_same_bytes(data, tmp_path, run_cli):
    args = ["classify", "train", str(data[0]), "--dim", "10", "--epoch", "150", "--threads", "1", "--seed", "7"]
    reference = tmp_path / "reference.bin"
    assert run_cli(*args, "--out", str(reference))[0] == 0
    out = tmp_path / "m.bin"
    partial = Path(f"{out}.partial")
    embedlab = Path(sys.executable).parent / "embedlab"
    proc = subprocess.Popen(
        [str(embedlab), *args, "--out", str(out), "--checkpoint-every", "0"], stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + KILL_TIMEOUT
    try:
        while not (partial.exists() and partial.stat().st_size > 0):  # written atomically: whole when seen
            if proc.poll() is not None:
                pytest.fail(f"the run ended (exit {proc.returncode}) before its first checkpoint")
            if time.monotonic() > deadline:
                pytest.fail(f"no checkpoint within {KILL_TIMEOUT} s")
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL and not out.exists()
    status, _, err = run_cli(*args, "--out", str(out), "--resume")
    assert status == 0, err
    assert out.read_bytes() == reference.read_bytes() and not partial.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.bin", "reference.bin"]  # the killed run's file is gone


def test_quantize_writes_a_ftz_the_tool_predicts_with_as_we_do(model, data, tmp_path, run_cli):
    assert TOOL, "this test needs the fastText 0.9.2 tool: apt-get install fasttext"
    ftz = tmp_path / "m.ftz"
    status, stdout, err = run_cli("classify", "quantize", str(model), "--out", str(ftz), "--cutoff", "3000", "--qnorm",
                                  "--retrain", "--input", str(data[0]), "--threads", "1", "--json")  # fmt: skip
    assert status == 0, err
    summary = json.loads(stdout)
    assert summary["rows"] == 3000 and summary["bytes"] == ftz.stat().st_size < model.stat().st_size / 10
    status, stdout, _ = run_cli("classify", "predict", str(ftz), str(data[1]), "-k", "2")
    theirs = subprocess.run([TOOL, "predict-prob", str(ftz), str(data[1]), "2"], capture_output=True, text=True)
    assert [line.split()[::2] for line in stdout.splitlines()] == [
        line.split()[::2] for line in theirs.stdout.splitlines()
    ]
    ours = json.loads(run_cli("classify", "test", str(ftz), str(data[1]), "--json")[1])["precision"]
    full = json.loads(run_cli("classify", "test", str(model), str(data[1]), "--json")[1])["precision"]
    assert ours > full - 0.1  # 300 lines: a binomial sd of 0.03 each; a broken code book scores far lower


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--retrain", "--cutoff", "3000"], "--retrain needs --input DATA and --cutoff N"),
        (["--input", "x.txt"], "--input x.txt does not apply to a quantization without --retrain"),
        (["--dsub", "3"], "dsub"),
    ],
)
def test_quantize_refuses_what_cannot_apply(model, tmp_path, run_cli, args, named):
    out = tmp_path / "m.ftz"
    status, _, err = run_cli("classify", "quantize", str(model), "--out", str(out), *args)
    assert status == 2 and named in err and err.strip().count("\n") == 0 and not out.exists(), err
