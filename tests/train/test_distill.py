"""Distillation against its oracles: transformers' BertModel for the token outputs, scikit-learn for the
PCA, sentence-transformers for the saved model's sentence vectors, and the seven word-pair sets."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import torch

from embedlab.errors import InvalidValueError
from embedlab.models.encoder import Encoder
from embedlab.train.distill import (
    UNUSED,
    count_probabilities,
    distill,
    pca,
    sif_weights,
    token_outputs,
    token_weights,
    zipf_probabilities,
)
from embedlab.vectors.instruments import wordsim7
from embedlab.vectors.static import StaticModel


@pytest.fixture(scope="module")
def encoder():
    return Encoder.load("minilm")


@pytest.fixture(scope="module")
def distilled(distilled_folder):
    """MiniLM distilled to 64 dims in float32 (tests/conftest.py: `embedlab distill`, run once)."""
    return StaticModel.load(distilled_folder / "m2v")


def test_token_outputs_are_berts_mean_over_cls_token_sep(encoder, bert_oracle):
    ids = np.array([1996, 4937, 2038, 100, 29612])  # the, cat, has, [UNK], a late row
    ours = token_outputs(encoder, ids, batch=2)  # batches of 2: the split changes nothing
    sequences = torch.tensor([[101, i, 102] for i in ids])
    with torch.no_grad():
        theirs = bert_oracle(input_ids=sequences).last_hidden_state.mean(dim=1).numpy()
    # float32 through six layers, in another order of operations than BertModel's: 1e-5 is the
    # encoder's own gap to transformers (tests/models/test_encoder.py), the mean of three adds none
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
    with torch.no_grad():
        last = bert_oracle(input_ids=sequences).last_hidden_state[:, 1].numpy()  # the token's own position
    np.testing.assert_allclose(token_outputs(encoder, ids, "token"), last, atol=1e-5)
    both = token_outputs(encoder, ids, "token+input")  # (N, 2H): each half at unit length
    inputs = bert_oracle.embeddings.word_embeddings.weight.detach().numpy()[ids]
    np.testing.assert_allclose(both[:, :384], last / np.linalg.norm(last, axis=1, keepdims=True), atol=1e-5)
    np.testing.assert_allclose(both[:, 384:], inputs / np.linalg.norm(inputs, axis=1, keepdims=True), atol=1e-6)
    with pytest.raises(InvalidValueError, match="pooling must be one of mean, token, token\\+input; got 'max'"):
        token_outputs(encoder, ids, "max")


def test_pca_is_scikit_learns_up_to_each_axis_sign():
    from sklearn.decomposition import PCA

    x = np.random.default_rng(0).normal(size=(500, 12)) @ np.diag(np.arange(12, 0, -1.0))  # distinct variances
    ours = pca(x.astype(np.float32), 5)
    theirs = PCA(5, svd_solver="full").fit_transform(x)
    signs = np.sign((ours * theirs).sum(axis=0))
    assert set(signs) <= {-1.0, 1.0}  # every axis found, in one direction or the other
    np.testing.assert_allclose(ours, theirs * signs, atol=1e-4)  # float32 input, float64 arithmetic
    top = np.abs(ours).argmax(axis=0)
    assert (ours[top, np.arange(5)] > 0).all()  # each axis's largest score is positive: a stable sign
    assert np.allclose(pca(x.astype(np.float32), 12).var(axis=0).sum(), x.var(axis=0).sum(), rtol=1e-5)


def test_sif_and_zipf_weights():
    p = zipf_probabilities(4)
    np.testing.assert_allclose(p, np.array([1 / 2, 1 / 3, 1 / 4, 1 / 5]) / (1 / 2 + 1 / 3 + 1 / 4 + 1 / 5))
    np.testing.assert_allclose(sif_weights(np.array([0.0, 1e-4, 1.0]), 1e-4), [1.0, 0.5, 1e-4 / (1 + 1e-4)])
    with pytest.raises(InvalidValueError, match=r"sif must be in \(0, 1\); got 1.5"):
        sif_weights(p, 1.5)


def test_zipf_ranks_the_kept_tokens_and_counts_count_pieces(encoder):
    tokenizer = encoder.tokenizer
    tokens = [tokenizer.id_to_token(i) for i in range(tokenizer.get_vocab_size())]
    kept = np.array([i for i, t in enumerate(tokens) if not UNUSED.fullmatch(t)])
    zipf = token_weights(tokenizer, kept, "zipf")
    # "," is id 1010, the 17th kept token once the 994 [unusedN] rows are out (Model2Vec's ranking): had
    # they kept their places, "," would rank 1,011th and weigh as a rare piece does
    comma = int(np.searchsorted(kept, tokenizer.token_to_id(",")))
    assert comma == 16 and zipf[comma] == pytest.approx(1e-4 / (1e-4 + zipf_probabilities(len(kept))[16]))
    assert zipf[comma] < 0.1 < zipf[-1]  # punctuation weighs little, the last pieces nearly 1
    lines = ["the cat, the dog.", "unbelievable cats"]
    counted = Counter(i for line in lines for i in tokenizer.encode(line, add_special_tokens=False).ids)
    p = count_probabilities(tokenizer, lines, chunk=1)  # batches of one line: the same counts
    size = tokenizer.get_vocab_size()
    for i in (tokenizer.token_to_id("the"), tokenizer.token_to_id("##able"), 5000):
        assert p[i] == pytest.approx((counted[i] + 1) / (sum(counted.values()) + size))
    assert p.sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(token_weights(tokenizer, kept, "none"), np.ones(len(kept)))


def test_the_distilled_table(distilled, encoder):
    tokens = [encoder.tokenizer.id_to_token(i) for i in range(encoder.tokenizer.get_vocab_size())]
    unused = np.array([bool(UNUSED.fullmatch(t)) for t in tokens])
    assert distilled.rows.shape == (30522, 64) and distilled.rows.dtype == np.float32
    assert unused.sum() == 994 and not distilled.rows[unused].any() and distilled.rows[~unused].any(axis=1).all()
    assert distilled.config["removed_tokens"] == 994 and distilled.config["weighting"] == "zipf"
    assert distilled.tokenize(["the cat"]) == [[1996, 4937]]  # no [CLS] / [SEP]: the post-processor is gone


def test_the_saved_model_is_what_sentence_transformers_encodes(distilled, tmp_path):
    from sentence_transformers import SentenceTransformer

    folder = distilled.save(tmp_path / "m2v")
    texts = ["the cat sat on the mat", "formic acid", "unbelievableness of it all"]
    theirs = SentenceTransformer(str(folder), device="cpu").encode(texts)
    np.testing.assert_allclose(distilled.encode(texts), theirs, atol=1e-6)  # float32 means of unit scale


def test_distillation_keeps_most_of_the_teachers_word_similarity(distilled):
    # measured: the teacher 51.0 [49.0, 53.0]; distilled at 256 dims 46.4, at 64 dims 43-44; the rows
    # of MiniLM's own input table (no encoder) score lower. A table that lost the encoder's geometry
    # (random rows) scores about 0.
    student = wordsim7(distilled.encode, resamples=200)
    assert 38 < student.score < 52 and student.interval[0] < student.score < student.interval[1]
    shuffled = np.random.default_rng(0).permutation(distilled.rows)
    distilled_random = type(distilled)(distilled.tokenizer, shuffled, True, {})
    assert abs(wordsim7(distilled_random.encode, resamples=200).score) < 10


def test_bad_arguments(tmp_path):
    with pytest.raises(InvalidValueError, match="dim must be"):
        distill("minilm", dim=385)
    with pytest.raises(InvalidValueError, match="dim must be"):
        distill("minilm", dim=0)
    with pytest.raises(InvalidValueError, match="weighting must be one of zipf, counts, none; got 'idf'"):
        distill("minilm", weighting="idf")
