"""Projections against their oracles: NumPy's SVD for PCA, scipy's orthogonal Procrustes for the
frame alignment, two Gaussian blobs kept apart by UMAP, and the same picture after a rotation."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy.linalg import orthogonal_procrustes
from sklearn.manifold import trustworthiness
from tests.timeouts import UMAP_CACHED_S

from embedlab.errors import InvalidValueError
from embedlab.files import json_safe
from embedlab.vectors.analysis import random_orthogonal
from embedlab.vectors.projection import align_2d, fit_umap, import_umap, project_2d, project_frame

SAME = 1e-9  # float64 coordinates of the same picture reached by different routes


@pytest.fixture(scope="module")
def minilm(minilm_vectors):
    return minilm_vectors  # Vectors.load("minilm"), shared by the session (tests/conftest.py)


def test_pca_matches_numpy_svd():
    rng = np.random.default_rng(0)
    matrix = (rng.normal(size=(300, 16)) * np.linspace(3, 0.1, 16)).astype(np.float32)
    result = project_2d(matrix)
    centred = matrix.astype(np.float64) - matrix.mean(axis=0)
    u, s, vt = np.linalg.svd(centred, full_matrices=False)
    np.testing.assert_allclose(result.explained_variance_ratio, (s[:2] ** 2) / (s**2).sum(), atol=1e-9)
    reference = u[:, :2] * s[:2]
    signs = np.sign(np.sum(result.coordinates * reference, axis=0))  # components agree up to sign
    np.testing.assert_allclose(result.coordinates, reference * signs, atol=1e-4)
    loadings = vt[:2] * signs[:, None]  # the chosen sign: each axis's largest loading is positive
    assert (loadings[np.arange(2), np.abs(loadings).argmax(axis=1)] > 0).all()
    assert result.coordinates.dtype == np.float32 and result.keys[:2] == ("0", "1")
    assert np.array_equal(project_2d(matrix).coordinates, result.coordinates)


def test_projection_says_how_it_was_made():
    rng = np.random.default_rng(1)
    matrix = rng.normal(size=(40, 8))
    matrix[:5] *= 100  # a few long rows: raw PCA follows them, PCA of unit rows does not
    raw, unit = project_2d(matrix), project_2d(matrix, normalize=True)
    assert (raw.n_points, raw.centred, raw.normalised) == (40, True, False)
    assert (unit.n_points, unit.centred, unit.normalised) == (40, True, True)
    directions = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    centred = directions - directions.mean(axis=0)
    _, s, _ = np.linalg.svd(centred, full_matrices=False)
    np.testing.assert_allclose(unit.explained_variance_ratio, (s[:2] ** 2) / (s**2).sum(), atol=1e-9)
    assert raw.explained_variance_ratio[0] > 2 * unit.explained_variance_ratio[0]  # the long rows dominated
    first, second = (round(100 * r) for r in unit.explained_variance_ratio)
    assert unit.caption() == f"PCA of 40 rows, centred, normalised; axes explain {first}% and {second}% of variance"
    assert raw.caption().startswith("PCA of 40 rows, centred, not normalised; ")
    d = json.loads(json.dumps(json_safe(unit)))
    assert (d["n_points"], d["centred"], d["normalised"]) == (40, True, True) and len(d["coordinates"]) == 40


def test_pca_on_minilm_keys(minilm):
    keys = ["king", "queen", "man", "woman", "paris", "london"]
    result = project_2d(minilm, keys)
    assert result.keys == tuple(keys) and result.coordinates.shape == (6, 2)
    assert len(json_safe(result)["coordinates"]) == 6


def test_project_2d_bad_inputs(minilm):
    with pytest.raises(InvalidValueError, match="method must be one of pca, umap; got 'tsne'"):
        project_2d(minilm, ["king"], method="tsne")
    with pytest.raises(KeyError, match="kingg"):
        project_2d(minilm, ["king", "kingg"])
    with pytest.raises(InvalidValueError, match="at least 2 rows"):
        project_2d(np.ones((1, 4)))
    with pytest.raises(InvalidValueError, match="n keys"):
        project_2d(np.ones((3, 4)), keys=["a"])


@pytest.mark.slow
@pytest.mark.xdist_group("umap")  # the UMAP fits share one worker: its first fit compiles or loads umap's code
@pytest.mark.filterwarnings("ignore:n_jobs value")  # umap notes that a seed makes it single-threaded
def test_umap_keeps_two_clusters_apart():
    pytest.importorskip("umap")
    rng = np.random.default_rng(0)
    centres = np.zeros((2, 16))
    centres[1, 0] = 20.0
    labels = np.repeat([0, 1], 100)
    matrix = (centres[labels] + rng.normal(size=(200, 16))).astype(np.float32)
    result = project_2d(matrix, method="umap", seed=0, n_neighbors=10)
    xy = result.coordinates
    assert xy.shape == (200, 2) and np.isfinite(xy).all() and result.explained_variance_ratio is None
    assert not result.centred and result.caption() == "UMAP of 200 rows, not centred, not normalised"
    a, b = xy[labels == 0], xy[labels == 1]
    gap = np.linalg.norm(a.mean(axis=0) - b.mean(axis=0))
    spread = max(np.linalg.norm(a - a.mean(axis=0), axis=1).max(), np.linalg.norm(b - b.mean(axis=0), axis=1).max())
    assert gap > 2 * spread  # the two blobs stay apart: every point is nearer its own centre


@pytest.mark.slow
@pytest.mark.xdist_group("umap")
@pytest.mark.filterwarnings("ignore:n_jobs value")
def test_a_small_tables_map_keeps_neighbours_as_umaps_own_exact_path_keeps_them():
    umap = import_umap()
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(5, 16)) * 4
    matrix = (centres[rng.integers(0, 5, 400)] + rng.normal(size=(400, 16))).astype(np.float32)
    ours, placed = fit_umap(matrix, matrix[:0], 2, 10, 0)  # distances by scipy, handed over precomputed
    own = umap.UMAP(n_components=2, n_neighbors=10, random_state=0).fit_transform(matrix)  # umap's pair loop
    assert ours.shape == (400, 2) and ours.dtype == np.float32 and placed.shape == (0, 2)
    # How far each map keeps each row's 10 nearest neighbours near (sklearn's trustworthiness). Measured
    # over seeds 0-3: umap's own path 0.954-0.958, ours 0.954-0.956. Another CPU's rounding moves 500
    # epochs of SGD as another seed does, so the bound allows the worst pairing of seeds (0.0042) twice
    # over. Baselines: a random map 0.50, the first two columns of the rows 0.80.
    assert trustworthiness(matrix, ours, n_neighbors=10) > trustworthiness(matrix, own, n_neighbors=10) - 0.01


_FIT_IN_A_NEW_PROCESS = """
import json, sys
import numpy as np
from numba.core.dispatcher import Dispatcher
from embedlab.vectors.projection import project_2d
np.save(sys.argv[2], project_2d(np.load(sys.argv[1]), method="umap", seed=0, n_neighbors=10).coordinates)
import umap.layouts, umap.umap_
used = {k: v for m in (umap.layouts, umap.umap_) for k, v in vars(m).items() if isinstance(v, Dispatcher)}
print(json.dumps({k: [sum(v.stats.cache_hits.values()), sum(v.stats.cache_misses.values())] for k, v in used.items()}))
"""


@pytest.mark.slow
@pytest.mark.xdist_group("umap")
@pytest.mark.filterwarnings("ignore:n_jobs value")
def test_a_new_process_loads_umaps_compiled_code_and_draws_the_same_map(tmp_path):
    pytest.importorskip("umap")
    matrix = np.random.default_rng(1).normal(size=(120, 8)).astype(np.float32)
    here = project_2d(matrix, method="umap", seed=0, n_neighbors=10).coordinates  # compiles, or loads
    np.save(tmp_path / "rows.npy", matrix)
    command = [sys.executable, "-c", _FIT_IN_A_NEW_PROCESS, str(tmp_path / "rows.npy"), str(tmp_path / "map.npy")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=UMAP_CACHED_S)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.splitlines()[-1])
    # The layout's epoch loop and the fuzzy graph's two kernels: most of the ~20 s a first fit compiled.
    for name in ("_nb_optimize_layout_euclidean_single_epoch", "smooth_knn_dist", "compute_membership_strengths"):
        assert loaded[name] == [1, 0], (name, loaded)  # [cache hits, compiled]
    np.testing.assert_array_equal(np.load(tmp_path / "map.npy"), here)


# ----- maps frame by frame: project_frame and align_2d ----------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_align_2d_is_orthogonal_procrustes(seed):
    rng = np.random.default_rng(seed)
    points, reference = rng.normal(size=(30, 2)), rng.normal(size=(30, 2))
    turn, _ = orthogonal_procrustes(points, reference)
    np.testing.assert_allclose(align_2d(points, reference), points @ turn, atol=SAME)


@pytest.mark.parametrize(
    "change", [np.diag([-1.0, 1.0]), np.diag([1.0, -1.0]), -np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]])]
)
def test_align_2d_undoes_a_flip_or_an_axis_swap(change):
    points = np.random.default_rng(0).normal(size=(30, 2))
    np.testing.assert_allclose(align_2d(points @ change, points), points, atol=SAME)


@pytest.mark.parametrize("dim", [2, 8, 100])
def test_a_rotated_frame_maps_to_the_same_picture(dim):
    rows = np.random.default_rng(dim).normal(size=(30, dim)) * np.linspace(3, 1, dim)  # distinct variances
    first, variance = project_frame(rows)
    for seed in range(4):  # a few rotations, some of them mirror the PCA axes
        rotated = rows @ random_orthogonal(dim, seed)
        again, again_variance = project_frame(rotated, previous=first)
        np.testing.assert_allclose(again, first, atol=1e-8)
        assert again_variance == pytest.approx(variance, rel=1e-9)


def test_signs_do_not_flip_along_a_slow_run():
    rng = np.random.default_rng(7)
    rows = rng.normal(size=(30, 8))
    previous, _ = project_frame(rows)
    for _ in range(50):  # small steps: each picture must stay near the one before
        rows = rows + 0.02 * rng.normal(size=rows.shape)
        current, _ = project_frame(rows, previous)
        unaligned, _ = project_frame(rows)
        assert np.abs(current - previous).max() < 0.5 < np.abs(current + previous).max()
        np.testing.assert_allclose(np.linalg.norm(current, axis=1), np.linalg.norm(unaligned, axis=1), atol=SAME)
        previous = current
