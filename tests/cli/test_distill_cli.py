"""`embedlab distill` and `embedlab encode` end to end: the folder written, its vectors read back, the
teacher's own vectors, and bad input in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from embedlab.models.encoder import Encoder
from embedlab.vectors.static import StaticModel

TEXTS = ["the cat sat on the mat", "a dog lay on the rug", "stock markets fell"]


def test_distill_writes_a_folder_that_encode_reads(distilled_folder, run_cli):
    folder = distilled_folder / "m2v"
    summary = json.loads((distilled_folder / "summary.json").read_text())  # what --json printed
    rows = 30522 - 994 + 200  # the teacher's tokens less [unusedN], and --add-words 200
    assert summary["rows"] == rows and summary["dim"] == 64 and summary["dtype"] == "float32"
    assert summary["added_words"] == 200 and summary["words_from"] == "enwiki-sample"
    assert summary["bytes"] == sum(p.stat().st_size for p in folder.iterdir()) > rows * 64 * 4
    model = StaticModel.load(folder)
    assert model.rows.shape == (rows, 64) and model.rows.dtype == np.float32 and model.normalize
    status, out, err = run_cli("encode", str(folder), *TEXTS, "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["dim"] == 64 and data["texts"] == TEXTS
    np.testing.assert_allclose(data["vectors"], model.encode(TEXTS), atol=1e-7)  # JSON keeps float32 exactly
    similarity = np.array(data["similarity"])
    assert similarity[0, 1] > similarity[0, 2] and np.allclose(np.diag(similarity), 1.0, atol=1e-6)
    status, out, _ = run_cli("encode", str(folder), *TEXTS)
    assert status == 0 and "cosine similarity:" in out and "'stock markets fell'" in out


def test_encode_reads_a_folder_model2vec_wrote(distilled_folder, run_cli, tmp_path):
    from model2vec import StaticModel as Model2Vec

    ours = StaticModel.load(distilled_folder / "m2v")
    Model2Vec(vectors=ours.rows, tokenizer=ours.tokenizer, normalize=True).save_pretrained(tmp_path / "theirs")
    status, out, err = run_cli("encode", str(tmp_path / "theirs"), *TEXTS, "--json")
    assert status == 0, err
    np.testing.assert_allclose(json.loads(out)["vectors"], ours.encode(TEXTS), atol=1e-6)


def test_encode_with_the_teacher_is_its_mean_pooled_last_layer(run_cli):
    status, out, _ = run_cli("encode", "minilm", *TEXTS[:2], "--json")
    assert status == 0
    expected = Encoder.load("minilm").sentence_vectors(TEXTS[:2])
    np.testing.assert_allclose(json.loads(out)["vectors"], expected, atol=1e-6)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dim", "400"], "--dim must be between 1 and 384; got 400"),
        (["--dim", "0"], "--dim must be between 1 and 384; got 0"),
        (["--weighting", "idf"], "--weighting must be one of zipf, counts, none; got 'idf'"),
        (["--texts", "100"], "--texts 100 does not apply to a distillation without --train"),
        (
            ["--weighting", "zipf", "--counts-corpus", "gcide"],
            "--counts-corpus gcide does not apply to --weighting zipf",
        ),
        (["--train", "enwiki-sample", "--texts", "5"], "--texts must be >= 20; got 5"),
        (["--weighting", "none", "--sif", "0.01"], "--sif 0.01 does not apply to --weighting none"),
        (["--sif", "2"], r"--sif must be in \(0, 1\); got 2.0"),
        (["--pooling", "max"], r"--pooling must be one of mean, token, token\+input; got 'max'"),
        (["--add-words", "-1"], "--add-words must be >= 0; got -1"),
        (["--words-from", "gcide"], "--words-from gcide does not apply to a distillation without --add-words"),
    ],
    ids=[
        "dim too wide",
        "dim 0",
        "unknown weighting",
        "texts without train",
        "counts corpus without counts",
        "too few texts",
        "sif without weights",
        "sif out of range",
        "unknown pooling",
        "negative word count",
        "words from without words",
    ],  # fmt: skip
)
def test_bad_options_are_one_line_and_write_nothing(run_cli, tmp_path, args, message):
    status, out, err = run_cli("distill", "minilm", "--out", str(tmp_path / "m"), *args)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert __import__("re").search(message, err), err
    assert not (tmp_path / "m").exists()


def test_an_existing_folder_needs_force_and_a_bad_model_is_named(run_cli, distilled_folder, tmp_path):
    status, _, err = run_cli("distill", "minilm", "--out", str(distilled_folder / "m2v"))
    assert status == 2 and "already exists; add --force" in err
    (tmp_path / "file").write_text("mine")
    status, _, err = run_cli("distill", "minilm", "--out", str(tmp_path / "file"), "--force")
    assert status == 2 and "is a file" in err and (tmp_path / "file").read_text() == "mine"
    (tmp_path / "empty").mkdir()
    status, _, err = run_cli("distill", str(tmp_path / "empty"), "--out", str(tmp_path / "m"))
    assert status == 2 and "no config.json" in err and not (tmp_path / "m").exists()
    status, _, err = run_cli("encode", str(tmp_path / "nothing"), "the cat")
    assert status == 2 and "nothing" in err


@pytest.mark.parametrize(
    "option", [["--train"], ["--weighting", "counts", "--counts-corpus"], ["--add-words", "10", "--words-from"]]
)
def test_a_corpus_that_cannot_be_read_is_refused_before_the_encoder_runs(run_cli, tmp_path, option):
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "binary.txt").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "short.txt").write_text("a b c\n")
    cases = {"empty.txt": "is empty", "binary.txt": "expected a corpus of UTF-8 text", "none.txt": "neither a built-in"}
    if option == ["--train"]:
        cases["short.txt"] = "has no sentence of 5 to 64 words"
    for name, message in cases.items():
        status, out, err = run_cli("distill", "minilm", "--out", str(tmp_path / "m"), *option, str(tmp_path / name))
        assert status == 2 and out == "" and err.count("\n") == 1 and message in err, (name, err)
        assert not (tmp_path / "m").exists()


def test_add_words_from_a_word_list_says_how_many_it_added(run_cli, distilled_folder, tmp_path):
    # distilled_folder first: the token outputs (mean pooling) are in the cache, only the words run
    (tmp_path / "words.txt").write_text("Tarkovsky\ncat\nagassi\n")  # "cat" is a token already: not added
    out = tmp_path / "m"
    status, printed, err = run_cli("distill", "minilm", "--out", str(out), "--dim", "8", "--float32", "--pooling",
                                   "mean", "--weighting", "zipf", "--add-words", "5", "--words-from",
                                   str(tmp_path / "words.txt"))  # fmt: skip
    size = sum(p.stat().st_size for p in out.iterdir()) / 1e6
    assert status == 0 and printed == f"{out}: 29,530 rows × 8 (float32), 2 of them words added, {size:.1f} MB\n", err
    model = StaticModel.load(out)
    assert model.tokenize(["tarkovsky agassi cat"]) == [[29528, 29529, 3943]]  # the list's order kept
    assert model.config["added_words"] == 2 and model.config["words_from"] == str(tmp_path / "words.txt")


@pytest.fixture(scope="module")
def fitted_folder(once, wiki_text):
    """distilled_folder's distillation with `--train <enwiki text> --texts 200 --epochs 3`, run once for both
    workers (the token outputs read from the cache, 200 sentences through the teacher)."""
    import contextlib
    import io

    from embedlab.cli import main

    def make(path):
        path.mkdir()
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), pytest.raises(SystemExit) as done:
            main(["distill", "minilm", "--out", str(path / "m2v"), "--dim", "64", "--float32", "--pooling", "mean",
                  "--weighting", "zipf", "--add-words", "200", "--train", str(wiki_text), "--texts", "200",
                  "--epochs", "3", "--json"])  # fmt: skip
        assert done.value.code == 0
        (path / "summary.json").write_text(printed.getvalue())

    return once("fitted", make)


def test_train_fits_the_rows_and_says_how_well(fitted_folder, distilled_folder):
    from model2vec import StaticModel as Model2Vec

    summary = json.loads((fitted_folder / "summary.json").read_text())
    fit = summary["fit"]
    assert fit["texts"] == 200 and fit["held_out"] == 20 and fit["epochs"] == 3 and 0 <= fit["epoch"] <= 3
    assert -1 <= fit["start"] <= fit["best"] <= 1  # the kept epoch is never worse than the map alone
    fitted, plain = StaticModel.load(fitted_folder / "m2v"), StaticModel.load(distilled_folder / "m2v")
    assert fitted.config["fit"] == fit and fitted.rows.shape == plain.rows.shape
    moved = ~np.isclose(fitted.rows, plain.rows, atol=1e-6).all(axis=1)
    assert moved.all()  # the map moves every row, the added words' too (the last 200)
    theirs = Model2Vec.from_pretrained(str(fitted_folder / "m2v")).encode(TEXTS)
    np.testing.assert_allclose(fitted.encode(TEXTS), theirs, atol=1e-6)  # the format is unchanged
