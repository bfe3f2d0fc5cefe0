"""StaticModel: a text's vector as the mean of its pieces' rows, and Model2Vec's folder both ways."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tokenizers import Tokenizer

from embedlab.data.models import resolve_model
from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, OutputExistsError
from embedlab.models.pretrained import load_tokenizer
from embedlab.vectors.io.arrays import write_tensors
from embedlab.vectors.static import StaticModel, is_static_folder

TEXTS = ["the cat sat on the mat", "A Dog!", "", "☃ snow", "unbelievableness"]


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    plain = Tokenizer.from_str(load_tokenizer(resolve_model("minilm")).to_str())
    plain.post_processor = None
    return plain


@pytest.fixture(scope="module")
def model(tokenizer) -> StaticModel:
    rows = np.random.default_rng(0).normal(size=(tokenizer.get_vocab_size(), 8)).astype(np.float32)
    return StaticModel(tokenizer, rows, normalize=False, config={"teacher": "none"})


def _mean_of_rows(model: StaticModel, text: str) -> np.ndarray:
    """The definition, one text at a time: the pieces' rows averaged, [UNK] left out."""
    ids = [i for i in model.tokenizer.encode(text, add_special_tokens=False).ids if i != 100]  # 100: [UNK]
    return model.rows[ids].astype(np.float64).mean(axis=0) if ids else np.zeros(model.dim)


def test_encode_is_the_mean_of_the_pieces_rows(model):
    assert model.tokenize(["☃ snow"]) == [[4586]]  # the snowman is [UNK] (100) in MiniLM's vocabulary: dropped
    expected = np.array([_mean_of_rows(model, t) for t in TEXTS])
    np.testing.assert_allclose(model.encode(TEXTS), expected, atol=1e-6)  # float32 sums of a few rows
    assert not model.encode([""]).any() and model.encode("A Dog!").shape == (1, 8)
    np.testing.assert_array_equal(model.encode(TEXTS, batch_size=2), model.encode(TEXTS))


def test_normalize_and_max_length(model, tokenizer):
    unit = StaticModel(tokenizer, model.rows, normalize=True)
    vectors = unit.encode(TEXTS)
    norms = np.linalg.norm(vectors, axis=1)
    np.testing.assert_allclose(norms[[0, 1, 3, 4]], 1.0, atol=1e-6)
    assert norms[2] == 0  # the empty text: no piece, the zero vector, not nan
    long = " ".join(["cat"] * 10 + ["dog"] * 10)
    np.testing.assert_allclose(model.encode([long], max_length=10)[0], model.rows[4937], atol=1e-6)  # cats only


def test_a_saved_model_loads_as_it_was(model, tmp_path):
    for dtype in (np.float32, np.float16):
        saved = StaticModel(model.tokenizer, model.rows.astype(dtype), normalize=True, config={"teacher": "x"})
        folder = saved.save(tmp_path / str(np.dtype(dtype)))
        assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.safetensors", "modules.json",
                                                             "tokenizer.json"]  # fmt: skip
        config = json.loads((folder / "config.json").read_text())
        assert config["model_type"] == "model2vec" and config["normalize"] is True and config["hidden_dim"] == 8
        back = StaticModel.load(folder)
        assert back.rows.dtype == dtype and back.normalize and back.config == {"model_type": "model2vec",
                                                                              "architectures": ["StaticModel"],
                                                                              "teacher": "x"}  # fmt: skip
        np.testing.assert_array_equal(back.rows, saved.rows)
        np.testing.assert_array_equal(back.encode(TEXTS), saved.encode(TEXTS))


