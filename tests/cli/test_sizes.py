"""Every size option given an absurd value: one line naming the size, exit 2, before any work.

Sizes that would be allocated are set against the machine's memory (embedlab.sizing.memory.check_memory):
the line names the size, what it would need and what is available. Sizes with a fixed range say
the range. The others are not allocated at their value and are answered: `size` only counts,
-k and --restrict-vocab are cut to the table, --dims to the row.
"""

from __future__ import annotations

import json

import pytest

from embedlab.sizing.memory import available_memory

HUGE = "100000000000000"  # 10^14: as a table width, petabytes; no machine has it


@pytest.fixture
def corpus(tmp_path):
    """300 distinct words, each 3 times: a vocabulary of 300 at --min-count 1."""
    path = tmp_path / "corpus.txt"
    path.write_text("".join(f"w{i} w{i} w{i}\n" for i in range(300)), encoding="utf-8")
    return path


def _one_line(run_cli, *args: str) -> str:
    status, out, err = run_cli(*args)
    assert status == 2 and out == "", (args, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def _memory_refusal(err: str, size: str) -> None:
    assert size in err and "needs at least" in err and "available on this machine" in err, err


@pytest.mark.parametrize(
    ("option", "shown"),
    [
        (("--dim", HUGE), "dim 100,000,000,000,000"),
        (("--window", HUGE), "window 100,000,000,000,000"),
        (("--negative", HUGE), "negative 100,000,000,000,000"),
        (("--method", "lm", "--dim", HUGE), "dim 100,000,000,000,000"),
        (("--method", "lm", "--dim", "4096", "--vocab-size", "1000000"), "vocab_size 1,000,000"),
    ],
    ids=["dim", "window", "negative", "lm-dim", "lm-vocab-size"],
)
def test_train_sizes_against_memory(run_cli, corpus, tmp_path, option, shown):
    out = tmp_path / "run"
    word2vec = () if "lm" in option else ("--min-count", "1")  # an lm keeps every piece: --min-count is refused
    err = _one_line(run_cli, "train", str(corpus), "--out", str(out), *word2vec, *option)
    _memory_refusal(err, shown)
    assert not out.exists()  # refused before the folder was made


def test_train_sizes_the_tables_once_the_words_are_counted(run_cli, corpus, tmp_path):
    """A width whose tables fit only without the vocabulary: refused once the 300 words are counted."""
    words = 300
    # the tables take 2 float32 rows a word (8·words·dim bytes): 5 times the memory available. Before
    # counting, only each thread's scratch is known (80·dim at window 5, 2 threads): 1/6 of it.
    dim = 5 * available_memory() // (8 * words)
    out = tmp_path / "run"
    err = _one_line(run_cli, "train", str(corpus), "--out", str(out), "--min-count", "1", "--dim", str(dim))
    _memory_refusal(err, f"dim {dim:,} on {words} words")


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (("--threads", HUGE), "threads must be between 1 and 1024"),
        (("--method", "lm", "--vocab-size", HUGE), "--vocab-size must be between 257 and 1000000"),
    ],
)
def test_train_sizes_with_a_range(run_cli, corpus, tmp_path, option, message):
    err = _one_line(run_cli, "train", str(corpus), "--out", str(tmp_path / "run"), *option)
    assert message in err


def test_tokenizer_vocab_size_against_memory(run_cli, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat\n", encoding="utf-8")
    out = tmp_path / "tok.json"
    err = _one_line(run_cli, "tokenizer", "train", str(corpus), "--vocab-size", HUGE, "--out", str(out))
    _memory_refusal(err, f"--vocab-size {int(HUGE):,}")
    assert "--reference does not" in err and not out.exists()
    # the reference trainer allocates nothing per token: it merges until the text has no pair left
    status, stdout, err = run_cli(
        "tokenizer", "train", str(corpus), "--vocab-size", HUGE, "--out", str(out), "--reference", "--json"
    )
    assert status == 0, err
    assert json.loads(stdout)["vocab_size"] < 300


def test_size_counts_any_size(run_cli):
    """`embedlab size` is arithmetic: a layout no machine could hold is counted exactly."""
    status, out, err = run_cli("size", "--vocab", HUGE, "--dim", HUGE, "--untied", "--json")
    assert status == 0, err
    assert json.loads(out)["total_params"] == 2 * int(HUGE) ** 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("compare", "minilm", "minilm", "-k", HUGE), "k must be between 1 and 100"),
        (("compare", "minilm", "minilm", "--top", HUGE), "top must be between 1 and 1000"),
        (
            ("compare", "minilm", "minilm", "--evaluate", "--resamples", HUGE),
            "resamples must be an integer between 100 and 100,000",
        ),
        (("evaluate", "minilm", "--resamples", HUGE), "resamples must be"),
        (("context", "a bank", "the bank", "--word", "bank", "--nearest", HUGE), "-k must be between 0 and 100"),
        (("context", "a bank", "the bank", "--word", "bank", "--layer", HUGE), "--layer must be between 0 and 6"),
        (("lab", "--port", HUGE), "port must be between 1 and 65535"),
    ],
    ids=["compare-k", "compare-top", "compare-resamples", "evaluate-resamples", "nearest", "layer", "port"],
)
def test_sizes_with_a_range(run_cli, args, message):
    assert message in _one_line(run_cli, *args)


@pytest.mark.parametrize("option", [("-k", HUGE), ("--restrict-vocab", HUGE, "-k", "3")], ids=["k", "restrict-vocab"])
def test_neighbors_cuts_sizes_to_the_table(run_cli, minilm_vectors, option):
    status, out, err = run_cli("neighbors", "minilm", "king", *option, "--json")
    assert status == 0, err
    found = json.loads(out)["neighbors"]
    assert len(found) == (len(minilm_vectors) - 1 if option[0] == "-k" else 3)  # every key but king, or k


def test_embed_cuts_dims_to_the_row(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "6000")  # room for MiniLM's 384 coordinates side by side
    status, out, err = run_cli("embed", "cat", "--dims", HUGE)
    assert status == 0, err
    assert "Rows: the first 384 of 384 coordinates" in out and "x383" in out and "x384" not in out


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (("planted", "--groups", "100000", "--size", "100000", "--p-in", "0.5", "--p-out", "0.1"),
         "a planted partition of 100,000 blocks of 100,000 nodes"),
        (("karate", "--walks", "1000000000000"), "34,000,000,000,000 walks of 80 nodes on karate"),
    ],
    ids=["planted", "walks"],
)  # fmt: skip
def test_graph_sizes_against_memory(run_cli, tmp_path, args, shown):
    out = tmp_path / "nodes.txt"
    _memory_refusal(_one_line(run_cli, "graph", *args, "--dim", "4", "--out", str(out)), shown)
    assert not out.exists()
