"""The tiled projector's routes through FastAPI's TestClient on two cluster tables: 202 with progress
while the map is built, then its manifest; a tile's bytes in the documented layout; contours and
labels; search and neighbours; "moved" colouring against a compared table; and every mistake a 4xx
naming what is wrong, never a 5xx."""

from __future__ import annotations

import time

import numpy as np
import pytest

from embedlab.data.clusters import write_clusters
from embedlab.sims import projector_tiles

BUILD_S = 300  # a child process imports the library and compiles the overlay's kernels on a cold cache


@pytest.fixture(scope="module")
def tiled(tmp_path_factory, lab_cache):
    """A TestClient on two tables of the same 3,000 keys in different spaces (seeds), "a.npy" and "b.npy"."""
    from fastapi.testclient import TestClient

    from embedlab.lab import create_app

    folder = tmp_path_factory.mktemp("tiled")
    a = write_clusters(folder / "a.npy", 3000, dim=10, clusters=5, seed=0)
    b = folder / "b.npy"
    np.save(b, np.load(a)[:, ::-1] * 2)  # the same rows, columns reversed and scaled: nothing moves
    b.with_suffix(".vocab.json").write_bytes(a.with_suffix(".vocab.json").read_bytes())
    tiny = folder / "tiny.npy"
    np.save(tiny, np.eye(3, dtype=np.float32))
    tiny.with_suffix(".vocab.json").write_text('{"keys": ["x", "y", "z"], "counts": null}')
    app = create_app([str(a), str(b), str(tiny)], cache=lab_cache / "lab")
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def manifest_of(client, table: str) -> dict:
    deadline = time.monotonic() + BUILD_S
    while (r := client.get("/api/projector/tiles", params={"table": table})).status_code == 202:
        assert {"stage", "done", "total"} <= set(r.json()) and r.json()["state"] == "building"
        assert time.monotonic() < deadline, r.json()
        time.sleep(0.2)
    assert r.status_code == 200, r.text
    return r.json()


def test_the_manifest_comes_once_the_map_is_built(tiled):
    first = tiled.get("/api/projector/tiles", params={"table": "a.npy"})
    assert first.status_code in (200, 202)  # 202 unless another test built it already
    m = manifest_of(tiled, "a.npy")
    assert (m["state"], m["rows"], m["dim"]) == ("ready", 3000, 10)
    assert m["tiles"]["0/0/0"] == 1000 and sum(m["tiles"].values()) == 3000
    x0, y0, x1, y1 = m["bounds"]
    assert x1 - x0 == pytest.approx(y1 - y0) and m["schemes"] == ["theme", "norm"]


def test_a_tile_is_points_rows_and_values_in_one_body(tiled):
    m = manifest_of(tiled, "a.npy")
    r = tiled.get("/api/projector/tile", params={"table": "a.npy", "build": m["build"], "tile": "0/0/0", "by": "norm"})
    assert r.status_code == 200 and r.headers["content-type"] == "application/octet-stream"
    n = int(r.headers["x-rows"])
    assert n == 1000 and r.headers["x-value-dtype"] == "float32" and r.headers["x-tile"] == "0/0/0"
    assert len(r.content) == 20 * n
    points = np.frombuffer(r.content, "<f4", 2 * n).reshape(n, 2)
    rows = np.frombuffer(r.content, "<u4", n, offset=8 * n)
    norms = np.frombuffer(r.content, "<f4", n, offset=12 * n)
    ranks = np.frombuffer(r.content, "<u4", n, offset=16 * n)
    assert np.array_equal(ranks, np.arange(n))  # the root holds the first 1,000 rows of the priority order
    x0, y0, x1, y1 = m["bounds"]
    assert ((points >= [x0, y0]) & (points <= [x1, y1])).all() and len(set(rows.tolist())) == n
    hits = tiled.get("/api/projector/neighbours", params={"table": "a.npy", "row": int(rows[0]), "k": 1}).json()
    assert hits["point"] == pytest.approx(points[0].tolist())
    assert np.isfinite(norms).all() and (norms > 0).all()


def test_the_overlay_has_contours_and_labels_from_the_keys(tiled):
    m = manifest_of(tiled, "a.npy")
    overlay = tiled.get("/api/projector/overlay", params={"table": "a.npy", "build": m["build"], "tile": "0/0/0"})
    assert overlay.status_code == 200
    body = overlay.json()
    assert body["contours"] and all(c["level"] in m["levels"] for c in body["contours"])
    names = {"amber", "birch", "cedar", "daisy", "ember"}  # write_clusters' first five cluster names
    assert body["labels"] and {label["text"] for label in body["labels"]} <= names


