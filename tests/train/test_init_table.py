"""A run's table started from another (init_from) or kept fixed (freeze): matched rows copied
exactly, the others at the run's own seeded init, the counts reported, a frozen table bit for bit
unchanged by training while the rest of the model learns, and a frozen run that resumes."""

from __future__ import annotations

import json
from itertools import islice

import numpy as np
import pytest
import torch
from safetensors.numpy import load_file

from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError, MissingDataError
from embedlab.tokenizer.bytes import piece_word
from embedlab.train.config import RunConfig
from embedlab.train.distributed import Dist
from embedlab.train.init_table import load_source, match_rows
from embedlab.train.lm_job import LMJob
from embedlab.train.run import train
from embedlab.vectors import Vectors

LM = dict(method="lm", dim=32, heads=2, context=32, vocab_size=300, batch_size=16, epochs=1, threads=1)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("init") / "wiki.txt"
    path.write_text("\n".join(islice(iter(open_corpus("enwiki-sample")), 200)), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def scratch(corpus, tmp_path_factory):
    """The lm trained from its own init: its keys, and (snapshot 0) its rows before training."""
    return train(RunConfig(corpus=corpus, **LM), tmp_path_factory.mktemp("init") / "scratch", evaluate=False)


@pytest.fixture(scope="module")
def source(scratch, tmp_path_factory):
    """A word-keyed table of width 32: half the lm's whole-word pieces as words, and words it lacks."""
    words = [w for w in map(piece_word, Vectors.load(scratch.path).index_to_key) if w is not None]
    keys = words[::2] + ["zzzunseen", "qqqabsent"]
    rows = np.random.default_rng(7).normal(size=(len(keys), 32)).astype(np.float32)
    path = tmp_path_factory.mktemp("init") / "words.txt"
    Vectors(keys, rows).save(path)
    return path, len(words[::2])


def test_whole_word_pieces_take_a_word_tables_rows_and_no_other_piece_does():
    source = Vectors(["king", "sking", "x"], np.arange(6, dtype=np.float32).reshape(3, 2))
    run_rows, source_rows = match_rows(["king", "Ġking", "Ġsking", "x"], source, pieces=True)
    assert run_rows.tolist() == [1, 2] and source_rows.tolist() == [0, 1]  # "king" inside a word is not "king"
    pieces = Vectors(["Ġking", "king"], np.zeros((2, 2), dtype=np.float32))  # another lm's table: keys as they are
    assert [a.tolist() for a in match_rows(["king", "Ġking", "Ġqueen"], pieces, pieces=True)] == [[0, 1], [1, 0]]
    words = Vectors(["king"], np.zeros((1, 2), dtype=np.float32))  # a word2vec run: words match words
    assert [a.tolist() for a in match_rows(["queen", "king"], words, pieces=False)] == [[1], [0]]


def test_frozen_pretrained_rows_are_the_sources_and_the_rest_the_runs_own_init(scratch, source, corpus, tmp_path):
    path, matched = source
    result = train(RunConfig(corpus=corpus, init_from=str(path), freeze=True, **LM), tmp_path / "run", evaluate=False)
    table, keys = Vectors.load(result.path).vectors, Vectors.load(result.path).index_to_key
    words = Vectors.load(path)
    assert result.metrics["init"] == {"source": str(path), "rows": len(keys), "matched": matched,
                                      "unmatched": len(keys) - matched, "frozen": True}  # fmt: skip
    copied = [i for i, k in enumerate(keys) if piece_word(k) in words.key_to_index]
    assert len(copied) == matched >= 5
    expected = words.vectors[[words.key_to_index[piece_word(keys[i])] for i in copied]]
    np.testing.assert_array_equal(table[copied], expected)  # bit for bit, after a whole epoch of steps
    # the unmatched rows are the scratch run's rows before training (same seed): its first snapshot
    snapshots = load_file(scratch.path / "snapshots.safetensors")
    before = dict(zip(snapshots["ids"].tolist(), snapshots["vectors"][0], strict=True))
    kept = [i for i in before if i not in set(copied)]
    assert len(kept) >= 4
    np.testing.assert_array_equal(table[kept], np.stack([before[i] for i in kept]))


def test_a_frozen_table_is_bit_identical_after_steps_while_every_other_parameter_learns(corpus, tmp_path):
    job = LMJob.create(open_corpus(corpus), RunConfig(corpus=corpus, freeze=True, **LM), tmp_path, False, Dist())
    try:
        before = {name: p.detach().clone() for name, p in job.model.named_parameters(remove_duplicate=False)}
        assert job.model.head.weight is job.model.embed.token.weight  # tied: the head is the fixed table too
        for _ in islice(job.steps(0, 0), 3):
            pass
        after = dict(job.model.named_parameters(remove_duplicate=False))
        table = "embed.token.weight"
        assert torch.equal(after[table], before[table]) and torch.equal(after["head.weight"], before[table])
        changed = [name for name in before if name not in (table, "head.weight")]
        assert changed and all(not torch.equal(after[n], before[n]) for n in changed), changed
        assert all(p is not after[table] for group in job.optimizer.param_groups for p in group["params"])
    finally:
        job.close()


def test_without_freeze_the_source_rows_start_the_table_and_then_train(scratch, source, corpus, tmp_path):
    path, matched = source
    words = Vectors.load(path)
    keys = Vectors.load(scratch.path).index_to_key
    watch = [k for k in keys if piece_word(k) in words.key_to_index][:5]  # pieces: "the" may be a key of its own
    config = RunConfig(corpus=corpus, init_from=str(path), **LM)
    result = train(config, tmp_path / "run", evaluate=False, watch=watch)
    snapshots = load_file(result.path / "snapshots.safetensors")
    np.testing.assert_array_equal(
        snapshots["vectors"][0], words.vectors[[words.key_to_index[piece_word(w)] for w in watch]]
    )
    assert not np.array_equal(snapshots["vectors"][-1], snapshots["vectors"][0])  # trained on
    assert result.metrics["init"]["matched"] == matched and result.metrics["init"]["frozen"] is False


def test_a_word2vec_run_starts_its_input_rows_from_a_table(small_text, tmp_path):
    settings = dict(corpus=str(small_text), dim=8, epochs=1, threads=1)
    reference = train(RunConfig(**settings), tmp_path / "reference", evaluate=False, watch=["the", "of", "and"])
    table = tmp_path / "start.txt"
    Vectors(["of", "nothere"], np.full((2, 8), 0.5, dtype=np.float32)).save(table)
    config = RunConfig(**settings, init_from=str(table))
    result = train(config, tmp_path / "run", evaluate=False, watch=["the", "of", "and"])
    first = load_file(result.path / "snapshots.safetensors")["vectors"][0]
    np.testing.assert_array_equal(first[1], np.full(8, 0.5, dtype=np.float32))
    np.testing.assert_array_equal(
        first[[0, 2]], load_file(reference.path / "snapshots.safetensors")["vectors"][0][[0, 2]]
    )
    init = result.metrics["init"]
    assert (init["matched"], init["unmatched"], init["rows"]) == (1, init["rows"] - 1, result.metrics["vocabulary"])


def test_a_stopped_frozen_run_resumes_to_the_uninterrupted_runs_end_without_its_source(source, corpus, tmp_path):
    path, _ = source
    copy = tmp_path / "copy.txt"
    copy.write_bytes(path.read_bytes())
    config = RunConfig(corpus=corpus, init_from=str(copy), freeze=True, **LM)
    whole = train(config, tmp_path / "whole", evaluate=False)
    steps = iter(range(1000))
    stopped = train(config, tmp_path / "run", evaluate=False, should_stop=lambda: next(steps) == 5)
    assert stopped.status == "stopped"
    saved = json.loads((tmp_path / "run" / "run.json").read_text())["config"]
    assert (saved["init_from"], saved["freeze"]) == (str(copy), True)
    copy.unlink()  # the start is in the checkpoint: a resume does not read the source again
    resumed = train(RunConfig(corpus=corpus, **LM), tmp_path / "run", resume=True, evaluate=False)
    assert resumed.metrics["init"] == whole.metrics["init"]
    assert resumed.metrics["validation_loss"] == whole.metrics["validation_loss"]
    np.testing.assert_array_equal(Vectors.load(resumed.path).vectors, Vectors.load(whole.path).vectors)


def test_a_source_of_another_width_or_name_is_refused_naming_it(source):
    path, _ = source
    with pytest.raises(InvalidValueError, match=r"width 32; the run's table has width 64"):
        load_source(str(path), 64)
    with pytest.raises(MissingDataError, match="no-such-table"):
        load_source("no-such-table", 32)
    with pytest.raises(InvalidValueError, match="freeze keeps an lm's token table fixed; got method sgns"):
        RunConfig(corpus="gcide", freeze=True)
    with pytest.raises(InvalidValueError, match="subword run"):
        RunConfig(corpus="gcide", init_from=str(path), subwords=True)


def test_the_cli_reports_the_start_and_refuses_bad_tables_in_one_line(run_cli, source, corpus, tmp_path):
    path, matched = source
    args = ["train", corpus, "--method", "lm", "--dim", "32", "--vocab-size", "300", "--no-evaluate"]
    status, _, err = run_cli(*args, "--out", str(tmp_path / "a"), "--init-from", "no-such-table")
    assert status == 2 and err.count("\n") == 1 and "no-such-table" in err
    status, _, err = run_cli("train", corpus, "--method", "lm", "--out", str(tmp_path / "b"), "--init-from", str(path))
    assert status == 2 and err.count("\n") == 1 and "width 32; the run's table has width 128" in err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    status, _, err = run_cli("train", corpus, "--out", str(tmp_path / "c"), "--freeze")
    assert status == 2 and "freeze" in err
    status, out, err = run_cli(*args, "--out", str(tmp_path / "d"), "--init-from", str(path), "--freeze")
    assert status == 0, err
    assert f"{matched} rows matched, {300 - matched} at the run's init; frozen" in out
