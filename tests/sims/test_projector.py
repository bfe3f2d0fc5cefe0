"""The projector's maps, colourings and focus, against oracles: scikit-learn's PCA on MiniLM's whole
table, brute-force map ranks, a table whose rows lie in a plane (a map that loses nothing), and
the frequency bands and theme groups of the rows."""

from __future__ import annotations

import json
from concurrent.futures import Future
from dataclasses import fields

import numpy as np
import pytest

from embedlab.data.themes import OTHER, THEMES
from embedlab.errors import InvalidValueError
from embedlab.sims import projector as projector_module
from embedlab.sims.projector import PER_KEY, Comparison, Projector, wire
from embedlab.vectors import Vectors
from embedlab.vectors.compare import TableComparison
from embedlab.vectors.frequency import BANDS, band
from embedlab.vectors.projection import principal_axes

PCA_FLOAT32 = 2e-4  # float32 coordinates of a float64 PCA, against scikit-learn's float32 SVD
SHARE = 1e-6  # a share of variance, float64 both ways


@pytest.fixture(scope="module")
def minilm_projector(minilm_vectors):
    return Projector(minilm_vectors)


def test_pca_of_the_whole_table_is_scikit_learns(minilm_projector, minilm_vectors):
    from sklearn.decomposition import PCA

    oracle = PCA(n_components=3, svd_solver="full").fit(minilm_vectors.vectors.astype(np.float64))
    expected = oracle.transform(minilm_vectors.vectors.astype(np.float64))  # (V, 3)
    layout = minilm_projector.layout("pca", 3)
    assert layout.coordinates.shape == (30522, 3) and layout.coordinates.dtype == np.float32
    signs = np.sign((layout.coordinates * expected).sum(axis=0))  # PCA fixes each axis only up to sign
    assert np.abs(layout.coordinates - expected * signs).max() < PCA_FLOAT32
    assert layout.explained_variance_ratio == pytest.approx(oracle.explained_variance_ratio_.tolist(), abs=SHARE)
    assert layout.fitted_on == 30522 and layout.caption().startswith("PCA of all 30,522 rows, centred; axes explain")


def test_the_2d_map_is_the_3d_maps_first_two_axes(minilm_projector):
    flat, solid = minilm_projector.layout("pca", 2), minilm_projector.layout("pca", 3)
    assert np.array_equal(flat.coordinates, solid.coordinates[:, :2]) and flat.dims == 2
    assert np.shares_memory(flat.coordinates, solid.coordinates)  # one PCA, computed once, serves both
    assert flat.explained_variance_ratio == solid.explained_variance_ratio[:2]


def test_principal_axes_do_not_depend_on_the_chunk():
    rows = np.random.default_rng(1).normal(size=(1000, 12)).astype(np.float32) * np.arange(1, 13)
    whole, chunked = principal_axes(rows, 3, chunk=1000), principal_axes(rows, 3, chunk=7)
    assert np.allclose(whole.axes, chunked.axes, atol=1e-9) and np.allclose(whole.mean, chunked.mean, atol=1e-12)
    assert np.allclose(whole.axes @ whole.axes.T, np.eye(3), atol=1e-12)  # orthonormal


def test_focus_neighbours_are_the_full_spaces_and_ranks_are_the_maps(minilm_projector, minilm_vectors):
    focus = minilm_projector.focus("king", k=10)
    assert tuple(n.key for n in focus.neighbours) == minilm_vectors.most_similar("king", topn=10).keys
    points = minilm_projector.layout("pca", 2).coordinates
    distance = np.linalg.norm(points - points[focus.row], axis=1)
    distance[focus.row] = np.inf
    for n in focus.neighbours:  # brute force: how many points the map puts strictly closer
        assert n.map_rank == 1 + int((distance < distance[n.row]).sum())
    expected = [minilm_vectors.index_to_key[r] for r in np.argsort(distance, kind="stable")[:10]]
    assert list(focus.map_neighbours) == expected
    assert focus.kept == len({n.key for n in focus.neighbours} & set(expected))
    assert focus.point == pytest.approx(points[focus.row].tolist()) and focus.count is None


def test_a_table_in_a_plane_keeps_every_neighbourhood():
    rng = np.random.default_rng(0)
    plane = rng.normal(size=(300, 2)) + 5.0  # off the origin, so cosine still tells rows apart
    turn, _ = np.linalg.qr(rng.normal(size=(8, 8)))
    rows = np.hstack([plane, np.zeros((300, 6))]) @ turn  # (300, 8): rank 2, turned into 8-D
    vectors = Vectors([f"w{i}" for i in range(300)], rows.astype(np.float32))
    projector = Projector(vectors)
    layout = projector.layout("pca", 2)
    assert sum(layout.explained_variance_ratio) == pytest.approx(1.0, abs=1e-6)
    # the map is the plane itself, so Euclidean neighbours on it are Euclidean neighbours in 8-D
    for key in ("w0", "w17", "w123"):
        focus = projector.focus(key, k=5)
        row = vectors.index_of(key)
        full = np.linalg.norm(rows - rows[row], axis=1)
        full[row] = np.inf
        truth = {vectors.index_to_key[r] for r in np.argsort(full)[:5]}
        assert set(focus.map_neighbours) == truth