def test_search_and_neighbours_answer_over_every_row(tiled):
    manifest_of(tiled, "a.npy")
    hits = tiled.get("/api/projector/search", params={"table": "a.npy", "pattern": "^cedar-1", "regex": "true",
                                                      "limit": 5}).json()  # fmt: skip
    assert hits["count"] > 5 and hits["shown"] == 5 and all(k.startswith("cedar-1") for k in hits["keys"])
    reach = tiled.get("/api/projector/neighbours", params={"table": "a.npy", "row": 3, "k": 4}).json()
    assert reach["search"] == "exact" and len(reach["neighbours"]) == 4
    assert [n["cosine"] for n in reach["neighbours"]] == sorted(
        (n["cosine"] for n in reach["neighbours"]), reverse=True
    )


def test_moved_colours_a_tile_by_the_compared_tables_displacement(tiled):
    m = manifest_of(tiled, "a.npy")
    r = tiled.get("/api/projector/tile", params={"table": "a.npy", "build": m["build"], "tile": "0/0/0", "by": "moved",
                                                 "other": "b.npy"})  # fmt: skip
    assert r.status_code == 200 and r.headers["x-value-dtype"] == "float32"
    n = int(r.headers["x-rows"])
    moved = np.frombuffer(r.content, "<f4", n, offset=12 * n)
    rows = np.frombuffer(r.content, "<u4", n, offset=8 * n)
    whole = np.frombuffer(tiled.get("/api/projector/displacement", params={"table": "a.npy", "other": "b.npy"}).content,
                          "<f4")  # fmt: skip
    assert np.array_equal(moved, whole[rows]) and np.allclose(moved, 0, atol=1e-3)  # turned and scaled: unmoved


@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({"tile": "9/0/0"}, 404, "not in the tree"),
        ({"tile": "a/b/c"}, 422, "tile"),
        ({"tile": "0/0/0", "build": "stale"}, 409, "changed since"),
        ({"tile": "0/0/0", "by": "moved"}, 400, "other="),
        ({"tile": "0/0/0", "by": "band"}, 400, "scheme"),
    ],
)
def test_bad_tile_requests_are_4xx_naming_the_mistake(tiled, params, status, message):
    m = manifest_of(tiled, "a.npy")
    r = tiled.get("/api/projector/tile", params={"table": "a.npy", "build": m["build"], **params})
    assert r.status_code == status and message in r.json()["error"], r.text


def test_bad_searches_and_neighbours_are_4xx(tiled, monkeypatch):
    manifest_of(tiled, "a.npy")
    r = tiled.get("/api/projector/search", params={"table": "a.npy", "pattern": "(a", "regex": "true"})
    assert r.status_code == 400 and "does not compile" in r.json()["error"]
    monkeypatch.setattr(projector_tiles, "SEARCH_BUDGET_S", 0.0)  # any regex runs past a budget of nothing
    r = tiled.get("/api/projector/search", params={"table": "a.npy", "pattern": "a.*b", "regex": "true"})
    assert r.status_code == 400 and "ran past" in r.json()["error"], r.text
    r = tiled.get("/api/projector/neighbours", params={"table": "a.npy", "row": 3000})
    assert r.status_code == 400 and "row" in r.json()["error"]
    r = tiled.get("/api/projector/neighbours", params={"table": "a.npy", "row": 0, "k": 101})
    assert r.status_code == 422


def test_a_table_too_small_for_a_layout_is_a_4xx_saying_so(tiled):
    deadline = time.monotonic() + BUILD_S
    while (r := tiled.get("/api/projector/tiles", params={"table": "tiny.npy"})).status_code == 202:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert r.status_code == 400 and "rows" in r.json()["error"], r.text


def test_a_whole_table_view_of_too_many_rows_is_refused_before_loading(tiled, monkeypatch):
    from embedlab.lab import deps

    monkeypatch.setattr(deps, "MAX_ROWS", 2)  # tiny.npy's 3 rows are one too many (no other test views it whole)
    for path in ("/api/projector/info", "/api/projector/layout"):
        error = tiled.get(path, params={"table": "tiny.npy"}).json()["error"]
        assert (
            error == "tiny.npy has 3 rows; the 3-D view and comparisons hold at most 2 (the 2-D map holds any number)"
        )
    r = tiled.get("/api/projector/compare", params={"table": "a.npy", "other": "tiny.npy"})  # a.npy's own view first
    assert r.status_code == 400 and "rows; the 3-D view and comparisons hold at most 2" in r.json()["error"]
