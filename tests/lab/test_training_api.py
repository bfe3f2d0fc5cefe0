"""The training simulation's API (/api/training/...): real runs started, watched, stopped and refused
through FastAPI's TestClient; the frames' coordinates recomputed from the rows the API hands out."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from fastapi.testclient import TestClient
from safetensors import safe_open
from scipy.linalg import orthogonal_procrustes

from embedlab.data.corpora import GCIDE_PATH
from embedlab.data.themes import theme_of
from embedlab.lab import create_app
from embedlab.sims.training import LiveRun
from embedlab.vectors import Vectors

WAIT = 60  # seconds a run on 3,000 lines may take on a busy machine (about 1 s when idle)
COORDINATES = 1e-6  # the frames' float64 coordinates vs numpy's SVD and scipy's Procrustes


@pytest.fixture(scope="module")
def training(lab_run, small_text, tmp_path_factory):
    """An app whose training service trains on 3,000 lines of enwiki-sample, named "wiki-3k": quick
    runs (the built-in corpora are read from their archives, ~5 s, and the browser test uses them)."""
    cache = tmp_path_factory.mktemp("training-cache")
    app = create_app([str(lab_run)], cache=cache)
    app.state.lab.service("training", lambda: LiveRun(cache / "training", corpora={"wiki-3k": small_text}))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def wait_for(client, done, seconds: float = WAIT) -> dict:
    deadline = time.monotonic() + seconds
    while not done(state := client.get("/api/training/state").json()):
        assert time.monotonic() < deadline, f"still {state['status']} after {seconds} s"
        time.sleep(0.05)
    return state


def check_projection(frames: list[dict], rows: list[np.ndarray]) -> None:
    """Each frame's coordinates: its rows' (W, D) top-2 PCA scores (numpy's SVD), turned onto the
    frame before (scipy's orthogonal Procrustes)."""
    previous = None
    for frame, r in zip(frames, rows, strict=True):
        centred = r - r.mean(axis=0)
        axes = np.linalg.svd(centred, full_matrices=False)[2][:2]  # (2, D)
        axes *= np.sign(axes[[0, 1], np.abs(axes).argmax(axis=1)])[:, None]  # largest loading positive
        scores = centred @ axes.T
        expected = scores if previous is None else scores @ orthogonal_procrustes(scores, previous)[0]
        np.testing.assert_allclose(frame["coordinates"], expected, atol=COORDINATES)
        previous = np.array(frame["coordinates"])


def test_options_list_the_installed_corpora_and_the_limits(client):
    r = client.get("/api/training/options").json()
    assert "enwiki-sample" in r["corpora"] and ("gcide" in r["corpora"]) == GCIDE_PATH.is_file()
    assert r["methods"] == ["sgns", "cbow"] and 8 in r["dims"] and r["defaults"]["corpus"] == "enwiki-sample"
    limits = client.get("/api/config").json()["limits"]["training"]
    assert limits == {"dim": [2, 300], "epochs": [1, 10], "max_words": [1_000, 5_000_000]}
    paths = client.get("/openapi.json").json()["paths"]
    assert {f"/api/training/{p}" for p in ("options", "start", "stop", "state", "row")} <= set(paths)


def test_a_run_from_start_to_finish(training):
    started = training.post("/api/training/start", json={"corpus": "wiki-3k", "dim": 8, "epochs": 2})
    assert started.status_code == 200, started.text
    assert started.json()["status"] == "running" and started.json()["config"]["threads"] == 1
    state = wait_for(training, lambda s: s["status"] != "running")
    assert state["status"] == "finished" and state["progress"]["done"] == state["progress"]["total"]
    frames, tokens = state["frames"], state["tokens"]
    assert len(frames) == state["frame_count"] >= 5 and frames[0]["done"] == 0
    assert state["themes"] == [theme_of(t) for t in tokens] and "places" in state["themes"]
    assert [f["index"] for f in training.get("/api/training/state", params={"since": 4}).json()["frames"]] == list(
        range(4, len(frames))
    )
    rows = [np.array([training.get("/api/training/row", params={"token": t, "frame": f["index"]}).json()["row"]
                      for t in tokens]) for f in frames]  # fmt: skip
    # the last frame is the table the run saved
    table = Vectors.load(training.app.state.lab.service("training", None).folder)
    np.testing.assert_array_equal(rows[-1], np.stack([table[t] for t in tokens]))
    check_projection(frames, rows)
    one = training.get("/api/training/row", params={"token": "king", "frame": 1}).json()
    assert one["done"] == frames[1]["done"] and one["norm"] == pytest.approx(np.linalg.norm(one["row"]), rel=1e-9)


def test_the_map_of_a_few_groups_is_fitted_on_their_rows(training):
    training.post("/api/training/start", json={"corpus": "wiki-3k", "dim": 8, "epochs": 1})
    every = wait_for(training, lambda s: s["status"] != "running")
    picked = ["numbers", "months"]
    state = training.get("/api/training/state", params={"themes": picked}).json()
    assert state["tokens"] == [t for t in every["tokens"] if theme_of(t) in picked] and len(state["tokens"]) >= 8
    assert set(state["themes"]) == set(picked) and state["frame_count"] == every["frame_count"]
    # the rows the run saved: snapshots.safetensors holds every watched row of every frame
    with safe_open(training.app.state.lab.service("training", None).folder / "snapshots.safetensors", "np") as f:
        saved, tokens = f.get_tensor("vectors"), json.loads(f.metadata()["tokens"])  # (S, W, D)
    assert tokens == every["tokens"] and len(saved) == every["frame_count"]
    keep = [tokens.index(t) for t in state["tokens"]]
    check_projection(state["frames"], [frame[keep].astype(np.float64) for frame in saved])
    assert state["frames"][-1]["coordinates"] != [every["frames"][-1]["coordinates"][i] for i in keep]  # refitted
    later = training.get("/api/training/state", params={"themes": picked, "since": 3}).json()["frames"]
    assert later == state["frames"][3:]  # kept from the first answer, not fitted again differently


def test_one_run_at_a_time_and_stop(training):
    assert training.post("/api/training/start", json={"corpus": "wiki-3k", "epochs": 10}).status_code == 200
    refused = training.post("/api/training/start", json={"corpus": "wiki-3k"})
    assert refused.status_code == 409
    assert "still running; stop it before starting another" in refused.json()["error"]
    stopped = training.post("/api/training/stop").json()
    assert stopped["status"] == "stopped" and stopped["message"] == "stopped on request" and stopped["frames"] == []
    assert stopped["progress"] is None or stopped["progress"]["done"] < stopped["progress"]["total"]
    assert training.post("/api/training/stop").json()["status"] == "stopped"  # stopping twice is harmless


def test_the_word_limit_stops_a_run(training):
    training.post("/api/training/start", json={"corpus": "wiki-3k", "method": "cbow", "epochs": 5, "max_words": 20_000})
    state = wait_for(training, lambda s: s["status"] != "running")
    assert state["status"] == "stopped" and state["message"] == "stopped at the limit of 20,000 words"
    assert 20_000 <= state["progress"]["done"] < state["progress"]["total"]


@pytest.mark.parametrize(
    "body, status, message",
    [
        ({"dim": 301}, 422, "dim: Input should be less than or equal to 300"),
        ({"dim": 1}, 422, "dim: Input should be greater than or equal to 2"),
        ({"epochs": 11}, 422, "epochs: Input should be less than or equal to 10"),
        ({"max_words": 10**9}, 422, "max_words: Input should be less than or equal to 5000000"),
        ({"method": "lm"}, 422, "method: Input should be 'sgns' or 'cbow'"),
        ({"threads": 64}, 422, "threads: Extra inputs are not permitted"),
        ({"corpus": "x" * 101}, 422, "corpus: String should have at most 100 characters"),
        ({"corpus": "/etc/passwd"}, 404, "unknown corpus '/etc/passwd'; known: enwiki-sample"),
    ],
)
def test_bad_starts_are_json_4xx_naming_the_limit(client, body, status, message):
    r = client.post("/api/training/start", json=body)
    assert r.status_code == status, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text
    assert client.get("/api/training/state").json()["status"] == "idle"  # nothing started


@pytest.mark.parametrize(
    "path, params, status, message",
    [
        ("/api/training/state", {"since": -1}, 422, "since: Input should be greater than or equal to 0"),
        ("/api/training/state", {"since": 201}, 422, "since: Input should be less than or equal to 200"),
        ("/api/training/state", {"themes": "fish"}, 400, "theme 'fish' is not one of animals, colours"),
        ("/api/training/state", {"themes": ""}, 400, "theme '' is not one of animals"),
        ("/api/training/row", {"token": "king", "frame": 0}, 400, "no frames yet: start a run"),
        ("/api/training/row", {"token": "king", "frame": 201}, 422, "frame: Input should be less than or equal to 200"),
        ("/api/training/row", {"token": "x" * 101, "frame": 0}, 422, "token: String should have at most 100"),
        ("/api/training/row", {"frame": 0}, 422, "token: Field required"),
    ],
)
def test_bad_queries_are_json_4xx_naming_the_limit(client, path, params, status, message):
    r = client.get(path, params=params)
    assert r.status_code == status, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text


def test_bad_rows_of_a_finished_run(training):
    training.post("/api/training/start", json={"corpus": "wiki-3k", "epochs": 1})
    state = wait_for(training, lambda s: s["status"] != "running")
    last = state["frame_count"] - 1
    r = training.get("/api/training/row", params={"token": "king", "frame": last + 1})
    assert r.status_code == 400 and r.json()["error"] == f"frame must be between 0 and {last}; got {last + 1}"
    r = training.get("/api/training/row", params={"token": "zebra", "frame": 0})
    assert r.status_code == 404 and "unknown watched token 'zebra'" in r.json()["error"]


def test_a_body_that_is_not_json_is_a_422(training):
    r = training.post("/api/training/start", content=b"dim=8", headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "JSON" in r.json()["error"] and "Traceback" not in r.text
