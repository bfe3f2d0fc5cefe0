"""`embedlab export TABLE --out x.ftz [--dsub N] [--qnorm]`: a table product-quantized as fastText's
.ftz, read back by `embedlab neighbors` and by the fastText tool; options that cannot apply refused."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tests.vectors.tool_models import PRINTED, print_word_vectors

from embedlab.vectors import Vectors
from embedlab.vectors.io.fasttext import read_fasttext


@pytest.fixture(scope="module")
def table_file(tmp_path_factory, minilm_vectors):
    """MiniLM's first 3,000 rows as word2vec text (384 wide)."""
    path = tmp_path_factory.mktemp("tables") / "minilm-3k.txt"
    Vectors(minilm_vectors.index_to_key[:3000], minilm_vectors.vectors[:3000]).save(path)
    return path


def test_export_writes_a_ftz_the_tool_and_neighbors_read(run_cli, tmp_path, table_file):
    out = tmp_path / "t.ftz"
    status, stdout, err = run_cli("export", str(table_file), "--out", str(out), "--dsub", "8", "--qnorm", "--json")
    assert status == 0 and err == "", err
    answer = json.loads(stdout)
    assert answer["format"] == "ftz" and answer["quantizer"] == {"dsub": 8, "qnorm": True}
    assert answer["files"] == [str(out)] and answer["bytes"] == out.stat().st_size
    model = read_fasttext(out)
    assert model.input.codes.shape == (3000, 384 // 8) and model.input.qnorm
    back = Vectors.load(out)
    words = ["the", "and", "for"]
    rows = back.vectors[[back.index_of(w) for w in words]]
    np.testing.assert_allclose(print_word_vectors(out, words), rows, **PRINTED)
    status, stdout, err = run_cli("neighbors", str(out), "the", "-k", "3", "--json")
    assert status == 0, err
    assert [n["key"] for n in json.loads(stdout)["neighbors"]] == list(back.most_similar("the", topn=3).keys)


def test_the_format_name_writes_a_ftz_at_any_path_and_says_its_quantizer(run_cli, tmp_path, table_file):
    out = tmp_path / "quantized.bin"
    status, stdout, err = run_cli("export", str(table_file), "--format", "ftz", "--out", str(out))
    assert status == 0, err
    assert stdout.startswith("wrote 3000 rows × 384 as ftz (dsub 2), ") and str(out) in stdout
    assert read_fasttext(out).input.pq.dsub == 2  # fastText's default


def test_a_ftz_is_replaced_only_with_force(run_cli, tmp_path, table_file):
    out = tmp_path / "t.ftz"
    out.write_bytes(b"old bytes")
    status, stdout, err = run_cli("export", str(table_file), "--out", str(out), "--dsub", "16")
    assert status == 2 and stdout == "" and err == f"error: {out} already exists; add --force to replace it\n"
    assert out.read_bytes() == b"old bytes"
    status, _, err = run_cli("export", str(table_file), "--out", str(out), "--dsub", "16", "--force")
    assert status == 0 and read_fasttext(out).input.pq.dsub == 16, err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--out", "{tmp}/t.ftz", "--dsub", "5"), "error: --dsub 5 must divide the table's width 384"),
        (("--out", "{tmp}/t.ftz", "--dsub", "0"), "error: --dsub must be >= 1; got 0"),
        (("--out", "{tmp}/t.txt", "--dsub", "4"), "error: --dsub 4 does not apply to word2vec, the format of"),
        (("--out", "{tmp}/t", "--format", "npy", "--qnorm"), "error: --qnorm does not apply to --format npy"),
        (("--out", "{tmp}/t.ftz", "--small"), "error: the table has 100 rows; product quantization needs at least 256"),
    ],
)
def test_what_cannot_be_quantized_is_one_line_exit_2_and_nothing_written(run_cli, tmp_path, table_file, args, message):
    source = table_file
    if "--small" in args:
        source = tmp_path.parent / f"{tmp_path.name}-small.txt"
        table = Vectors.load(table_file)
        Vectors(table.index_to_key[:100], table.vectors[:100]).save(source)
        args = args[:-1]
    status, stdout, err = run_cli("export", str(source), *(a.format(tmp=tmp_path) for a in args))
    assert status == 2 and stdout == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(message.format(tmp=tmp_path)), err
    assert list(tmp_path.iterdir()) == []