def test_model2vec_reads_our_folder_and_we_read_theirs(model, tmp_path):
    from model2vec import StaticModel as Model2Vec

    ours = StaticModel(model.tokenizer, model.rows, normalize=True)
    folder = ours.save(tmp_path / "ours")
    # float32 means of a few rows, normalised: rounding alone (measured 3e-8)
    np.testing.assert_allclose(Model2Vec.from_pretrained(folder).encode(TEXTS), ours.encode(TEXTS), atol=1e-6)
    theirs = Model2Vec(vectors=model.rows, tokenizer=model.tokenizer, normalize=False)
    theirs.save_pretrained(tmp_path / "theirs")
    back = StaticModel.load(tmp_path / "theirs")
    assert is_static_folder(tmp_path / "theirs") and is_static_folder(folder)  # their config has no model_type
    assert not is_static_folder(resolve_model("minilm")) and not is_static_folder(tmp_path)
    assert back.max_length == 512 and not back.normalize  # the two keys its loader reads
    np.testing.assert_allclose(back.encode(TEXTS), theirs.encode(TEXTS), atol=1e-6)


def test_max_length_comes_from_the_folder(model, tmp_path):
    folder = StaticModel(model.tokenizer, model.rows, normalize=False, max_length=2).save(tmp_path / "short")
    short = StaticModel.load(folder)
    assert short.max_length == 2 and short.tokenize(["the cat sat"]) == [[1996, 4937]]
    np.testing.assert_allclose(short.encode(["the cat sat"])[0], model.rows[[1996, 4937]].mean(axis=0), atol=1e-6)
    assert len(short.tokenize(["the cat sat"], max_length=3)[0]) == 3
    config = json.loads((folder / "config.json").read_text())
    for bad in (0, "10", True):
        (folder / "config.json").write_text(json.dumps({**config, "max_length": bad}))
        with pytest.raises(FileFormatError, match=f"'max_length' holds {bad!r} where a count >= 1 or null goes"):
            StaticModel.load(folder)


def test_model2vecs_quantised_vocabulary_reads_through_its_mapping(model, tmp_path):
    size = model.tokenizer.get_vocab_size()
    clusters = np.random.default_rng(1).normal(size=(50, 8)).astype(np.float32)  # (K, D)
    mapping = np.random.default_rng(2).integers(0, 50, size)  # token -> cluster
    weights = np.random.default_rng(3).uniform(0.5, 2.0, size).astype(np.float32)
    folder = tmp_path / "quantised"
    folder.mkdir()
    write_tensors(folder / "model.safetensors", {"embeddings": clusters, "mapping": mapping, "weights": weights})
    (folder / "tokenizer.json").write_text(model.tokenizer.to_str())
    (folder / "config.json").write_text(json.dumps({"normalize": False}))
    loaded = StaticModel.load(folder)
    np.testing.assert_allclose(loaded.rows, weights[:, None] * clusters[mapping], rtol=1e-6)


def _folder(model, tmp_path, **changes):
    """A saved model with one file changed: changes = {file name: new bytes or None (removed)}."""
    folder = model.save(tmp_path / "m")
    for name, content in changes.items():
        if content is None:
            (folder / name).unlink()
        else:
            (folder / name).write_bytes(content)
    return folder


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"model.safetensors": None}, MissingDataError, "lacks model.safetensors"),
        ({"tokenizer.json": None}, MissingDataError, "lacks tokenizer.json"),
        ({"config.json": None}, MissingDataError, "lacks config.json"),
        ({"config.json": b'{"normalize": "yes"}'}, FileFormatError, "'normalize' holds 'yes'"),
        ({"config.json": b"[1, 2"}, FileFormatError, "config.json"),
        ({"tokenizer.json": b"{}"}, FileFormatError, "not a tokenizers tokenizer.json"),
        (
            {
                "tokenizer.json": b'{"version": "1.0", "model": {"type": "WordLevel", "vocab": {"a": 0, "b": 1}, '
                b'"unk_token": "a"}}'
            },
            FileFormatError,
            "30,522 rows, but .* has 2 tokens",
        ),  # fmt: skip
    ],
    ids=[
        "no tensors",
        "no tokenizer",
        "no config",
        "normalize not a bool",
        "config cut short",
        "bad tokenizer",
        "rows and vocabulary disagree",
    ],  # fmt: skip
)
def test_a_damaged_folder_is_refused_by_name(model, tmp_path, changes, error, message):
    with pytest.raises(error, match=message):
        StaticModel.load(_folder(model, tmp_path, **changes))


