"""A token's row four ways: the lesson's hand-worked 6 × 3 table, the real MiniLM table against
transformers' BertModel and its vocab.txt, one-hot × E against torch, PCA against scikit-learn,
and neighbourhoods against gensim."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from sklearn.decomposition import PCA

from embedlab.data.themes import THEMES
from embedlab.errors import InvalidValueError
from embedlab.files import json_safe
from embedlab.sims.lookup import (
    CHOSEN,
    lookup_row,
    neighbourhood_slice,
    one_hot_lookup,
    table_slice,
    themed_map,
)
from embedlab.vectors import Vectors
from embedlab.vectors.keys import themed_keys

PCA_AGREEMENT = 1e-4  # float32 coordinates of float64 PCA against scikit-learn's float64 SVD

# The lesson's worked example: V = 6 words, d = 3.
LESSON_KEYS = ["the", "cat", "dog", "sat", "house", "on"]
LESSON_E = [[-0.12, 0.05, 0.88], [0.72, -0.41, 0.15], [0.68, -0.38, 0.22],
            [-0.55, 0.62, -0.03], [0.31, 0.15, -0.72], [-0.08, 0.11, 0.79]]  # fmt: skip


@pytest.fixture(scope="module")
def lesson():
    return Vectors(LESSON_KEYS, np.array(LESSON_E, dtype=np.float32), name="lesson")


@pytest.fixture(scope="module")
def minilm_vocab(minilm_dir):
    """MiniLM's vocab.txt: the line number of a piece is its token id."""
    return (minilm_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()


def test_lookup_is_the_lessons_row(lesson):
    r = lookup_row(lesson, "cat")
    assert (r.key, r.index, r.vocab_size, r.dim) == ("cat", 1, 6, 3)
    np.testing.assert_array_equal(r.row, np.array([0.72, -0.41, 0.15], dtype=np.float32))
    assert r.norm == pytest.approx(math.sqrt(0.72**2 + 0.41**2 + 0.15**2), rel=1e-6)
    r.row[0] = 99.0  # the result is a copy: writing to it leaves the table alone
    assert lesson["cat"][0] == np.float32(0.72)


def test_lookup_on_minilm_is_berts_word_embedding(minilm_vectors, minilm_vocab, bert_oracle):
    r = lookup_row(minilm_vectors, "king")
    assert r.index == minilm_vocab.index("king") and r.row.shape == (384,)
    with torch.no_grad():
        expected = bert_oracle.embeddings.word_embeddings(torch.tensor([r.index]))[0]
    np.testing.assert_array_equal(r.row, expected.numpy())
    assert r.norm == pytest.approx(float(expected.double().norm()), rel=1e-12)


def test_one_hot_times_e_is_the_looked_up_row(minilm_vectors):
    view = one_hot_lookup(minilm_vectors, "paris", size=12)
    k = len(view.keys)
    assert k == 12 and view.keys[view.position] == "paris" and list(view.rows) == sorted(view.rows)
    assert [minilm_vectors.index_of(key) for key in view.keys] == list(view.rows)
    assert {t for _, key, t in themed_keys(minilm_vectors) if key in view.keys} == set(THEMES)  # one of each
    expected_h = torch.nn.functional.one_hot(torch.tensor(view.position), k).float()
    np.testing.assert_array_equal(view.one_hot, expected_h.numpy())
    e_small = torch.as_tensor(minilm_vectors.vectors[list(view.rows)])
    np.testing.assert_array_equal(view.e_small, e_small.numpy())
    np.testing.assert_array_equal(view.product, (expected_h @ e_small).numpy())
    layer = torch.nn.Embedding.from_pretrained(minilm_vectors.table)
    np.testing.assert_array_equal(view.row, layer(torch.tensor(view.index)).numpy())
    assert view.max_abs_difference == 0.0  # exact, not close


def test_one_hot_view_on_a_small_table(lesson):
    view = one_hot_lookup(lesson, "dog", size=20)  # k = V when V < size: the whole lesson table
    assert view.keys == tuple(LESSON_KEYS) and view.position == 2
    assert view.one_hot.tolist() == [0, 0, 1, 0, 0, 0] and view.max_abs_difference == 0.0
    shown = one_hot_lookup(lesson, "dog", size=20, dims=2)
    assert shown.row.tolist() == pytest.approx([0.68, -0.38]) and shown.e_small.shape[1] == 2 and shown.dim == 3
    assert shown.max_abs_difference == 0.0
    with pytest.raises(InvalidValueError, match="size must be >= 1; got 0"):
        one_hot_lookup(lesson, "dog", size=0)


def _sklearn_pca(rows: np.ndarray, coordinates: np.ndarray) -> np.ndarray:
    """scikit-learn's 2-D PCA scores of `rows`, each axis's sign matched to `coordinates`."""
    reference = PCA(n_components=2, svd_solver="full").fit_transform(rows.astype(np.float64))
    return reference * np.sign(np.sum(reference * coordinates, axis=0))


@pytest.mark.parametrize("normalize", [False, True])
def test_themed_map_adds_and_marks_the_word(minilm_vectors, normalize):
    points = themed_map(minilm_vectors, "cat", normalize=normalize)
    themed = themed_keys(minilm_vectors)
    assert points.words == (*[w for w, _, _ in themed], "cat") and points.themes[-1] == CHOSEN
    assert points.highlight == len(themed) and points.projection.n_points == len(themed) + 1
    assert points.projection.centred and points.projection.normalised == normalize
    rows = minilm_vectors[list(points.projection.keys)].astype(np.float64)
    if normalize:
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    xy = points.projection.coordinates
    np.testing.assert_allclose(xy, _sklearn_pca(rows, xy), atol=PCA_AGREEMENT)
    d = json_safe(points)
    assert d["caption"].startswith(f"PCA of {len(themed) + 1} rows, centred, {'' if normalize else 'not '}normalised")
    assert d["highlight"] == points.highlight and len(d["projection"]["coordinates"]) == len(d["words"])


def test_themed_map_does_not_repeat_a_themed_word(minilm_vectors):
    points = themed_map(minilm_vectors, "queen")
    assert points.words.count("queen") == 1 and points.words[points.highlight] == "queen"
    assert CHOSEN not in points.themes


def test_themed_map_on_a_bpe_table_and_its_minimum():
    rng = np.random.default_rng(0)
    bpe = Vectors(["Ġking", "Ġqueen", "Ġman", "cat"], rng.normal(size=(4, 8)), name="bpe")
    points = themed_map(bpe, "cat")
    assert points.words == ("king", "queen", "man", "cat")
    assert points.projection.keys == ("Ġking", "Ġqueen", "Ġman", "cat")
    tiny = Vectors(["Ġking", "cat", "zebra"], np.eye(3), name="tiny")
    with pytest.raises(InvalidValueError, match="tiny holds 2 of the themed words and 'cat'; a map needs >= 3"):
        themed_map(tiny, "cat")


LESSON_GROUPS = ["animals", "colours", "buildings", "function words"]  # cat, dog, house, building, "the"


def test_themed_map_shows_the_groups_picked(minilm_vectors):
    points = themed_map(minilm_vectors, "king", themes=["function words", "animals"])
    assert points.theme_names[:2] == ("animals", "function words")  # THEMES order, whatever the order asked
    assert points.words == (*THEMES["animals"], *THEMES["function words"], "king")
    assert points.themes[-1] == CHOSEN  # king's own group is not shown: it joins as the looked-up word
    assert points.theme_names == ("animals", "function words", CHOSEN)
    rows = minilm_vectors[list(points.projection.keys)].astype(np.float64)
    xy = points.projection.coordinates  # the PCA is fitted on these rows only
    np.testing.assert_allclose(xy, _sklearn_pca(rows, xy), atol=PCA_AGREEMENT)
    with pytest.raises(InvalidValueError, match="theme 'fish' is not one of animals, colours"):
        themed_map(minilm_vectors, "king", themes=["fish"])
    with pytest.raises(InvalidValueError, match="pick at least one theme"):
        themed_map(minilm_vectors, "king", themes=[])


@pytest.mark.parametrize("normalize", [False, True])
def test_minilms_map_puts_cat_among_the_animals_and_the_apart(minilm_vectors, normalize):
    points = themed_map(minilm_vectors, "cat", normalize=normalize, themes=LESSON_GROUPS)
    xy = points.projection.coordinates  # (n, 2): distances on the map itself, as the page draws it
    away = np.linalg.norm(xy - xy[points.highlight], axis=1)
    nearest = [points.themes[i] for i in np.argsort(away)[1:6]]
    assert nearest == ["animals"] * 5, nearest
    words = list(points.words)
    assert away[words.index("the")] > 4 * away[words.index("dog")]
    assert away[words.index("building")] < away[words.index("the")] > away[words.index("red")]


def test_table_slice_is_a_block_of_e(minilm_vectors):
    block = table_slice(minilm_vectors, start=1000, rows=32, dims=64)
    np.testing.assert_array_equal(block.values, minilm_vectors.vectors[1000:1032, :64])
    assert block.keys == tuple(minilm_vectors.index_to_key[1000:1032]) and block.rows == tuple(range(1000, 1032))
    edge = table_slice(minilm_vectors, start=30520, rows=10, dims=1000)  # cut at the last row and column
    assert edge.values.shape == (2, 384) and (edge.vocab_size, edge.dim) == (30522, 384)
    with pytest.raises(InvalidValueError, match="start must be between 0 and 30521; got 30522"):
        table_slice(minilm_vectors, start=30522)
    with pytest.raises(InvalidValueError, match="rows must be >= 1; got 0"):
        table_slice(minilm_vectors, rows=0)


def test_neighbourhood_slice_follows_gensim(minilm_vectors, minilm_keyed):
    block = neighbourhood_slice(minilm_vectors, "king", rows=9, dims=16)
    assert block.keys == ("king", *[k for k, _ in minilm_keyed.most_similar("king", topn=8)])
    np.testing.assert_array_equal(block.values, minilm_vectors[list(block.keys)][:, :16])
    assert neighbourhood_slice(minilm_vectors, "king", rows=1).keys == ("king",)
