"""Distillation against its oracles: transformers' BertModel for the token outputs, scikit-learn for the
PCA, sentence-transformers for the saved model's sentence vectors, and the seven word-pair sets."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
import torch

from embedlab.errors import InvalidValueError
from embedlab.models.encoder import Encoder
from embedlab.train.distill import (
    count_probabilities,
    distill,
    pca,
    sif_weights,
    token_outputs,
    token_weights,
    word_outputs,
    zipf_probabilities,
)
from embedlab.train.distill_vocabulary import UNUSED, Vocabulary, frequent_words
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
    static = Vocabulary.of(tokenizer).tokenizer  # the 994 [unusedN] out, the rest renumbered
    zipf = token_weights(static, "zipf")
    # "," is the teacher's id 1010, the static model's 16 (Model2Vec's ranking): had the [unusedN] rows
    # kept their places, "," would rank 1,011th and weigh as a rare piece does
    comma = static.token_to_id(",")
    assert comma == 16 and zipf[comma] == pytest.approx(1e-4 / (1e-4 + zipf_probabilities(29528)[16]))
    assert zipf[comma] < 0.1 < zipf[-1]  # punctuation weighs little, the last pieces nearly 1
    lines = ["the cat, the dog.", "unbelievable cats"]
    counted = Counter(i for line in lines for i in tokenizer.encode(line, add_special_tokens=False).ids)
    p = count_probabilities(tokenizer, lines, chunk=1)  # batches of one line: the same counts
    size = tokenizer.get_vocab_size()
    for i in (tokenizer.token_to_id("the"), tokenizer.token_to_id("##able"), 5000):
        assert p[i] == pytest.approx((counted[i] + 1) / (sum(counted.values()) + size))
    assert p.sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(token_weights(static, "none"), np.ones(29528))
    # "counts" counts the static tokenizer's own pieces: 8, "the" twice, smoothed over its 29,528 tokens
    counted = token_weights(static, "counts", lines=lines)
    assert counted[static.token_to_id("the")] == pytest.approx(1e-4 / (1e-4 + (2 + 1) / (8 + 29528)))


def test_the_distilled_table(distilled, distilled_folder, encoder):
    summary = json.loads((distilled_folder / "summary.json").read_text())
    tokens = [encoder.tokenizer.id_to_token(i) for i in range(encoder.tokenizer.get_vocab_size())]
    assert sum(bool(UNUSED.fullmatch(t)) for t in tokens) == 994 == distilled.config["removed_tokens"]
    words = summary["added_words"]
    assert words == 200  # the fixture's --add-words 200: enwiki-sample has thousands
    assert distilled.rows.shape == (30522 - 994 + words, 64) and distilled.rows.dtype == np.float32
    assert distilled.rows.any(axis=1).all() and distilled.config["weighting"] == "zipf"
    # no [CLS] / [SEP] (the post-processor is gone); the teacher's ids 1996 and 4937 less the 994 below them
    assert distilled.tokenize(["the cat"]) == [[1002, 3943]]
    # a word of enwiki-sample the teacher splits ("al ##kali") is one row, after every kept token
    assert encoder.tokenizer.encode("alkali", add_special_tokens=False).tokens == ["al", "##kali"]
    assert distilled.tokenize(["Alkali"])[0][0] >= 29528 and len(distilled.tokenize(["Alkali"])[0]) == 1


def test_the_vocabulary_drops_placeholders_and_adds_whole_words(encoder):
    teacher = encoder.tokenizer
    given = ["Alkali", "schopenhauer", "the", "New York", "alkali", "\u2603", "Café"]
    vocabulary = Vocabulary.of(teacher, given)
    # "the" is a token, "New York" two words, "alkali" given twice, ☃ the teacher's [UNK], "café" is "cafe"
    assert vocabulary.words == ("alkali", "schopenhauer") and vocabulary.skipped == 5
    assert vocabulary.size == 29528 + 2 == vocabulary.tokenizer.get_vocab_size() and vocabulary.removed == 994
    static = vocabulary.tokenizer
    text = "Schopenhauer's alkali-salts, unbelievably [MASK] 1987"
    theirs = teacher.encode(text, add_special_tokens=False).tokens
    ours = static.encode(text).tokens  # no post-processor: add_special_tokens changes nothing
    assert theirs[:4] == ["sc", "##hope", "##nh", "##auer"] and theirs[6:8] == ["al", "##kali"]
    assert ours == ["schopenhauer", *theirs[4:6], "alkali", *theirs[8:]]  # the added words win, whole
    for token in theirs[4:6] + theirs[8:]:  # every other token keeps its row, in the teacher's order
        assert static.token_to_id(token) == int(np.searchsorted(vocabulary.kept, teacher.token_to_id(token)))
    assert [static.token_to_id(t) for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")] == [0, 1, 2, 3, 4]
    assert static.encode("alkali alkali").ids == [29528, 29528] and static.padding is None


def test_words_are_added_to_wordpiece_vocabularies_only():
    from tokenizers import Tokenizer
    from tokenizers.models import BPE
    from tokenizers.pre_tokenizers import Whitespace

    bpe = Tokenizer(BPE(vocab={"a": 0, "b": 1, "ab": 2}, merges=[("a", "b")]))
    bpe.pre_tokenizer = Whitespace()
    assert Vocabulary.of(bpe).size == 3  # its tokens carried over, nothing added
    with pytest.raises(InvalidValueError, match="words can be added to a WordPiece tokenizer; the teacher's is BPE"):
        Vocabulary.of(bpe, ["ba"])  # "b a" to BPE: a word it splits


def test_frequent_words_are_the_corpus_words_the_teacher_splits(encoder):
    lines = ["Alkali alkali, the cat.", "Schopenhauer and the ALKALI of 1987", "naïve Huxley"]
    # cat, the, of, and are tokens; 1987 is no word; naïve is "naive" once normalised, a token too
    assert frequent_words(encoder.tokenizer, lines, 10) == ["alkali", "schopenhauer", "huxley"]
    assert frequent_words(encoder.tokenizer, lines, 1) == ["alkali"]
    listed = ["tarkovsky", "agassi", "schopenhauer"]  # a word list, one a line: each once, kept in order
    assert frequent_words(encoder.tokenizer, listed, 5) == listed
    with pytest.raises(InvalidValueError, match="count must be"):
        frequent_words(encoder.tokenizer, lines, -1)


@pytest.mark.parametrize("pooling", ["mean", "token", "token+input"])
def test_word_outputs_pool_the_pieces_as_berts_outputs(encoder, bert_oracle, pooling):
    words = ["alkali", "cat", "schopenhauer", "unbelievableness"]  # 2, 1, 4 and 3 pieces: padded batches
    ours = word_outputs(encoder, words, pooling, batch=3)
    for word, row in zip(words, ours, strict=True):
        ids = encoder.tokenizer.encode(word).ids  # [CLS] pieces [SEP]
        with torch.no_grad():
            last = bert_oracle(input_ids=torch.tensor([ids])).last_hidden_state[0].numpy()
        if pooling == "mean":  # Model2Vec's: every position, [CLS] and [SEP] too
            np.testing.assert_allclose(row, last.mean(axis=0), atol=1e-5)
            continue
        own = last[1:-1].mean(axis=0)  # the word's pieces only
        if pooling == "token":
            np.testing.assert_allclose(row, own, atol=1e-5)
            continue
        inputs = bert_oracle.embeddings.word_embeddings.weight.detach().numpy()[ids[1:-1]].mean(axis=0)
        np.testing.assert_allclose(row[:384], own / np.linalg.norm(own), atol=1e-5)
        np.testing.assert_allclose(row[384:], inputs / np.linalg.norm(inputs), atol=1e-6)
    # a word of one piece is its token's row (the padding of a batch changes only float32 rounding)
    np.testing.assert_allclose(ours[1], token_outputs(encoder, np.array([4937]), pooling)[0], atol=1e-5)


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