@pytest.mark.parametrize(
    ("tensors", "message"),
    [
        ({"vectors": np.zeros((30522, 8), np.float32)}, "no tensor named 'embeddings'; found vectors"),
        ({"embeddings": np.zeros(30522, np.float32)}, r"'embeddings' is float32 \(30522,\)"),
        ({"embeddings": np.full((30522, 8), np.nan, np.float32)}, "row 0 column 0 holds nan; .* must be finite"),
        ({"embeddings": np.zeros((4, 8), np.float32), "mapping": np.full(30522, 4)}, "'mapping' must be"),
    ],
    ids=["wrong name", "one axis", "nan", "mapping out of range"],
)
def test_bad_tensors_are_refused(model, tmp_path, tensors, message):
    folder = _folder(model, tmp_path)
    write_tensors(folder / "model.safetensors", tensors)
    with pytest.raises(FileFormatError, match=message):
        StaticModel.load(folder)


def test_not_a_folder(tmp_path):
    with pytest.raises(MissingDataError, match="is not a folder"):
        StaticModel.load(tmp_path / "nothing")
    with pytest.raises(InvalidValueError, match="is empty"):
        StaticModel.load("")


def test_saving_never_overwrites_without_force_and_one_of_two_writers_wins(model, tmp_path, at_once):
    folder = model.save(tmp_path / "m")
    with pytest.raises(OutputExistsError, match="already holds files; choose another folder, or force"):
        model.save(folder)
    model.save(folder, force=True)  # replaced, file by file
    errors = at_once(2, lambda i: model.save(tmp_path / "race"))
    assert sum(isinstance(e, OutputExistsError) for e in errors) == 1 and errors.count(None) == 1
    StaticModel.load(tmp_path / "race")  # the winner's folder is whole


def test_a_file_in_the_way_is_refused(model, tmp_path):
    (tmp_path / "m").write_text("mine")
    for force in (False, True):
        with pytest.raises(OutputExistsError, match="is a file, not a folder"):
            model.save(tmp_path / "m", force=force)
    assert (tmp_path / "m").read_text() == "mine"


def test_bad_rows_are_refused_before_anything_is_written(model, tmp_path):
    bad = model.rows.copy()
    bad[7, 3] = np.inf
    with pytest.raises(InvalidValueError, match="cannot write .* row 7 column 3 holds inf"):
        StaticModel(model.tokenizer, bad).save(tmp_path / "bad")
    assert not (tmp_path / "bad").exists()
    with pytest.raises(InvalidValueError, match="one row a token"):
        StaticModel(model.tokenizer, model.rows[:10])
    with pytest.raises(InvalidValueError, match="float32 or float16"):
        StaticModel(model.tokenizer, model.rows.astype(np.float64))
    with pytest.raises(InvalidValueError, match="texts must be strings"):
        model.encode([1, 2])


def test_a_folder_reads_as_a_table_for_the_vector_queries(model, tmp_path):
    from embedlab.vectors.subword import load

    folder = model.save(tmp_path / "m2v")
    table = load(folder)  # what `embedlab neighbors`, `compare` and the projector open
    vocab = model.tokenizer.get_vocab(with_added_tokens=True)
    assert len(table) == len(model.rows) and table.index_to_key[vocab["cat"]] == "cat"
    np.testing.assert_array_equal(table[["cat", "dog"]], model.rows[[vocab["cat"], vocab["dog"]]].astype(np.float32))
    unit = model.rows / np.maximum(np.linalg.norm(model.rows, axis=1, keepdims=True), 1e-12)
    expected = [t for t in np.argsort(-(unit @ unit[vocab["cat"]])) if t != vocab["cat"]][:3]
    assert [k for k, _ in table.most_similar("cat", topn=3)] == [table.index_to_key[t] for t in expected]