def test_colours_by_band_theme_and_norm():
    keys = ["the", "war", "two", "zyx", "qqq", "lion"]
    counts = [250_000, 12_000, 1_500, 150, 3, 0]  # one row in each band, most frequent first
    rows = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
    vectors = Vectors(keys, rows, counts)
    projector = Projector(vectors)
    assert projector.schemes == ("band", "theme", "norm")
    bands = projector.colours("band")
    assert bands.names == tuple(name for _, name in BANDS) and bands.values.dtype == np.uint8
    assert [bands.names[c] for c in bands.values] == [band(n) for n in counts] == list(bands.names) + ["rare"]
    themes = projector.colours("theme")
    assert themes.names == (OTHER, *THEMES)
    assert [themes.names[c] for c in themes.values] == ["function words", "war", "numbers", OTHER, OTHER, "animals"]
    assert np.allclose(projector.colours("norm").values, np.linalg.norm(rows, axis=1))


def test_a_table_without_counts_has_no_band_colouring(minilm_projector):
    assert minilm_projector.schemes == ("theme", "norm")
    with pytest.raises(InvalidValueError, match="scheme must be one of theme, norm; got 'band'"):
        minilm_projector.colours("band")
    theme = minilm_projector.colours("theme")
    assert theme.names[theme.values[minilm_projector.vectors.index_of("king")]] == "people"


def test_bad_requests_name_the_value_and_the_range(minilm_projector, monkeypatch):
    with pytest.raises(InvalidValueError, match="method must be one of pca, umap; got 'tsne'"):
        minilm_projector.layout("tsne")
    with pytest.raises(InvalidValueError, match="dims must be one of 2, 3; got 4"):
        minilm_projector.layout("pca", 4)
    with pytest.raises(InvalidValueError, match="k must be"):
        minilm_projector.focus("king", k=0)
    with pytest.raises(KeyError, match="closest: king"):
        minilm_projector.focus("kign")
    monkeypatch.setattr(projector_module, "MAX_ROWS", 1000)  # a million-row table is slow to build here
    with pytest.raises(InvalidValueError, match="has 30,522 rows; the projector maps at most 1,000"):
        Projector(minilm_projector.vectors)


def ran(work, *args) -> Future:
    """work(*args) run here, as a finished Future (what in_child hands back once its child is done)."""
    future = Future()
    future.set_result(work(*args))
    return future


@pytest.mark.slow
@pytest.mark.xdist_group("umap")  # the UMAP fits share one worker: its first fit compiles or loads umap's code
@pytest.mark.filterwarnings("ignore:n_jobs value")  # umap notes that a seed makes it single-threaded
def test_umap_is_fitted_on_a_sample_and_places_every_row(monkeypatch):
    pytest.importorskip("umap")
    monkeypatch.setattr(projector_module, "UMAP_SAMPLE", 150)
    # the fit is handed to the child as in the lab, but run here, where umap's code is already loaded
    # (a new process imports umap, ~4 s of CPU). The child and its priority are the next test's.
    handed = []

    def handing(work, *args, nice):
        handed.append((work, nice))
        return ran(work, *args)

    monkeypatch.setattr(projector_module, "in_child", handing)
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(2, 16)) * 10
    rows = np.vstack([centres[0] + rng.normal(size=(200, 16)), centres[1] + rng.normal(size=(200, 16))])
    vectors = Vectors([f"w{i}" for i in range(400)], rows.astype(np.float32))
    layout = Projector(vectors).layout("umap", 2)
    assert layout.fitted_on == 150 and layout.coordinates.shape == (400, 2) and layout.coordinates.dtype == np.float32
    assert np.isfinite(layout.coordinates).all() and layout.explained_variance_ratio is None
    # rows placed by the fitted model land with their own cluster: each cluster's points stay apart
    a, b = layout.coordinates[:200], layout.coordinates[200:]
    gap = np.linalg.norm(a.mean(axis=0) - b.mean(axis=0))
    assert gap > 3 * max(a.std(axis=0).max(), b.std(axis=0).max())
    assert layout.caption().startswith("UMAP fitted on 150 of 400 rows")
    assert handed == [(projector_module.fit_umap, projector_module.UMAP_NICE)]


def test_info_names_the_maps_made_so_far():
    vectors = Vectors([f"w{i}" for i in range(10)], np.random.default_rng(0).normal(size=(10, 4)).astype(np.float32))
    projector = Projector(vectors)
    info = projector.info()
    assert (info.rows, info.dim, info.schemes, info.made, info.umap_sample) == (10, 4, ("theme", "norm"), (), 10)
    projector.colours("norm")
    projector.layout("pca", 3)
    assert projector.info().made == ("pca-2", "pca-3")  # one PCA serves both; a colouring is no map
    assert json.loads(projector.keys_json()) == vectors.index_to_key


def test_a_comparison_is_the_tables_summary_cut_to_the_top_movers(minilm_projector, minilm_vectors):
    other = Vectors(minilm_vectors.index_to_key[:500], minilm_vectors.vectors[:500][:, ::-1].copy(), name="turned")
    full = minilm_projector.compare(other, k=5)
    shown = minilm_projector.comparison(other, k=5, top=3)
    assert shown.movers == full.movers[:3] and shown.shared == full.shared == 500
    # pinned: a Comparison holds every field of TableComparison but the per-key arrays
    assert [f.name for f in fields(Comparison)] == [f.name for f in fields(TableComparison) if f.name not in PER_KEY]
    assert {f.name: f.type for f in fields(Comparison)} == {
        f.name: f.type for f in fields(TableComparison) if f.name not in PER_KEY
    }


def test_wire_is_little_endian_bytes_and_their_headers():
    array = np.arange(6, dtype=">f4").reshape(3, 2)  # big-endian in memory
    body, headers = wire(array)
    assert headers == {"X-Dtype": "float32", "X-Shape": "3,2"}
    assert np.array_equal(np.frombuffer(body, dtype="<f4").reshape(3, 2), array)
