"""Static from contextual through TestClient: the teacher's and the static stage's cosines against the
models run directly, the stages' figures against the instruments, and bad input as 4xx JSON."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from embedlab.models.encoder import Encoder
from embedlab.sims.distill import MAX_TEXT, MAX_TEXTS, STEPS
from embedlab.train.distill import distill

TEXTS = ["a dog chased the ball", "the puppy ran after a stick", "interest rates rose again", "violins and cellos"]


@pytest.fixture(scope="module")
def answer(client, distilled_folder):  # distilled_folder first: MiniLM's token outputs are then in the cache
    r = client.get("/api/distill", params={"text": TEXTS, "step": "weights"})
    assert r.status_code == 200, r.text[:300]
    return r.json()


def _cosines(vectors):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return unit @ unit.T


def test_both_matrices_are_the_models_own_cosines(answer):
    teacher = _cosines(Encoder.load("minilm").sentence_vectors(TEXTS))
    np.testing.assert_allclose(answer["teacher"], teacher, atol=1e-6)
    recipe = distill("minilm", dim=256, pooling="mean", weighting="zipf", float16=False)  # the stage "weights"
    np.testing.assert_allclose(answer["static"], _cosines(recipe.encode(TEXTS)), atol=1e-6)
    upper = np.triu_indices(len(TEXTS), 1)
    expected = spearmanr(np.array(answer["teacher"])[upper], np.array(answer["static"])[upper]).statistic
    assert answer["spearman"] == pytest.approx(expected, abs=1e-9)
    assert answer["pieces"][1] == ["the", "puppy", "ran", "after", "a", "stick"]
    assert answer["teacher"][0][1] > answer["teacher"][0][2] and answer["static"][0][1] > answer["static"][0][2]


def test_each_stage_is_measured(client, answer):
    figures = client.get("/api/distill/steps").json()
    steps = {s["step"]: s for s in figures["steps"]}
    assert list(steps) == list(STEPS) and figures["resamples"] == 200
    assert steps["outputs"]["dim"] == 384 and steps["weights"]["dim"] == 256
    for s in steps.values():
        low, high = s["wordsim7_interval"]
        assert low <= s["wordsim7"] <= high and 30 < s["wordsim7"] < 60
    # measured (docs/distill.md): PCA keeps word geometry (46.4 both), the weights change no single word's
    # vector but multiply sentence recall (recall@10 6 -> 17), the fit to 2,000 teacher sentences adds more
    assert abs(steps["pca"]["wordsim7"] - steps["outputs"]["wordsim7"]) < 1.5
    assert steps["weights"]["wordsim7"] == pytest.approx(steps["pca"]["wordsim7"], abs=0.5)
    assert steps["weights"]["recall10"] > steps["pca"]["recall10_interval"][1]
    assert steps["fitted"]["recall10"] > steps["weights"]["recall10"]


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"text": ["only one"]}, 400, "give 2 to 8 sentences; got 1"),
        ({"text": [f"sentence {i}" for i in range(MAX_TEXTS + 1)]}, 400, "give 2 to 8 sentences; got 9"),
        ({"text": ["a b", "x" * (MAX_TEXT + 5)]}, 400, "sentence 2 is 301 characters long; the limit is 300"),
        ({"text": ["a b", "c d"], "step": "raw"}, 422, "step"),
    ],
)
def test_bad_input_is_named(client, answer, params, status, message):
    r = client.get("/api/distill", params=params)
    assert r.status_code == status and message in r.json()["error"], r.text[:300]


def test_two_sentences_have_no_correlation(client, answer):
    r = client.get("/api/distill", params={"text": TEXTS[:2], "step": "outputs"}).json()
    assert r["spearman"] is None and r["pearson"] is None and len(r["static"]) == 2
