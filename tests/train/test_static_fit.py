"""Fitting a static table to a teacher's sentence vectors: the sentences chosen, the teacher's vectors kept
and resumed chunk by chunk (against the encoder run directly), and the fit against a teacher whose
answer is known (a hidden static table: the fit must find its geometry)."""

from __future__ import annotations

import numpy as np
import pytest
from tokenizers import Tokenizer

from embedlab.errors import InvalidValueError
from embedlab.models.encoder import Encoder
from embedlab.train import static_fit
from embedlab.train.static_fit import HELD_OUT, fit_table, teacher_targets, training_texts
from embedlab.vectors.similarity import unit_rows
from embedlab.vectors.static import StaticModel


@pytest.fixture(scope="module")
def encoder():
    return Encoder.load("minilm")


def test_training_texts_are_sentences_of_the_corpus_spread_over_it(tmp_path):
    corpus = tmp_path / "corpus.txt"
    lines = [f"Line {i} holds a sentence of words. And a second one here, {i}." for i in range(40)]
    corpus.write_text("\n".join([*lines, "Too short.", "Line 0 holds a sentence of words.", "x " * 70]) + "\n")
    every = training_texts(str(corpus), 1000)  # more than there are: all of them
    assert len(every) == 80 and every[:2] == ["Line 0 holds a sentence of words.", "And a second one here, 0."]
    assert "Too short." not in every and not any(t.startswith("x x") for t in every)  # 5 to 64 words
    assert len(set(every)) == len(every)  # the repeated sentence once
    chosen = training_texts(str(corpus), 10)
    assert chosen == every[::8]  # evenly spaced
    (tmp_path / "short.txt").write_text("a b\nc d\n")
    with pytest.raises(InvalidValueError, match="no sentence of 5 to 64 words"):
        training_texts(str(tmp_path / "short.txt"), 10)


def test_the_teachers_vectors_are_kept_chunk_by_chunk_and_resumed(encoder, tmp_path, monkeypatch):
    monkeypatch.setattr(static_fit, "CHUNK", 4)
    texts = [f"a sentence about the number {n}" for n in ("one", "two", "three", "four", "five", "six")]
    direct = encoder.sentence_vectors(texts)
    seen = []
    kept = teacher_targets(encoder, texts, folder=tmp_path, progress=seen.append)
    assert seen == [4, 2] and sorted(p.name for p in tmp_path.iterdir()) == ["000000.npy", "000001.npy"]
    # another batching of the same texts pads differently: float32 rounding of the same sums
    np.testing.assert_allclose(kept, direct, atol=1e-6)
    np.save(tmp_path / "000000.npy", np.full((4, 384), 7.0, dtype=np.float32))  # a kept chunk is read back,
    (tmp_path / "000001.npy").write_bytes(b"\x93NUMPY cut short")  # a damaged one made again
    again = teacher_targets(encoder, texts, folder=tmp_path)
    assert (again[:4] == 7.0).all()
    np.testing.assert_allclose(again[4:], direct[4:], atol=1e-6)


@pytest.fixture(scope="module")
def hidden_teacher():
    """A static model to fit (MiniLM's tokenizer, random 16-wide rows) and a teacher that is a hidden static
    table of its own (32 wide): the fit can only succeed by learning the hidden table's geometry."""
    tokenizer = Tokenizer.from_str(Encoder.load("minilm").tokenizer.to_str())
    tokenizer.post_processor = None
    rng = np.random.default_rng(0)
    student = StaticModel(tokenizer, rng.normal(size=(30522, 16)).astype(np.float32), True, {"teacher": "x"})
    hidden = rng.normal(size=(30522, 32)).astype(np.float32)
    words = [tokenizer.id_to_token(i) for i in range(2000, 2150)]  # 150 common pieces
    texts = [" ".join(rng.choice(words, 5)) for _ in range(400)]
    pieces = student.tokenize(texts)
    targets = np.stack([hidden[p].mean(axis=0) for p in pieces])
    return student, texts, targets


def test_the_fit_learns_a_hidden_tables_geometry(hidden_teacher):
    student, texts, targets = hidden_teacher
    seen = []
    fitted, report = fit_table(student, texts, targets, epochs=30, lr=0.05, patience=30, progress=seen.append)
    # measured: the map alone 0.40, the fit 0.997 (600 texts)
    assert report.texts == 400 and report.held_out == 400 // HELD_OUT and report.epochs == report.ran == 30
    assert sum(seen) == 30 * (400 - 40)  # every training text in every epoch
    # the linear map alone leaves random rows far from the hidden geometry; the fit brings the held-out
    # cosine close to what 16 of 32 principal axes allow
    assert report.start < 0.6 and report.best > 0.9 and 1 <= report.epoch <= 30
    assert fitted.rows.dtype == np.float32 and fitted.config["fitted_on"] == 400
    held = [i for i in range(len(texts)) if i % HELD_OUT == HELD_OUT - 1]
    goal = static_fit._reduced(targets.astype(np.float64), 16)[held]
    cosine = (unit_rows(fitted.encode([texts[i] for i in held])) * goal).sum(axis=1).mean()
    assert cosine == pytest.approx(report.best, abs=1e-5)  # the report's figure is the kept model's


def test_the_fit_refuses_what_it_cannot_use(hidden_teacher):
    student, texts, targets = hidden_teacher
    with pytest.raises(InvalidValueError, match="one target row a text: 400 texts"):
        fit_table(student, texts, targets[:-1])
    with pytest.raises(InvalidValueError, match="20 or more texts with known pieces"):
        fit_table(student, texts[:10], targets[:10])
    with pytest.raises(InvalidValueError, match="targets at least as wide"):
        fit_table(student, texts, targets[:, :8])
    with pytest.raises(InvalidValueError, match="epochs must be"):
        fit_table(student, texts, targets, epochs=0)


def test_the_fit_stops_when_the_held_out_cosine_stops_rising(hidden_teacher):
    student, texts, targets = hidden_teacher
    noise = np.random.default_rng(1).normal(size=targets.shape)  # targets nothing predicts: the fit learns
    _, report = fit_table(student, texts, noise, epochs=30, lr=0.05, patience=2)  # the training texts by heart
    assert report.ran == report.epoch + 2 < 30  # two epochs past the best, then stopped
